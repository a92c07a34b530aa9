// Command basalt is the Basalt node: a Besu-compatible Ethereum client.
//
// Run `basalt --help` for its options. Options are read from the command
// line, BASALT_* environment variables and a TOML file (--config-file); see
// package config.
package main

import (
	"context"
	"os"

	"github.com/basaltchain/basalt/internal/cliconf"
)

func main() {
	cliconf.Main(func(ctx context.Context) int {
		return execute(ctx, newRootCommand(), os.Args[1:], os.Stdout, os.Stderr)
	})
}
