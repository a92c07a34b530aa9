package p2p

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/p2p/netutil"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/txpool"
)

var (
	quietLog    = slog.New(slog.NewTextHandler(io.Discard, nil))
	testGenesis = chaingen.Genesis(1)
	testEngine  = chaingen.UnsealedEngine(testGenesis)
)

// testNode is a chain, a pool and a running service.
type testNode struct {
	chain *chain.Chain
	pool  *txpool.Pool
	svc   *Service
	miner *fakeMiner
}

type fakeMiner struct {
	mu     sync.Mutex
	paused []bool
}

func (m *fakeMiner) SetPaused(p bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paused = append(m.paused, p)
}

func (m *fakeMiner) history() []bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]bool(nil), m.paused...)
}

// headState is the pool's view of the head state.
type headState struct {
	mu sync.Mutex
	st *state.StateDB
}

func (h *headState) Nonce(a common.Address) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st.GetNonce(a)
}

func (h *headState) Balance(a common.Address) *uint256.Int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return new(uint256.Int).Set(h.st.GetBalance(a))
}

func startNode(t *testing.T, blocks int) *testNode {
	t.Helper()
	return startNodeWith(t, blocks, nil)
}

// startNodeWith is startNode with the service's Config adjusted by
// configure.
func startNodeWith(t *testing.T, blocks int, configure func(*Config)) *testNode {
	t.Helper()
	c, db, err := chaingen.OpenMemoryWith(testGenesis, testEngine)
	if err != nil {
		t.Fatal(err)
	}
	if blocks > 0 {
		if _, err := chaingen.New(c, chaingen.Options{TxsPerBlock: 1}).ExtendHead(context.Background(), blocks); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.State()
	if err != nil {
		t.Fatal(err)
	}
	cfg := txpool.DefaultConfig()
	cfg.MinGasPrice = big.NewInt(1)
	pool, err := txpool.New(cfg, c.Config(), c.CurrentHeader(), &headState{st: st})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	m := &fakeMiner{}
	scfg := Config{
		PrivateKey:        key,
		Host:              "127.0.0.1",
		Interface:         "127.0.0.1",
		MaxPeers:          10,
		NetworkID:         config.DevChainID,
		Name:              "basalt/test",
		ReconnectInterval: 500 * time.Millisecond,
		RequestTimeout:    2 * time.Second,
	}
	if configure != nil {
		configure(&scfg)
	}
	svc, err := New(scfg, c, pool, m, quietLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Stop()
		pool.Close()
		db.Close()
	})
	return &testNode{chain: c, pool: pool, svc: svc, miner: m}
}

func (n *testNode) enode(t *testing.T) *enode.Node {
	t.Helper()
	e, err := enodeurl.Parse(n.svc.Enode())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSyncAndPropagation(t *testing.T) {
	a := startNode(t, 120)
	b := startNode(t, 0)
	if !b.svc.AddStatic(a.enode(t)) || b.svc.AddStatic(a.enode(t)) {
		t.Fatal("AddStatic: want true, then false")
	}
	waitUntil(t, "b to sync", func() bool { return b.chain.CurrentHash() == a.chain.CurrentHash() })
	if a.svc.PeerCount() != 1 || b.svc.PeerCount() != 1 {
		t.Fatalf("peer counts %d %d", a.svc.PeerCount(), b.svc.PeerCount())
	}
	// 120 blocks behind is synchronising: the miner was paused and resumed.
	waitUntil(t, "the miner to resume", func() bool { return len(b.miner.history()) >= 2 })
	if h := b.miner.history(); len(h) != 2 || !h[0] || h[1] {
		t.Fatalf("miner pauses %v", h)
	}
	if _, _, _, syncing := b.svc.Syncing(); syncing {
		t.Fatal("still syncing after the sync")
	}

	// A new block on a is propagated and imported.
	if _, err := chaingen.New(a.chain, chaingen.Options{TxsPerBlock: 2}).ExtendHead(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "block 121 on b", func() bool { return b.chain.CurrentHash() == a.chain.CurrentHash() })

	// A transaction added to b's pool reaches a's.
	key, _ := crypto.HexToECDSA(config.DevAccounts[0].PrivateKey)
	st, _ := b.chain.State()
	signer := types.LatestSigner(b.chain.Config())
	tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
		ChainID: b.chain.Config().ChainID, Nonce: st.GetNonce(config.DevAccounts[0].Address),
		GasTipCap: big.NewInt(2000), GasFeeCap: big.NewInt(1e12), Gas: 21000, To: &common.Address{1}, Value: big.NewInt(1),
	})
	if err := b.pool.AddLocal(tx); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the tx in a's pool", func() bool { return a.pool.Has(tx.Hash()) })

	// Node and peer descriptions.
	info := b.svc.NodeInfo()
	if info.ListenerPort == 0 || info.ID != enodeurl.ID(b.svc.Self()) || info.Head != b.chain.CurrentHash() {
		t.Fatalf("node info %+v", info)
	}
	peers := b.svc.Peers()
	if len(peers) != 1 || peers[0].ID != enodeurl.ID(a.svc.Self()) || peers[0].EthVersion != 68 || peers[0].Head != a.chain.CurrentHash() {
		t.Fatalf("peers %+v", peers)
	}

	// Removing the static peer disconnects it.
	if !b.svc.RemoveStatic(a.enode(t)) || b.svc.RemoveStatic(a.enode(t)) {
		t.Fatal("RemoveStatic: want true, then false")
	}
	waitUntil(t, "the disconnect", func() bool { return a.svc.PeerCount() == 0 && b.svc.PeerCount() == 0 })
}

// Two nodes that built different branches converge on the heavier one
// when they connect, and the lighter node's branch stays stored.
func TestReorgToHeavierPeer(t *testing.T) {
	a := startNode(t, 0)
	b := startNode(t, 0)
	if _, err := chaingen.New(a.chain, chaingen.Options{TxsPerBlock: 1, Coinbase: common.Address{0xa}}).ExtendHead(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	if _, err := chaingen.New(b.chain, chaingen.Options{TxsPerBlock: 1, Coinbase: common.Address{0xb}}).ExtendHead(context.Background(), 20); err != nil {
		t.Fatal(err)
	}
	lost := b.chain.CurrentHash()
	a.svc.AddStatic(b.enode(t))
	waitUntil(t, "b to reorg", func() bool { return b.chain.CurrentHash() == a.chain.CurrentHash() })
	if !b.chain.HasBlock(lost, 20) {
		t.Fatal("b's own branch is gone")
	}
	// a stays on its branch (b's is lighter).
	if a.chain.CurrentHeader().Number.Uint64() != 30 {
		t.Fatalf("a moved to %d", a.chain.CurrentHeader().Number)
	}
}

// A static node that goes away and comes back (same key and port) is
// redialed.
func TestStaticReconnect(t *testing.T) {
	a := startNode(t, 0)
	b := startNode(t, 0)
	a.svc.AddStatic(b.enode(t))
	waitUntil(t, "the connection", func() bool { return a.svc.PeerCount() == 1 })

	// Restart b's service on the same key and port.
	bEnode := b.enode(t)
	b.svc.Stop()
	waitUntil(t, "the drop", func() bool { return a.svc.PeerCount() == 0 })
	cfg := b.svc.cfg
	cfg.Port = bEnode.TCP()
	svc, err := New(cfg, b.chain, b.pool, nil, quietLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	waitUntil(t, "the reconnect", func() bool { return a.svc.PeerCount() == 1 && svc.PeerCount() == 1 })
}

func TestLoadStaticNodes(t *testing.T) {
	dir := t.TempDir()
	if n, err := LoadStaticNodes(dir + "/missing.json"); err != nil || n != nil {
		t.Fatalf("missing file: %v %v", n, err)
	}
	id := "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`["enode://` + id + `@127.0.0.1:30303"]`, true},
		{`[]`, true},
		{`{"a":1}`, false},
		{`["enode://` + id + `@127.0.0.1:0"]`, false},
		{`["enode://abc@127.0.0.1:30303"]`, false},
	} {
		path := dir + "/static-nodes.json"
		if err := writeFile(path, tc.body); err != nil {
			t.Fatal(err)
		}
		_, err := LoadStaticNodes(path)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.body, err)
		}
	}
}

// With --Xdns-enabled a static node may be named by its host: a name that
// does not resolve yet loads without an address, and a dial resolves the
// name again (a Kubernetes StatefulSet's peers get their names as they
// start).
func TestStaticNodesByHostName(t *testing.T) {
	a := startNode(t, 0)
	b := startNode(t, 0)
	id := fmt.Sprintf("%x", crypto.FromECDSAPub(b.enode(t).Pubkey())[1:])
	path := t.TempDir() + "/static-nodes.json"
	other := "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	body := fmt.Sprintf(`["enode://%s@localhost:%d", "enode://%s@basalt-validator-9.invalid:30303"]`, id, b.enode(t).TCP(), other)
	if err := writeFile(path, body); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadStaticNodes(path); err == nil {
		t.Fatal("host names accepted without --Xdns-enabled")
	}
	nodes, hosts, err := LoadStaticNodesDNS(path)
	if err != nil || len(nodes) != 2 || hosts[nodes[0].ID()] != "localhost" {
		t.Fatalf("nodes %v hosts %v err %v", nodes, hosts, err)
	}
	if nodes[1].IP() != nil || nodes[1].TCP() != 30303 {
		t.Fatalf("unresolved node %v", nodes[1])
	}
	a.svc.cfg.StaticHosts = hosts
	a.svc.AddStatic(nodes[0])
	waitUntil(t, "the connection by host name", func() bool { return a.svc.PeerCount() == 1 && b.svc.PeerCount() == 1 })
}

func TestGenesisConfig(t *testing.T) {
	m := GenesisConfig(config.DevGenesis(), true)
	for _, k := range []string{"chainId", "homesteadBlock", "daoForkBlock", "daoForkSupport", "eip150Block", "eip155Block",
		"eip158Block", "byzantiumBlock", "constantinopleBlock", "constantinopleFixBlock", "ethash"} {
		if _, ok := m[k]; !ok {
			t.Errorf("config lacks %s", k)
		}
	}
	if m["ethash"].(map[string]any)["fixeddifficulty"].(*big.Int).Int64() != 100 {
		t.Errorf("ethash %v", m["ethash"])
	}
	if _, ok := GenesisConfig(config.DevGenesis(), false)["daoForkBlock"]; ok {
		t.Error("daoForkBlock outside the dev network")
	}
}

func writeFile(path, body string) error { return os.WriteFile(path, []byte(body), 0o644) }

// TestBannedAndRestricted: a banned node (--banned-node-ids) and a node
// outside the allowed subnets (--net-restrict) never become peers; a node
// that is neither does.
func TestBannedAndRestricted(t *testing.T) {
	a := startNode(t, 0)
	banning := startNodeWith(t, 0, func(c *Config) { c.Banned = map[enode.ID]bool{a.enode(t).ID(): true} })
	if !banning.svc.AddStatic(a.enode(t)) {
		t.Fatal("AddStatic")
	}
	restricting := startNodeWith(t, 0, func(c *Config) {
		c.NetRestrict, _ = netutil.ParseNetlist("10.0.0.0/8")
	})
	if !restricting.svc.AddStatic(a.enode(t)) {
		t.Fatal("AddStatic")
	}
	allowing := startNodeWith(t, 0, func(c *Config) {
		c.NetRestrict, _ = netutil.ParseNetlist("127.0.0.0/8")
		c.Banned = map[enode.ID]bool{{1}: true}
	})
	allowing.svc.AddStatic(a.enode(t))
	waitUntil(t, "the allowed node's peer", func() bool { return allowing.svc.PeerCount() == 1 })
	// The others had the same time and a few redials (every 500 ms).
	time.Sleep(1500 * time.Millisecond)
	if n := banning.svc.PeerCount(); n != 0 {
		t.Errorf("the banned node is a peer (%d)", n)
	}
	if n := restricting.svc.PeerCount(); n != 0 {
		t.Errorf("the node outside --net-restrict is a peer (%d)", n)
	}
}
