package localnet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/internal/genconfig"
	"github.com/basaltchain/basalt/ptm/keys"
)

// ChainID is every local network's chain ID (Besu's dev chain ID, which
// wallets know as a local network).
const ChainID = 1337

// bftMixHash is the mixHash IBFT 2.0 and QBFT genesis blocks carry.
const bftMixHash = "0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365"

// create writes a new network into dir (missing or empty): the genesis
// and validator keys through the operator's generation, per node its
// data directory and privacy manager configuration, the static nodes
// file, and last the manifest. On failure it removes what it wrote.
func create(dir string, s Settings) (m *Manifest, err error) {
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	defer func() {
		if err != nil {
			undo(dir, existed)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if s.Milestone == "" {
		s.Milestone = DefaultMilestone
	}
	m = &Manifest{Kind: manifestKind, Settings: s, ChainID: ChainID, Genesis: "config/genesis.json",
		DevAddress: strings.ToLower(config.DevAccounts[0].Address.Hex()), DevKey: "0x" + config.DevAccounts[0].PrivateKey}
	alloc := map[string]any{}
	for _, a := range config.DevAccounts {
		alloc[strings.ToLower(a.Address.Hex()[2:])] = map[string]any{"balance": "0xad78ebc5ac6200000000"}
	}
	m.Nodes = make([]Node, s.Validators)
	for i := range m.Nodes {
		n := &m.Nodes[i]
		n.Name = "node" + strconv.Itoa(i+1)
		n.DataDir = filepath.Join(n.Name, "data")
		n.HTTP = fmt.Sprintf("http://127.0.0.1:%d", s.port(i, offHTTP))
		n.WS = fmt.Sprintf("ws://127.0.0.1:%d", s.port(i, offWS))
		n.GraphQL = fmt.Sprintf("http://127.0.0.1:%d/graphql", s.port(i, offGraphQL))
		n.Metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", s.port(i, offMetrics))
		n.P2PPort = s.port(i, offP2P)
		if err := os.MkdirAll(filepath.Join(dir, n.DataDir), 0o700); err != nil {
			return nil, err
		}
		if s.Privacy {
			// Gas has a price (London): each node signs its privacy marker
			// transactions with its own key, funded in the genesis.
			if err := privacyFiles(dir, s, i, m, n, alloc); err != nil {
				return nil, err
			}
		}
	}
	if s.Signer {
		m.SignerURL = fmt.Sprintf("http://127.0.0.1:%d", s.port(0, offSigner))
	}
	cfg, err := genconfig.Parse(operatorConfig(s, alloc))
	if err != nil {
		return nil, err
	}
	generated, err := genconfig.Generate(cfg, filepath.Join(dir, "config"), genconfig.DefaultFiles)
	if err != nil {
		return nil, err
	}
	var enodes []string
	for i, g := range generated {
		n := &m.Nodes[i]
		n.Address = strings.ToLower(g.Address.Hex())
		rel, err := filepath.Rel(dir, filepath.Join(g.KeyDir, genconfig.DefaultFiles.PrivateKey))
		if err != nil {
			return nil, err
		}
		n.KeyFile = rel
		n.Enode = fmt.Sprintf("enode://%x@127.0.0.1:%d", g.Public, n.P2PPort)
		enodes = append(enodes, n.Enode)
	}
	static, err := json.MarshalIndent(enodes, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "static-nodes.json"), static, 0o644); err != nil {
		return nil, err
	}
	return m, m.write(dir)
}

// operatorConfig is the `operator generate-blockchain-config` input of s:
// blocks every --block-period (one second by default), the rules of s.Milestone and every earlier milestone
// from genesis, from London with Besu's zeroBaseFee (gas is free, as
// private transactions and their markers, priced 0, need, however full the
// blocks), the dev accounts (and alloc) funded.
func operatorConfig(s Settings, alloc map[string]any) []byte {
	engine := map[string]any{"blockperiodseconds": 1, "epochlength": 30000}
	// Check has accepted the period; a sub-second one (or 1.5 s) is
	// Besu's xblockperiodmilliseconds, beside a blockperiodseconds that
	// Besu and older tools read.
	if period, _ := s.Period(); period%time.Second == 0 {
		engine["blockperiodseconds"] = int64(period / time.Second)
	} else {
		engine["xblockperiodmilliseconds"] = period.Milliseconds()
	}
	mix := bftMixHash
	switch s.Consensus {
	case "clique":
		engine["createemptyblocks"] = true
		mix = "0x" + strings.Repeat("0", 64)
	default:
		engine["requesttimeoutseconds"] = 2
	}
	config := map[string]any{"chainId": ChainID, s.Consensus: engine}
	genesis := map[string]any{
		"config":     config,
		"nonce":      "0x0",
		"timestamp":  "0x0",
		"gasLimit":   "0x2FAF0800",
		"difficulty": "0x1",
		"mixHash":    mix,
		"coinbase":   "0x0000000000000000000000000000000000000000",
		"alloc":      alloc,
	}
	if forkKeys(s.Milestone, config, alloc) {
		config["zeroBaseFee"] = true
		genesis["baseFeePerGas"] = "0x0"
	}
	cfg := map[string]any{
		"genesis":    genesis,
		"blockchain": map[string]any{"nodes": map[string]any{"generate": true, "count": s.Validators}},
	}
	data, _ := json.Marshal(cfg) // maps of strings and numbers always marshal
	return data
}

// privacyFiles writes node i's privacy manager key pair and configuration
// and its marker signing key (funded in alloc), and fills n's privacy
// fields.
func privacyFiles(dir string, s Settings, i int, m *Manifest, n *Node, alloc map[string]any) error {
	pdir := filepath.Join(n.Name, "privacy")
	abs, err := filepath.Abs(filepath.Join(dir, pdir))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return err
	}
	kp, err := keys.Generate(nil)
	if err != nil {
		return err
	}
	if err := keys.WriteKeyPairFiles(filepath.Join(abs, "tm"), kp, ""); err != nil {
		return err
	}
	n.PrivacyPublicKey = kp.Public.String()
	n.PrivacyKeyFile = filepath.Join(pdir, "tm.pub")
	n.PrivacyURL = fmt.Sprintf("http://127.0.0.1:%d", s.port(i, offPrivacyClient))
	n.PrivacyNodeURL = fmt.Sprintf("http://127.0.0.1:%d/", s.port(i, offPrivacyNode))
	others := ""
	if i > 0 {
		// Every manager starts from the first; discovery does the rest.
		others = strconv.Quote(m.Nodes[0].PrivacyNodeURL)
	}
	conf := fmt.Sprintf(`nodeurl = %q
nodeport = %d
nodenetworkinterface = "127.0.0.1"
clientport = %d
clientnetworkinterface = "127.0.0.1"
workdir = %q
othernodes = [%s]
publickeys = ["tm.pub"]
privatekeys = ["tm.key"]
storage = "leveldb:db"
`, n.PrivacyNodeURL, s.port(i, offPrivacyNode), s.port(i, offPrivacyClient), abs, others)
	n.PrivacyConfig = filepath.Join(pdir, "orion.conf")
	if err := os.WriteFile(filepath.Join(dir, n.PrivacyConfig), []byte(conf), 0o644); err != nil {
		return err
	}
	marker, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	n.MarkerKeyFile = filepath.Join(n.Name, "marker.key")
	if err := os.WriteFile(filepath.Join(dir, n.MarkerKeyFile), []byte(hexutil.Encode(crypto.FromECDSA(marker))), 0o600); err != nil {
		return err
	}
	alloc[strings.ToLower(crypto.PubkeyToAddress(marker.PublicKey).Hex()[2:])] = map[string]any{"balance": "0xad78ebc5ac6200000000"}
	return nil
}

// undo removes a failed create's files: dir itself if create made it,
// else its entries (it was empty).
func undo(dir string, existed bool) {
	if !existed {
		os.RemoveAll(dir)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
