package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/genconfig"
)

// newOperatorCommand is `basalt operator generate-blockchain-config`
// (Besu's GenerateBlockchainConfig): it writes a genesis file whose
// extraData lists the generated (or imported) nodes as IBFT 2.0
// validators (or QBFT's, or Clique's signers), and one keys/<address>/
// folder per node.
func newOperatorCommand() *cobra.Command {
	var o generateOptions
	gen := &cobra.Command{
		Use:   "generate-blockchain-config",
		Short: "Generates IBFT 2.0 configuration files",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.run() },
	}
	f := gen.Flags()
	f.StringVar(&o.configFile, "config-file", "", "Configuration file (JSON: genesis and blockchain nodes)")
	f.StringVar(&o.to, "to", "", "Directory to write the output to")
	f.StringVar(&o.genesisName, "genesis-file-name", "genesis.json", "Name of the genesis file")
	f.StringVar(&o.privName, "private-key-file-name", "key.priv", "Name of the private key files")
	f.StringVar(&o.pubName, "public-key-file-name", "key.pub", "Name of the public key files")
	_ = gen.MarkFlagRequired("config-file")
	_ = gen.MarkFlagRequired("to")
	return commandGroup("operator", "Operator tools", gen)
}

type generateOptions struct {
	configFile, to, genesisName, privName, pubName string
}

func (o *generateOptions) run() error {
	data, err := os.ReadFile(o.configFile)
	if err != nil {
		return fmt.Errorf("read %s: %w", o.configFile, err)
	}
	cfg, err := genconfig.Parse(data)
	if err != nil {
		return fmt.Errorf("invalid configuration file %s: %w", o.configFile, err)
	}
	_, err = genconfig.Generate(cfg, o.to, genconfig.Files{Genesis: o.genesisName, PrivateKey: o.privName, PublicKey: o.pubName})
	return err
}
