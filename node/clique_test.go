package node

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/internal/chaingen"
	"github.com/basaltchain/basalt/p2p"
)

// startCliqueNode starts an in-process node on a one-signer Clique genesis
// (1 s blocks), whose node key is the signer's when signer is set.
func startCliqueNode(t *testing.T, signer bool) *Node {
	t.Helper()
	return startCliqueNodeWith(t, signer, chaingen.CliqueGenesis(1))
}

func startCliqueNodeWith(t *testing.T, signer bool, g *config.Genesis) *Node {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if signer {
		if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(chaingen.CliqueSigner()))), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: keyFile,
		NetworkID:          config.DevChainID,
		Genesis:            g,
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"localhost", "127.0.0.1"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC = config.RPCConfig{HTTPEnabled: true, HTTPHost: "127.0.0.1", HTTPAPIs: []string{"ETH", "MINER", "CLIQUE"}}
	n, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func rpcCall(t *testing.T, n *Node, method string, out any) {
	t.Helper()
	resp, err := http.Post("http://"+n.HTTPAddr(), "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  any             `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
		t.Fatalf("%s: %v %v", method, err, r.Error)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatalf("%s: %s: %v", method, r.Result, err)
	}
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A node whose key is a Clique signer seals blocks without
// --miner-enabled; eth_mining says so, eth_coinbase is the signer, and
// miner_stop and miner_start pause and resume it.
func TestCliqueSignerSealsWithoutMinerEnabled(t *testing.T) {
	n := startCliqueNode(t, true)
	signer := crypto.PubkeyToAddress(chaingen.CliqueSigner().PublicKey)
	head := func() uint64 { return n.Chain().CurrentHeader().Number.Uint64() }
	waitFor(t, 30*time.Second, "two sealed blocks", func() bool { return head() >= 2 })

	var mining bool
	rpcCall(t, n, "eth_mining", &mining)
	var coinbase common.Address
	rpcCall(t, n, "eth_coinbase", &coinbase)
	if !mining || coinbase != signer {
		t.Fatalf("eth_mining %v, eth_coinbase %s", mining, coinbase.Hex())
	}
	if a, err := n.Chain().Engine().Author(n.Chain().CurrentHeader()); err != nil || a != signer {
		t.Fatalf("head signed by %s (%v)", a.Hex(), err)
	}

	var ok bool
	rpcCall(t, n, "miner_stop", &ok)
	rpcCall(t, n, "eth_mining", &mining)
	if mining {
		t.Fatal("eth_mining after miner_stop")
	}
	stopped := head()
	time.Sleep(2500 * time.Millisecond) // more than two periods
	if head() != stopped {
		t.Fatalf("blocks sealed after miner_stop: %d -> %d", stopped, head())
	}
	rpcCall(t, n, "miner_start", &ok)
	waitFor(t, 30*time.Second, "sealing to resume", func() bool { return head() > stopped })
}

// A node whose key is not a signer runs the sealing loop but is not
// mining: eth_mining is false and no block appears.
func TestCliqueNonSignerDoesNotMine(t *testing.T) {
	n := startCliqueNode(t, false)
	var mining bool
	waitFor(t, 10*time.Second, "eth_mining false", func() bool {
		rpcCall(t, n, "eth_mining", &mining)
		return !mining
	})
	var signers []common.Address
	rpcCall(t, n, "clique_getSigners", &signers)
	if len(signers) != 1 || signers[0] != crypto.PubkeyToAddress(chaingen.CliqueSigner().PublicKey) {
		t.Fatalf("clique_getSigners %v", signers)
	}
	if h := n.Chain().CurrentHeader().Number.Uint64(); h != 0 {
		t.Fatalf("a non-signer sealed block %d", h)
	}
}

// admin_nodeInfo shows the clique options under Besu's keys.
func TestCliqueNodeInfoConfig(t *testing.T) {
	g := chaingen.CliqueGenesis(3)
	m := p2p.GenesisConfig(g, false)
	c, ok := m["clique"].(map[string]any)
	if !ok || c["blockPeriodSeconds"] != uint64(3) || c["epochLength"] != uint64(clique.DefaultEpoch) || c["createemptyblocks"] != true {
		t.Fatalf("clique config %v", m["clique"])
	}
	if _, ok := m["ethash"]; ok {
		t.Fatal("ethash options on a clique genesis")
	}
}

// With createemptyblocks false the signer seals no empty block; a
// transaction gets one sealed.
func TestCliqueNoEmptyBlocks(t *testing.T) {
	g := chaingen.CliqueGenesis(1)
	g.Clique.CreateEmptyBlocks = false
	n := startCliqueNodeWith(t, true, g)
	time.Sleep(2500 * time.Millisecond) // more than two periods
	if h := n.Chain().CurrentHeader().Number.Uint64(); h != 0 {
		t.Fatalf("empty block %d sealed", h)
	}
	key := crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[1].PrivateKey))
	to := common.Address{0xee}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(config.DevChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), To: &to, Value: big.NewInt(1), Gas: 21000,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11),
	})
	if err := n.Pool().AddLocal(tx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "a block with the transaction", func() bool { return n.Chain().CurrentHeader().Number.Uint64() == 1 })
	if b := n.Chain().GetBlockByNumber(1); len(b.Transactions()) != 1 {
		t.Fatalf("block 1 has %d transactions", len(b.Transactions()))
	}
}
