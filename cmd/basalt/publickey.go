package main

import (
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/node"
)

// newPublicKeyCommand is `basalt public-key export|export-address`, which
// print the node key's public key (0x + 128 hex, no 04 prefix) or address,
// as Besu does. The key is generated when the file does not exist yet.
func newPublicKeyCommand() *cobra.Command {
	return commandGroup("public-key", "Print the node's public key or address",
		keyExportCommand("export", "Print the node's public key", func(pub []byte) string {
			return hexutil.Encode(pub[1:])
		}),
		keyExportCommand("export-address", "Print the node's address", func(pub []byte) string {
			key, _ := crypto.UnmarshalPubkey(pub)
			return hexutil.Encode(crypto.PubkeyToAddress(*key).Bytes())
		}))
}

func keyExportCommand(use, short string, format func(pub []byte) string) *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(cmd)
			if err != nil {
				return err
			}
			key, err := node.LoadOrCreateKey(cfg.NodePrivateKeyFile)
			if err != nil {
				return err
			}
			out := format(crypto.FromECDSAPub(&key.PublicKey))
			if to == "" {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), out)
				return err
			}
			if err := os.WriteFile(to, []byte(out), 0o644); err != nil {
				return fmt.Errorf("write %s: %w", to, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "File to write to instead of standard output")
	return cmd
}
