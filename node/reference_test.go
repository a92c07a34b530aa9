package node

import (
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/internal/docgen"
	"github.com/basaltchain/basalt/rpctypes"
)

// methodNotes are what the generated method list says beside a method,
// beyond its group and engines; the details are on the pages the groups
// link to. A note for a method the node does not register fails the test.
var methodNotes = map[string]string{
	"eth_accounts":                  "always `[]`: the node holds no keys (basalt-signer does)",
	"eth_sendTransaction":           "-32604, as Besu: the node holds no keys; send it to basalt-signer",
	"eth_subscribe":                 "WebSocket only (-32604 over HTTP, as Besu)",
	"eth_unsubscribe":               "WebSocket only",
	"priv_subscribe":                "WebSocket only",
	"priv_unsubscribe":              "WebSocket only",
	"eth_simulateV1":                "execution-apis; see [simulating blocks](../how-to/simulate.md)",
	"eth_baseFee":                   "execution-apis, beyond Besu's set",
	"eth_capabilities":              "execution-apis, beyond Besu's set",
	"eth_getStorageValues":          "execution-apis, beyond Besu's set",
	"eth_fillTransaction":           "execution-apis (go-ethereum's shape), beyond Besu's set",
	"eth_config":                    "EIP-7910",
	"eth_getProof":                  "EIP-1186",
	"eth_getQuorumPayload":          "GoQuorum's; a GoQuorum party (--ptm-url) only, see [GoQuorum privacy](../how-to/goquorum-privacy.md)",
	"eth_sendRawPrivateTransaction": "GoQuorum's; a GoQuorum party (--ptm-url) only, see [GoQuorum privacy](../how-to/goquorum-privacy.md)",
	"eth_sendRawTransaction":        "types 0, 1, 2, and 4 from Prague; blob transactions refused (no consensus layer)",
	"txpool_basaltStatistics":       "the API documents' `txpool_clientStatistics`; same answer as `txpool_besuStatistics`",
	"txpool_basaltTransactions":     "the API documents' `txpool_clientTransactions`; same answer as `txpool_besuTransactions`",
	"debug_metrics":                 "the metrics registry in Besu's nested shape; `{}` with metrics off",
	"debug_getBadBlocks":            "the last 100 refused blocks since start",
	"eea_sendRawTransaction":        "needs `--privacy-enabled` (else -50100 \"Privacy is not enabled\")",
	"miner_start":                   "-32010 without a coinbase",
}

// groupPages link each group to the page that describes it.
var groupPages = map[string]string{
	rpctypes.GroupAdmin:  "[network of nodes](../how-to/network-of-nodes.md), [p2p](../concepts/p2p.md)",
	rpctypes.GroupClique: "[Clique](../how-to/clique.md)",
	rpctypes.GroupDebug:  "[tracing](../how-to/tracing.md)",
	rpctypes.GroupEEA:    "[private transactions](../how-to/private-transactions.md)",
	rpctypes.GroupEth:    "[JSON-RPC](json-rpc.md)",
	rpctypes.GroupIBFT:   "[IBFT 2.0](../how-to/ibft2.md)",
	rpctypes.GroupMiner:  "[block production](../concepts/block-production.md)",
	rpctypes.GroupNet:    "[JSON-RPC](json-rpc.md)",
	rpctypes.GroupPerm:   "[permissioning](../how-to/permissioning.md)",
	rpctypes.GroupPriv:   "[private transactions](../how-to/private-transactions.md), [privacy model](../concepts/privacy.md)",
	rpctypes.GroupQBFT:   "[QBFT](../how-to/qbft.md)",
	rpctypes.GroupTxPool: "[JSON-RPC](json-rpc.md)",
	rpctypes.GroupWeb3:   "[JSON-RPC](json-rpc.md)",
}

// referenceGenesis is a one-validator genesis of engine ("" for ethash).
func referenceGenesis(t *testing.T, engine string) *config.Genesis {
	t.Helper()
	if engine == "" {
		return config.DevGenesis()
	}
	key, _ := crypto.GenerateKey()
	validators := []common.Address{crypto.PubkeyToAddress(key.PublicKey)}
	extra := map[string][]byte{
		"qbft":   qbft.EncodeValidators(validators),
		"ibft2":  ibft2.EncodeValidators(validators),
		"clique": clique.GenesisExtra(validators...),
	}[engine]
	data := fmt.Sprintf(`{"config":{"chainId":1337,"berlinBlock":0,%q:{"blockperiodseconds":1,"epochlength":30000}},
		"gasLimit":"0x1000000","difficulty":"0x1","extraData":"%s","alloc":{}}`, engine, hexutil.Encode(extra))
	g, err := config.ParseGenesis([]byte(data))
	if err != nil {
		t.Fatalf("%s genesis: %v", engine, err)
	}
	return g
}

// registered builds (does not start) a node of genesis g and returns the
// methods its JSON-RPC registry holds, by name, with their groups.
func registered(t *testing.T, g *config.Genesis) map[string]string {
	t.Helper()
	dir := t.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          g.ChainID().Uint64(),
		Genesis:            g,
		MinGasPrice:        big.NewInt(1),
	}
	cfg.TxPool.MaxSize = 16
	cfg.RPC.HTTPEnabled, cfg.RPC.HTTPHost = true, "127.0.0.1"
	n, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	out := map[string]string{}
	for _, m := range n.rpc.reg.Methods() {
		out[m.Name] = m.Group
	}
	return out
}

// TestReferenceMethods writes docs/reference/json-rpc-methods.md from the
// JSON-RPC registries of nodes of each consensus engine: every method, its
// group, the engines that serve it and its note; then the methods Besu
// knows that no node serves.
func TestReferenceMethods(t *testing.T) {
	engines := []string{"ethash", "clique", "ibft2", "qbft"}
	group := map[string]string{}
	servedBy := map[string][]string{}
	for _, e := range engines {
		g := e
		if e == "ethash" {
			g = ""
		}
		for name, grp := range registered(t, referenceGenesis(t, g)) {
			group[name] = grp
			servedBy[name] = append(servedBy[name], e)
		}
	}
	for m := range methodNotes {
		if group[m] == "" {
			t.Errorf("methodNotes has a note for %s, which no node registers", m)
		}
	}
	byGroup := map[string][]string{}
	for name, g := range group {
		byGroup[g] = append(byGroup[g], name)
	}
	groups := slices.Sorted(func(yield func(string) bool) {
		for g := range byGroup {
			if !yield(g) {
				return
			}
		}
	})
	var b strings.Builder
	b.WriteString(docgen.Header("JSON-RPC methods", "the JSON-RPC registry of a node of each consensus engine (node/reference_test.go)"))
	b.WriteString("Every method a node registers, by API group. A group answers only when enabled on the\n" +
		"endpoint (`--rpc-http-api`, `--rpc-ws-api`; default `ETH,NET,WEB3`); a method of a disabled group,\n" +
		"or of an engine the node does not run, answers -32604 \"Method not enabled\". Behaviour, parameters\n" +
		"and shapes: [JSON-RPC](json-rpc.md) and the page linked from each group.\n\n")
	fmt.Fprintf(&b, "%d methods in %d groups.\n", len(group), len(groups))
	for _, g := range groups {
		names := byGroup[g]
		sort.Strings(names)
		fmt.Fprintf(&b, "\n## %s\n\n", g)
		if p := groupPages[g]; p != "" {
			fmt.Fprintf(&b, "Described in %s.\n\n", p)
		}
		b.WriteString("| method | engines | note |\n|---|---|---|\n")
		for _, n := range names {
			on := "all"
			if len(servedBy[n]) != len(engines) {
				on = strings.Join(servedBy[n], ", ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", n, on, docgen.Cell(methodNotes[n]))
		}
	}
	var unserved []string
	for _, n := range rpctypes.KnownMethods() {
		if group[n] == "" {
			unserved = append(unserved, "`"+n+"`")
		}
	}
	b.WriteString("\n## Known to Besu, not served\n\n" +
		"These names are Besu's (or the API documents'); Basalt registers no method for them, and they\n" +
		"answer -32604 \"Method not enabled\" (any other unknown name answers -32601 \"Method not found\").\n" +
		"Why each is left out: [compatibility](compatibility.md).\n\n")
	b.WriteString(strings.Join(unserved, ", ") + ".\n")
	docgen.Check(t, "docs/reference/json-rpc-methods.md", b.String())
}
