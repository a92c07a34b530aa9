package main

import (
	"context"
	"log/slog"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/node"
)

// runNode runs the node until ctx ends (SIGINT or SIGTERM), then stops it
// cleanly.
func runNode(ctx context.Context, cfg *config.Config) error {
	n, err := node.New(cfg, slog.Default())
	if err != nil {
		return err
	}
	if err := n.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	slog.Info("Shutting down")
	return n.Close()
}
