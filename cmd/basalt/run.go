package main

import (
	"context"
	"log/slog"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/node"
)

// runNode runs the node until ctx ends (SIGINT or SIGTERM), then stops it
// cleanly. It logs the version and the start-up notices about the options
// first, so that they lead the log.
func runNode(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	slog.SetDefault(log)
	log.Info("Starting Basalt", "version", cfg.ClientID)
	cfg.LogNotices(log)
	if cfg.PprofAddress != "" {
		stop, err := servePprof(cfg.PprofAddress, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	n, err := node.New(cfg, log)
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
