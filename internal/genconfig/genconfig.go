// Package genconfig generates a blockchain's configuration files: a
// genesis whose extraData lists the generated (or imported) nodes as
// validators (IBFT 2.0, QBFT or Clique signers), and one keys/<address>/
// folder per node. It is the code path of `basalt operator
// generate-blockchain-config` and of `basalt network up`.
package genconfig

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

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
)

// Config is the operator's configuration file (Besu's format): a genesis
// and how to get the nodes' keys.
type Config struct {
	Genesis    map[string]any `json:"genesis"`
	Blockchain struct {
		Nodes struct {
			Generate bool     `json:"generate"`
			Count    int      `json:"count"`
			Keys     []string `json:"keys"`
		} `json:"nodes"`
	} `json:"blockchain"`
}

// Parse reads a configuration file's content.
func Parse(data []byte) (*Config, error) {
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	if cfg.Genesis == nil {
		return nil, errors.New("configuration file has no \"genesis\" object")
	}
	return &cfg, nil
}

// Files names the output files.
type Files struct {
	Genesis, PrivateKey, PublicKey string
}

// DefaultFiles are Besu's names.
var DefaultFiles = Files{Genesis: "genesis.json", PrivateKey: "key.priv", PublicKey: "key.pub"}

// Node is one generated (or imported) node.
type Node struct {
	Address common.Address
	Public  []byte            // 64 bytes, no 04 prefix
	Key     *ecdsa.PrivateKey // nil for an imported public key
	// KeyDir is the node's keys/<address> folder.
	KeyDir string
}

// Generate writes cfg's genesis and node keys into the empty or missing
// directory to and returns the nodes in the order of their keys.
func Generate(cfg *Config, to string, files Files) ([]Node, error) {
	if entries, err := os.ReadDir(to); err == nil && len(entries) > 0 {
		return nil, errors.New("Output directory must be empty.") //nolint:staticcheck // Besu's message
	}
	nodes, err := cfg.nodes()
	if err != nil {
		return nil, err
	}
	addrs := make([]common.Address, len(nodes))
	for i, n := range nodes {
		addrs[i] = n.Address
	}
	if extra := validatorsExtra(cfg.Genesis, addrs); extra != nil {
		SetKey(cfg.Genesis, "extraData", hexutil.Encode(extra))
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return nil, err
	}
	genesis, err := json.MarshalIndent(cfg.Genesis, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(to, files.Genesis), genesis, 0o644); err != nil {
		return nil, err
	}
	for i, n := range nodes {
		dir := filepath.Join(to, "keys", strings.ToLower(n.Address.Hex()))
		nodes[i].KeyDir = dir
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, files.PublicKey), []byte(hexutil.Encode(n.Public)), 0o644); err != nil {
			return nil, err
		}
		if n.Key != nil {
			if err := os.WriteFile(filepath.Join(dir, files.PrivateKey), []byte(hexutil.Encode(crypto.FromECDSA(n.Key))), 0o600); err != nil {
				return nil, err
			}
		}
	}
	return nodes, nil
}

// nodes generates or imports the nodes' keys.
func (cfg *Config) nodes() ([]Node, error) {
	var nodes []Node
	switch n := cfg.Blockchain.Nodes; {
	case n.Generate:
		if n.Count <= 0 {
			return nil, errors.New("blockchain.nodes.count must be positive when generate is true")
		}
		for range n.Count {
			key, err := crypto.GenerateKey()
			if err != nil {
				return nil, err
			}
			nodes = append(nodes, Node{Address: crypto.PubkeyToAddress(key.PublicKey),
				Public: crypto.FromECDSAPub(&key.PublicKey)[1:], Key: key})
		}
	case len(n.Keys) > 0:
		for _, k := range n.Keys {
			b, err := hexutil.Decode(k)
			if err != nil || len(b) != 64 {
				return nil, fmt.Errorf("invalid public key %q: expected 0x and 128 hexadecimal digits", k)
			}
			pub, err := crypto.UnmarshalPubkey(append([]byte{4}, b...))
			if err != nil {
				return nil, fmt.Errorf("invalid public key %q: %w", k, err)
			}
			nodes = append(nodes, Node{Address: crypto.PubkeyToAddress(*pub), Public: b})
		}
	default:
		return nil, errors.New("blockchain.nodes needs \"generate\": true with a \"count\", or \"keys\"")
	}
	return nodes, nil
}

// validatorsExtra is the genesis extraData naming addrs as the validators
// of the genesis's engine (nil when it has none of IBFT 2.0, QBFT and
// Clique).
func validatorsExtra(genesis map[string]any, addrs []common.Address) []byte {
	gc, ok := GetKey(genesis, "config").(map[string]any)
	if !ok {
		return nil
	}
	switch {
	case GetKey(gc, "ibft2") != nil:
		// A migration genesis (both keys) starts on IBFT 2.0.
		return ibft2.EncodeValidators(addrs)
	case GetKey(gc, "qbft") != nil:
		return qbft.EncodeValidators(addrs)
	case GetKey(gc, "clique") != nil:
		// 32 vanity bytes, the signers, an empty 65-byte seal.
		extra := make([]byte, 32, 32+len(addrs)*common.AddressLength+65)
		for _, a := range addrs {
			extra = append(extra, a.Bytes()...)
		}
		return append(extra, make([]byte, 65)...)
	}
	return nil
}

// GetKey returns m's value for key, matched case-insensitively as genesis
// keys are.
func GetKey(m map[string]any, key string) any {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// SetKey sets key in m, replacing any spelling of it.
func SetKey(m map[string]any, key string, v any) {
	for k := range m {
		if strings.EqualFold(k, key) {
			delete(m, k)
		}
	}
	m[key] = v
}
