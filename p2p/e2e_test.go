package p2p_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/p2p/eth"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

var (
	coinbase  = "--miner-coinbase=" + config.DevAccounts[0].Address.Hex()
	devSigner = types.LatestSignerForChainID(big.NewInt(config.DevChainID))
)

func devKey(i int) *ecdsa.PrivateKey {
	return crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[i].PrivateKey))
}

// transfer sends a transfer from dev account i (nonce given) through node n.
func transfer(t *testing.T, n *testnode.P2PNode, i int, nonce uint64) common.Hash {
	t.Helper()
	to := common.Address{0xbe, 0xef}
	tx := types.MustSignNewTx(devKey(i), devSigner, &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: nonce, To: &to, Value: big.NewInt(1),
		Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e10),
	})
	raw, _ := tx.MarshalBinary()
	var h common.Hash
	n.MustCall(&h, "eth_sendRawTransaction", hexutil.Bytes(raw))
	return h
}

type receipt struct {
	BlockHash   common.Hash    `json:"blockHash"`
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	Status      hexutil.Uint64 `json:"status"`
}

// receiptOf returns the receipt of tx on n, nil if not mined.
func receiptOf(t *testing.T, n *testnode.P2PNode, tx common.Hash) *receipt {
	t.Helper()
	var r *receipt
	n.MustCall(&r, "eth_getTransactionReceipt", tx)
	return r
}

func waitReceipt(t *testing.T, n *testnode.P2PNode, tx common.Hash, timeout time.Duration) *receipt {
	t.Helper()
	var r *receipt
	testnode.WaitFor(t, timeout, "receipt of "+tx.Hex(), func() bool {
		r = receiptOf(t, n, tx)
		return r != nil
	})
	return r
}

// sameHead reports whether the nodes agree on the block at the lowest of
// their heads (and have at least min blocks).
func sameHead(t *testing.T, min uint64, nodes ...*testnode.P2PNode) bool {
	t.Helper()
	low := nodes[0].BlockNumber()
	for _, n := range nodes[1:] {
		low = minU(low, n.BlockNumber())
	}
	if low < min {
		return false
	}
	want := nodes[0].BlockHash(low)
	for _, n := range nodes[1:] {
		if n.BlockHash(low) != want {
			return false
		}
	}
	return true
}

func minU(a, b uint64) uint64 {
	if a < b {
		return a
	}
	return b
}

// Three nodes on the dev chain: one mines; one knows it from
// static-nodes.json, the other finds it through discovery from
// --bootnodes. A transaction sent to a node that does not mine (and is not
// connected to the other non-miner) is relayed, mined and visible on all
// three.
func TestThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three nodes")
	}
	miner := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--miner-enabled", coinbase, "--discovery-enabled")
	staticDir := t.TempDir()
	testnode.WriteStaticNodes(t, staticDir, miner.Enode())
	viaStatic := testnode.StartP2P(t, staticDir, "--network=dev")
	viaDiscovery := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--discovery-enabled", "--bootnodes="+miner.Enode())
	miner.WaitPeers(2, 60*time.Second)

	testnode.WaitFor(t, 60*time.Second, "the three nodes on one chain of 3 blocks", func() bool {
		return sameHead(t, 3, miner, viaStatic, viaDiscovery)
	})
	tx := transfer(t, viaDiscovery, 1, 0)
	r := waitReceipt(t, viaDiscovery, tx, 60*time.Second)
	if r.Status != 1 {
		t.Fatalf("receipt %+v", r)
	}
	for _, n := range []*testnode.P2PNode{miner, viaStatic} {
		got := waitReceipt(t, n, tx, 30*time.Second)
		if got.BlockHash != r.BlockHash {
			t.Fatalf("tx in block %s on one node, %s on another", r.BlockHash.Hex(), got.BlockHash.Hex())
		}
	}
	var syncing bool
	viaStatic.MustCall(&syncing, "eth_syncing")
	var listening bool
	viaStatic.MustCall(&listening, "net_listening")
	if syncing || !listening {
		t.Fatalf("eth_syncing %v, net_listening %v", syncing, listening)
	}
}

// generated is a chain of transfers with a genesis whose fixed difficulty
// is 1 (sealing is one hash, so it generates fast), shared by the tests
// and the benchmark of one test binary.
var (
	genMu    sync.Mutex
	genDir   string // removed by TestMain
	genFiles = map[[2]int]*chaingen.Files{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if genDir != "" {
		os.RemoveAll(genDir)
	}
	os.Exit(code)
}

func generated(t testing.TB, blocks, txs int) *chaingen.Files {
	t.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	key := [2]int{blocks, txs}
	if f := genFiles[key]; f != nil {
		return f
	}
	if genDir == "" {
		dir, err := os.MkdirTemp("", "basalt-p2p-chains-")
		if err != nil {
			t.Fatal(err)
		}
		genDir = dir
	}
	dir, err := os.MkdirTemp(genDir, "chain-")
	if err != nil {
		t.Fatal(err)
	}
	f, err := chaingen.WriteFiles(context.Background(), dir, chaingen.Genesis(1), blocks, txs)
	if err != nil {
		t.Fatal(err)
	}
	genFiles[key] = f
	return f
}

// importBlocks runs `basalt blocks import` into dir and returns how long
// the process took.
func importBlocks(t testing.TB, f *chaingen.Files, dir string) time.Duration {
	t.Helper()
	start := time.Now()
	out, err := exec.Command(testnode.Binary(t), "--data-path="+dir, "--genesis-file="+f.Genesis,
		"blocks", "import", "--no-progress", "--from="+f.Blocks).CombinedOutput()
	if err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
	return time.Since(start)
}

type syncing struct {
	StartingBlock hexutil.Uint64 `json:"startingBlock"`
	CurrentBlock  hexutil.Uint64 `json:"currentBlock"`
	HighestBlock  hexutil.Uint64 `json:"highestBlock"`
}

// A node started after 200 blocks exist catches up, and eth_syncing shows
// its progress on the way.
func TestLateJoinerCatchesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two nodes")
	}
	f := generated(t, 200, 40)
	dir := t.TempDir()
	importBlocks(t, f, dir)
	source := testnode.StartP2P(t, dir, "--genesis-file="+f.Genesis)
	if source.BlockNumber() != 200 {
		t.Fatalf("source at block %d", source.BlockNumber())
	}
	joiner := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+f.Genesis)
	var before json.RawMessage
	joiner.MustCall(&before, "eth_syncing")
	if string(before) != "false" {
		t.Fatalf("eth_syncing before any peer: %s", before)
	}

	// Watch eth_syncing while the joiner catches up.
	var (
		seen []syncing
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			res, err := joiner.Call("eth_syncing")
			if err != nil {
				continue
			}
			var s syncing
			if json.Unmarshal(res, &s) == nil && s.HighestBlock != 0 {
				seen = append(seen, s)
			} else if len(seen) > 0 {
				return // back to false after a sync
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	joiner.AddPeer(source)
	<-done
	testnode.WaitFor(t, 30*time.Second, "the joiner at block 200", func() bool { return joiner.BlockNumber() == 200 })
	if joiner.BlockHash(200) != source.BlockHash(200) || joiner.BlockHash(200) != f.Head.Hex() {
		t.Fatalf("joiner head %s, want %s", joiner.BlockHash(200), f.Head.Hex())
	}
	if len(seen) == 0 {
		t.Fatal("eth_syncing never reported progress")
	}
	first, last := seen[0], seen[len(seen)-1]
	if first.StartingBlock != 0 || first.HighestBlock != 200 || last.CurrentBlock < first.CurrentBlock || last.CurrentBlock > 200 {
		t.Fatalf("progress %+v ... %+v", first, last)
	}
	t.Logf("eth_syncing answered %d times during the sync: first %+v, last %+v", len(seen), first, last)
	var after json.RawMessage
	joiner.MustCall(&after, "eth_syncing")
	if string(after) != "false" {
		t.Fatalf("eth_syncing after the sync: %s", after)
	}
}

// Two miners that mined apart converge on one chain when connected: the
// lighter one reorganises onto the heavier, and the transactions of its
// discarded blocks go back to its pool, to be mined again.
func TestTwoMinersConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two mining nodes")
	}
	heavy := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--miner-enabled", coinbase)
	testnode.WaitFor(t, 60*time.Second, "the first miner's head start", func() bool { return heavy.BlockNumber() >= 4 })
	light := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--miner-enabled",
		"--miner-coinbase="+config.DevAccounts[1].Address.Hex())

	// A transaction mined on the light miner's own chain.
	tx := transfer(t, light, 2, 0)
	orphaned := waitReceipt(t, light, tx, 60*time.Second)
	testnode.WaitFor(t, 60*time.Second, "the first miner 4 blocks ahead", func() bool {
		return heavy.BlockNumber() >= light.BlockNumber()+4
	})

	light.AddPeer(heavy)
	testnode.WaitFor(t, 90*time.Second, "one chain", func() bool { return sameHead(t, 0, heavy, light) && light.BlockNumber() > 4 })
	// The light miner's block with the transaction is gone from the
	// canonical chain; the transaction is mined again, the same on both.
	var final *receipt
	testnode.WaitFor(t, 90*time.Second, "the reorged transaction mined again on both", func() bool {
		a, b := receiptOf(t, heavy, tx), receiptOf(t, light, tx)
		if a == nil || b == nil || a.BlockHash != b.BlockHash || a.BlockHash == orphaned.BlockHash {
			return false
		}
		final = a
		return true
	})
	if light.BlockHash(uint64(orphaned.BlockNumber)) == orphaned.BlockHash.Hex() {
		t.Fatal("the light miner's block is still canonical")
	}
	t.Logf("tx first in block %d %s, after the reorg in block %d %s",
		orphaned.BlockNumber, orphaned.BlockHash.Hex(), final.BlockNumber, final.BlockHash.Hex())
}

// rpcCode returns the JSON-RPC error code and message of method.
func rpcError(t *testing.T, n *testnode.P2PNode, method string, params ...any) (int, string) {
	t.Helper()
	_, err := n.Call(method, params...)
	var e *testnode.RPCError
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v, want an error", method, err)
	}
	return e.Code, e.Message
}

func TestAdminPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nodes")
	}
	a := testnode.StartP2P(t, t.TempDir(), "--network=dev")
	b := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--Xp2p-static-reconnect-seconds=1")
	aEnode := a.Enode()
	aID := strings.TrimPrefix(strings.Split(aEnode, "@")[0], "enode://")

	if !b.AddPeer(a) || b.AddPeer(a) {
		t.Fatal("admin_addPeer: want true, then false")
	}
	b.WaitPeers(1, 30*time.Second)
	a.WaitPeers(1, 30*time.Second)

	var peers []struct {
		Version   string   `json:"version"`
		Name      string   `json:"name"`
		Caps      []string `json:"caps"`
		Network   struct{ LocalAddress, RemoteAddress string }
		Port      string `json:"port"`
		ID        string `json:"id"`
		Protocols struct {
			Eth struct {
				Difficulty string `json:"difficulty"`
				Head       string `json:"head"`
				Version    int    `json:"version"`
			} `json:"eth"`
		} `json:"protocols"`
		Enode string `json:"enode"`
	}
	b.MustCall(&peers, "admin_peers")
	if len(peers) != 1 || peers[0].ID != "0x"+aID || peers[0].Version != "0x5" || peers[0].Protocols.Eth.Version != 68 ||
		!strings.HasPrefix(peers[0].Name, "basalt/") || peers[0].Network.RemoteAddress != "127.0.0.1:"+itoa(a.P2PPort) ||
		peers[0].Port != hexutil.EncodeUint64(uint64(a.P2PPort)) || peers[0].Enode != aEnode {
		t.Fatalf("admin_peers %+v", peers)
	}

	var info struct {
		Enode      string `json:"enode"`
		ID         string `json:"id"`
		ListenAddr string `json:"listenAddr"`
		Name       string `json:"name"`
		Ports      struct {
			Discovery int `json:"discovery"`
			Listener  int `json:"listener"`
		} `json:"ports"`
		Protocols struct {
			Eth struct {
				Config     map[string]any `json:"config"`
				Difficulty *big.Int       `json:"difficulty"`
				Genesis    string         `json:"genesis"`
				Head       string         `json:"head"`
				Network    uint64         `json:"network"`
			} `json:"eth"`
		} `json:"protocols"`
	}
	a.MustCall(&info, "admin_nodeInfo")
	cfg := info.Protocols.Eth.Config
	if info.Enode != aEnode || info.ID != aID || info.ListenAddr != "127.0.0.1:"+itoa(a.P2PPort) ||
		info.Ports.Listener != a.P2PPort || info.Protocols.Eth.Network != config.DevChainID ||
		info.Protocols.Eth.Genesis != a.BlockHash(0) || cfg["chainId"] != float64(config.DevChainID) ||
		cfg["ethash"].(map[string]any)["fixeddifficulty"] != float64(100) || cfg["constantinopleFixBlock"] != float64(0) {
		t.Fatalf("admin_nodeInfo %+v", info)
	}

	// Besu's errors for bad enode URLs and the node itself.
	for _, tc := range []struct {
		url  string
		code int
	}{
		{"enode://" + aID[:100] + "@127.0.0.1:30303", -32000},
		{"enode://" + aID + "@localhost:30303", -32100},
		{"not an enode", -32700},
		{b.Enode(), -32100},
	} {
		if code, msg := rpcError(t, b, "admin_addPeer", tc.url); code != tc.code {
			t.Errorf("admin_addPeer(%s): %d %s, want %d", tc.url, code, msg, tc.code)
		}
	}
	if _, msg := rpcError(t, b, "admin_addPeer", b.Enode()); msg != "Cannot add local node as peer." {
		t.Errorf("adding itself: %q", msg)
	}

	// The static peer restarts: b reconnects (within its 1-second interval).
	a.Restart()
	testnode.WaitFor(t, 30*time.Second, "the reconnect", func() bool { return b.PeerCount() == 1 && a.PeerCount() == 1 })

	var removed bool
	b.MustCall(&removed, "admin_removePeer", aEnode)
	if !removed {
		t.Fatal("admin_removePeer: false")
	}
	b.WaitPeers(0, 30*time.Second)
	b.MustCall(&removed, "admin_removePeer", aEnode)
	if removed {
		t.Fatal("admin_removePeer of a non-static node: true")
	}
	// Not static any more: no reconnect.
	time.Sleep(2 * time.Second)
	if b.PeerCount() != 0 {
		t.Fatal("reconnected to a removed peer")
	}
}

// With --p2p-enabled=false the network methods answer as Besu's do.
func TestP2PDisabled(t *testing.T) {
	n := &testnode.P2PNode{Node: testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,NET,ADMIN")}
	id := enodeurl.ID(enodeNode(t))
	for _, m := range []struct {
		method string
		params []any
	}{
		{"admin_nodeInfo", nil},
		{"admin_peers", nil},
		{"admin_addPeer", []any{"enode://" + id + "@127.0.0.1:30303"}},
		{"admin_removePeer", []any{"enode://" + id + "@127.0.0.1:30303"}},
		{"net_peerCount", nil},
		{"net_enode", nil},
	} {
		code, msg := rpcError(t, n, m.method, m.params...)
		if code != -32000 || msg != "P2P has been disabled. This functionality is not available" {
			t.Errorf("%s: %d %s", m.method, code, msg)
		}
	}
	var listening bool
	n.MustCall(&listening, "net_listening")
	var services map[string]any
	n.MustCall(&services, "net_services")
	if listening || services["p2p"] != nil {
		t.Fatalf("net_listening %v, net_services %v", listening, services)
	}
}

// rawPeer is a devp2p node run by the test that speaks eth/68 and sends
// whatever it is told to.
type rawPeer struct {
	srv  *gethp2p.Server
	send chan gethp2p.Msg
	errc chan error
}

func startRawPeer(t *testing.T, target *testnode.P2PNode) *rawPeer {
	t.Helper()
	var info struct {
		Protocols struct {
			Eth struct {
				Genesis common.Hash `json:"genesis"`
			} `json:"eth"`
		} `json:"protocols"`
	}
	target.MustCall(&info, "admin_nodeInfo")
	g := config.DevGenesis()
	genesis := g.Core.ToBlock()
	status := &eth.Status{
		ProtocolVersion: eth.ETH68, NetworkID: config.DevChainID, TD: genesis.Difficulty(),
		Head: info.Protocols.Eth.Genesis, Genesis: info.Protocols.Eth.Genesis,
		ForkID: forkid.NewID(g.Core.Config, genesis, 0, 0),
	}
	key, _ := crypto.GenerateKey()
	rp := &rawPeer{send: make(chan gethp2p.Msg, 1), errc: make(chan error, 1)}
	rp.srv = &gethp2p.Server{Config: gethp2p.Config{
		PrivateKey: key, MaxPeers: 1, NoDiscovery: true, ListenAddr: "127.0.0.1:0",
		Protocols: []gethp2p.Protocol{{Name: "eth", Version: eth.ETH68, Length: eth.ProtocolLength(eth.ETH68),
			Run: func(p *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
				if err := gethp2p.Send(rw, eth.StatusMsg, status); err != nil {
					return err
				}
				// Read (and drop) what the node sends; the first error is the
				// disconnect.
				go func() {
					for {
						msg, err := rw.ReadMsg()
						if err != nil {
							rp.errc <- err
							return
						}
						msg.Discard()
					}
				}()
				msg := <-rp.send
				return rw.WriteMsg(msg)
			}}},
	}}
	if err := rp.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rp.srv.Stop)
	node, err := enodeurl.Parse(target.Enode())
	if err != nil {
		t.Fatal(err)
	}
	rp.srv.AddPeer(node)
	return rp
}

// Malformed RLP and oversize messages from a peer disconnect that peer
// only: the node keeps its other peer and keeps serving it blocks.
func TestBadPeerDisconnected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nodes")
	}
	nodes := testnode.StartNetwork(t, 2, func(i int) []string {
		if i == 0 {
			return []string{"--network=dev", "--miner-enabled", coinbase}
		}
		return []string{"--network=dev"}
	})
	miner, follower := nodes[0], nodes[1]
	for _, tc := range []struct {
		name string
		msg  gethp2p.Msg
	}{
		{"malformed RLP", gethp2p.Msg{Code: eth.TransactionsMsg, Size: 2, Payload: bytes.NewReader([]byte{0xc5, 0x01})}},
		{"block that is not a block", gethp2p.Msg{Code: eth.NewBlockMsg, Size: 3, Payload: bytes.NewReader([]byte{0xc2, 0x01, 0x02})}},
		{"oversize", gethp2p.Msg{Code: eth.TransactionsMsg, Size: eth.MaxMessageSize + 1024, Payload: bytes.NewReader(make([]byte, eth.MaxMessageSize+1024))}},
	} {
		rp := startRawPeer(t, miner)
		miner.WaitPeers(2, 30*time.Second)
		rp.send <- tc.msg
		select {
		case err := <-rp.errc:
			t.Logf("%s: raw peer disconnected: %v", tc.name, err)
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the node did not disconnect the raw peer", tc.name)
		}
		miner.WaitPeers(1, 30*time.Second)
		if follower.PeerCount() != 1 {
			t.Fatalf("%s: the good peer was dropped too", tc.name)
		}
	}
	// The good peer still follows the miner.
	height := miner.BlockNumber()
	testnode.WaitFor(t, 60*time.Second, "the follower past the miner's height", func() bool {
		return follower.BlockNumber() > height && sameHead(t, height+1, miner, follower)
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// enodeNode is some valid node (the key of the first dev account).
func enodeNode(t *testing.T) *enode.Node {
	t.Helper()
	return enode.NewV4(&devKey(0).PublicKey, net.IPv4(127, 0, 0, 1), 30303, 30303)
}
