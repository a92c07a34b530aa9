package main

import "github.com/spf13/cobra"

// subcommands returns basalt's subcommands. Each lives in its own file as a
// constructor (newBlocksCommand, newPublicKeyCommand, ...) listed here; its
// RunE calls config.Load(cmd) to get the shared options (--data-path,
// --genesis-file, --network, --config-file, --node-private-key-file,
// --logging) from the command line, environment and config file, and
// cfg.RequireGenesis() if it needs a chain.
func subcommands() []*cobra.Command {
	return []*cobra.Command{newBlocksCommand(), newPublicKeyCommand(), newPasswordCommand(), newRLPCommand(), newOperatorCommand(), newNetworkCommand()}
}
