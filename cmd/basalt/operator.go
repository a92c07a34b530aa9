package main

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
)

// newOperatorCommand is `basalt operator generate-blockchain-config`
// (Besu's GenerateBlockchainConfig): it writes a genesis file whose
// extraData lists the generated (or imported) nodes as IBFT 2.0
// validators, and one keys/<address>/ folder per node.
func newOperatorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Operator tools",
		Args:  noArgs,
	}
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
	cmd.AddCommand(gen)
	return cmd
}

type generateOptions struct {
	configFile, to, genesisName, privName, pubName string
}

type operatorConfig struct {
	Genesis    map[string]any `json:"genesis"`
	Blockchain struct {
		Nodes struct {
			Generate bool     `json:"generate"`
			Count    int      `json:"count"`
			Keys     []string `json:"keys"`
		} `json:"nodes"`
	} `json:"blockchain"`
}

type operatorNode struct {
	addr common.Address
	pub  []byte // 64 bytes, no 04 prefix
	key  *ecdsa.PrivateKey
}

func (o *generateOptions) run() error {
	data, err := os.ReadFile(o.configFile)
	if err != nil {
		return fmt.Errorf("read %s: %w", o.configFile, err)
	}
	var cfg operatorConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("invalid configuration file %s: %w", o.configFile, err)
	}
	if cfg.Genesis == nil {
		return errors.New("configuration file has no \"genesis\" object")
	}
	if entries, err := os.ReadDir(o.to); err == nil && len(entries) > 0 {
		return errors.New("Output directory must be empty.") //nolint:staticcheck // Besu's message
	}
	var nodes []operatorNode
	switch n := cfg.Blockchain.Nodes; {
	case n.Generate:
		if n.Count <= 0 {
			return errors.New("blockchain.nodes.count must be positive when generate is true")
		}
		for range n.Count {
			key, err := crypto.GenerateKey()
			if err != nil {
				return err
			}
			nodes = append(nodes, operatorNode{addr: crypto.PubkeyToAddress(key.PublicKey),
				pub: crypto.FromECDSAPub(&key.PublicKey)[1:], key: key})
		}
	case len(n.Keys) > 0:
		for _, k := range n.Keys {
			b, err := hexutil.Decode(k)
			if err != nil || len(b) != 64 {
				return fmt.Errorf("invalid public key %q: expected 0x and 128 hexadecimal digits", k)
			}
			pub, err := crypto.UnmarshalPubkey(append([]byte{4}, b...))
			if err != nil {
				return fmt.Errorf("invalid public key %q: %w", k, err)
			}
			nodes = append(nodes, operatorNode{addr: crypto.PubkeyToAddress(*pub), pub: b})
		}
	default:
		return errors.New("blockchain.nodes needs \"generate\": true with a \"count\", or \"keys\"")
	}
	if gc, ok := getKey(cfg.Genesis, "config").(map[string]any); ok && (getKey(gc, "ibft2") != nil || getKey(gc, "qbft") != nil) {
		addrs := make([]common.Address, len(nodes))
		for i, n := range nodes {
			addrs[i] = n.addr
		}
		// A migration genesis (both keys) starts on IBFT 2.0.
		extra := ibft2.EncodeValidators(addrs)
		if getKey(gc, "ibft2") == nil {
			extra = qbft.EncodeValidators(addrs)
		}
		setKey(cfg.Genesis, "extraData", hexutil.Encode(extra))
	}
	if err := os.MkdirAll(o.to, 0o755); err != nil {
		return err
	}
	genesis, err := json.MarshalIndent(cfg.Genesis, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.to, o.genesisName), genesis, 0o644); err != nil {
		return err
	}
	for _, n := range nodes {
		dir := filepath.Join(o.to, "keys", strings.ToLower(n.addr.Hex()))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, o.pubName), []byte(hexutil.Encode(n.pub)), 0o644); err != nil {
			return err
		}
		if n.key != nil {
			if err := os.WriteFile(filepath.Join(dir, o.privName), []byte(hexutil.Encode(crypto.FromECDSA(n.key))), 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// getKey returns m's value for key, matched case-insensitively as genesis
// keys are.
func getKey(m map[string]any, key string) any {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// setKey sets key in m, replacing any spelling of it.
func setKey(m map[string]any, key string, v any) {
	for k := range m {
		if strings.EqualFold(k, key) {
			delete(m, k)
		}
	}
	m[key] = v
}
