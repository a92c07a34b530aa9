// Command basalt is the Basalt node: a Besu-compatible Ethereum client.
//
// Run `basalt --help` for its options. Options are read from the command
// line, BASALT_* environment variables and a TOML file (--config-file); see
// package config.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, newRootCommand(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
