package fault

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// Ports of every node, each in its own namespace.
const (
	rpcPort     = 8545
	p2pPort     = 30303
	metricsPort = 9545
)

// Config is the network NewNetwork starts.
type Config struct {
	// Engine is "qbft" or "ibft2".
	Engine string
	// Validators is the number of validators (4 or 7 in the scenarios).
	Validators int
	// BlockPeriod and RequestTimeout are the genesis options, in seconds.
	BlockPeriod, RequestTimeout int
}

// Network is a BFT network of real basalt validators, each in its own
// namespace of a Fabric, every peer-to-peer connection through Links.
type Network struct {
	*Fabric
	Links *Links
	Cfg   Config
	// Genesis is the genesis file; Validators the validators, ascending
	// (the order of proposer selection).
	Genesis    string
	Validators []common.Address
	Nodes      []*Node
	t          testing.TB
}

// Node is one validator of a Network.
type Node struct {
	// P2PNode answers the JSON-RPC helpers (BlockNumber, BlockHash, ...);
	// it is replaced at each start.
	*testnode.P2PNode
	Index   int
	Addr    common.Address
	ID      string // node public key, hex: the enode ID
	Key     string // key.priv path
	DataDir string
	net     *Network
	running atomic.Bool
}

// NewNetwork generates the keys and genesis of cfg's network (`basalt
// operator generate-blockchain-config`), builds its fabric and links and
// starts every validator.
func NewNetwork(t testing.TB, cfg Config) *Network {
	t.Helper()
	Require(t)
	engine := fmt.Sprintf(`%q: {"blockperiodseconds": %d, "epochlength": 30000, "requesttimeoutseconds": %d}`,
		cfg.Engine, cfg.BlockPeriod, cfg.RequestTimeout)
	gen := bftnet.Generate(t, cfg.Validators, bftnet.OperatorConfig(cfg.Validators, engine, ""))
	n := &Network{Cfg: cfg, Genesis: gen.Genesis, Validators: append([]common.Address(nil), gen.Addrs...), t: t}
	bft.SortValidators(n.Validators)
	n.Fabric = NewFabric(t, cfg.Validators)
	n.Links = NewLinks(t, n.Fabric, p2pPort)
	for i, key := range gen.Keys {
		pub, err := os.ReadFile(filepath.Join(filepath.Dir(key), "key.pub"))
		if err != nil {
			t.Fatal(err)
		}
		n.Nodes = append(n.Nodes, &Node{Index: i, Addr: gen.Addrs[i], Key: key, DataDir: t.TempDir(), net: n,
			ID: strings.TrimPrefix(strings.TrimSpace(string(pub)), "0x")})
	}
	for _, node := range n.Nodes {
		var peers []string
		for _, o := range n.Nodes {
			if o != node {
				peers = append(peers, fmt.Sprintf("enode://%s@%s", o.ID, n.Links.Addr(node.Index, o.Index)))
			}
		}
		testnode.WriteStaticNodes(t, node.DataDir, peers...)
	}
	for _, node := range n.Nodes {
		node.Start()
	}
	return n
}

// Start starts the node's process on its data, key and static nodes, with
// extra options (a clock offset), and waits until JSON-RPC answers.
func (n *Node) Start(extra ...string) {
	t := n.net.t
	t.Helper()
	f := n.net.Fabric
	api := "ETH,NET,WEB3,ADMIN,TXPOOL," + map[string]string{"qbft": "QBFT", "ibft2": "IBFT"}[n.net.Cfg.Engine]
	args := append([]string{
		"--data-path=" + n.DataDir,
		"--genesis-file=" + n.net.Genesis,
		"--node-private-key-file=" + n.Key,
		"--rpc-http-enabled", "--rpc-http-host=" + f.NodeIP(n.Index), "--rpc-http-port=" + strconv.Itoa(rpcPort),
		"--rpc-http-api=" + api, "--host-allowlist=*",
		"--p2p-enabled", "--p2p-host=" + f.NodeIP(n.Index), "--p2p-interface=" + f.NodeIP(n.Index),
		"--p2p-port=" + strconv.Itoa(p2pPort), "--discovery-enabled=false",
		// The consensus round and round changes, read by Metric.
		"--metrics-enabled", "--metrics-host=" + f.NodeIP(n.Index), "--metrics-port=" + strconv.Itoa(metricsPort),
		// Redial a dropped peer at once, not after Besu's 60 s.
		"--Xp2p-static-reconnect-seconds=1",
	}, extra...)
	cmd := f.Command(n.Index, testnode.Binary(t), args...)
	node := testnode.StartCommand(t, cmd, fmt.Sprintf("http://%s:%d", f.NodeIP(n.Index), rpcPort))
	node.DataDir = n.DataDir
	n.P2PNode = &testnode.P2PNode{Node: node, P2PPort: p2pPort}
	n.running.Store(true)
}

// Stop stops the process with sig (SIGKILL: a crash) and waits for it.
func (n *Node) Stop(sig syscall.Signal) {
	n.net.t.Helper()
	n.running.Store(false)
	n.P2PNode.Stop(sig)
}

// Kill is Stop(SIGKILL).
func (n *Node) Kill() { n.net.t.Helper(); n.Stop(syscall.SIGKILL) }

// Running reports whether the node's process was started and not stopped.
func (n *Node) Running() bool { return n.running.Load() }

// Coinbase is the coinbase (in BFT, the proposer) of block number.
func (n *Node) Coinbase(number uint64) common.Address {
	n.net.t.Helper()
	var b struct {
		Miner common.Address `json:"miner"`
	}
	n.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	return b.Miner
}

// Metric is the value of the Prometheus sample name (a gauge or counter
// without labels, e.g. besu_consensus_qbft_round) on the node's metrics
// endpoint.
func (n *Node) Metric(name string) (float64, error) {
	resp, err := metricsClient.Get(fmt.Sprintf("http://%s:%d/metrics", n.net.NodeIP(n.Index), metricsPort))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("no sample %s", name)
}

var metricsClient = &http.Client{Timeout: 5 * time.Second}

// Round is the round the node is deciding its next block in (0 unless
// the proposer was late or cut off).
func (n *Node) Round() int {
	n.net.t.Helper()
	v, err := n.Metric("besu_consensus_" + n.net.Cfg.Engine + "_round")
	if err != nil {
		n.net.t.Fatalf("node %d round: %v", n.Index, err)
	}
	return int(v)
}

// RoundChanges is the number of round changes the node made since it
// started.
func (n *Node) RoundChanges() int {
	n.net.t.Helper()
	v, err := n.Metric("besu_consensus_" + n.net.Cfg.Engine + "_round_changes_total")
	if err != nil {
		n.net.t.Fatalf("node %d round changes: %v", n.Index, err)
	}
	return int(v)
}

// Running lists the running nodes.
func (n *Network) Running() []*Node {
	var out []*Node
	for _, node := range n.Nodes {
		if node.Running() {
			out = append(out, node)
		}
	}
	return out
}

// Head is the highest head among nodes.
func Head(nodes []*Node) uint64 {
	var top uint64
	for _, n := range nodes {
		top = max(top, n.BlockNumber())
	}
	return top
}

// WaitHeight waits until every one of nodes reached height.
func WaitHeight(t testing.TB, timeout time.Duration, height uint64, nodes ...*Node) {
	t.Helper()
	testnode.WaitFor(t, timeout, fmt.Sprintf("height %d on %d nodes", height, len(nodes)), func() bool {
		for _, n := range nodes {
			if n.BlockNumber() < height {
				return false
			}
		}
		return true
	})
}

// Progress waits until every one of nodes passed the highest head among
// them by blocks.
func Progress(t testing.TB, timeout time.Duration, blocks uint64, nodes ...*Node) {
	t.Helper()
	WaitHeight(t, timeout, Head(nodes)+blocks, nodes...)
}

// Halted checks that nodes make at most one block over span: a network
// without a quorum must not produce (one block may have been committed
// before the fault took hold).
func Halted(t testing.TB, span time.Duration, nodes ...*Node) {
	t.Helper()
	before := Head(nodes)
	time.Sleep(span)
	if after := Head(nodes); after > before+1 {
		t.Fatalf("%d nodes without a quorum went from block %d to %d", len(nodes), before, after)
	}
}

// NextProposer waits for node's next block and returns it (head) and the
// index of the validator that proposes round 0 of the block after it.
// Called just as a block is in, the caller has about a block period before
// that proposal goes out.
func (n *Network) NextProposer(node *Node) (proposer int, head uint64) {
	n.t.Helper()
	from := node.BlockNumber()
	proctest.WaitFor(n.t, time.Minute, 10*time.Millisecond, "a new block", func() bool {
		head = node.BlockNumber()
		return head > from
	})
	return n.Proposer(node, head, 0), head
}

// Proposer is the index of the validator that proposes round of the block
// after parent (read from node).
func (n *Network) Proposer(node *Node, parent uint64, round uint32) int {
	n.t.Helper()
	return n.IndexOf(bft.Proposer(n.Validators, node.Coinbase(parent), round))
}

// IndexOf is the index of the node whose address is addr, -1 if none.
func (n *Network) IndexOf(addr common.Address) int {
	for _, node := range n.Nodes {
		if node.Addr == addr {
			return node.Index
		}
	}
	return -1
}

// SameChain checks every one of nodes has the same block hash at every
// height from from up to the lowest head among them, which it returns.
func SameChain(t testing.TB, from uint64, nodes ...*Node) uint64 {
	t.Helper()
	low := nodes[0].BlockNumber()
	for _, n := range nodes[1:] {
		low = min(low, n.BlockNumber())
	}
	for h := from; h <= low; h++ {
		want := nodes[0].BlockHash(h)
		for _, n := range nodes[1:] {
			if got := n.BlockHash(h); got != want {
				t.Fatalf("fork at height %d: node %d has %s, node %d %s", h, n.Index, got, nodes[0].Index, want)
			}
		}
	}
	return low
}

// blockTxs is the transaction hashes of block number.
func (n *Node) blockTxs(number uint64) []common.Hash {
	n.net.t.Helper()
	var b struct {
		Transactions []common.Hash `json:"transactions"`
	}
	n.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	return b.Transactions
}

// Ledger counts how often each transaction hash appears on the canonical
// chain of one node, block by block as the chain grows.
type Ledger struct {
	counts  map[common.Hash]int
	scanned uint64 // highest block counted
}

// NewLedger is an empty ledger (blocks from 1 on).
func NewLedger() *Ledger { return &Ledger{counts: map[common.Hash]int{}} }

// Scan counts the transactions of node's blocks up to height (BFT blocks
// are final: a counted block is never replaced).
func (l *Ledger) Scan(node *Node, height uint64) {
	for h := l.scanned + 1; h <= height; h++ {
		for _, tx := range node.blockTxs(h) {
			l.counts[tx]++
		}
		l.scanned = h
	}
}

// Count is how many times tx was mined in the scanned blocks.
func (l *Ledger) Count(tx common.Hash) int { return l.counts[tx] }

// Duplicates lists the transactions mined more than once.
func (l *Ledger) Duplicates() []common.Hash {
	var out []common.Hash
	for h, c := range l.counts {
		if c > 1 {
			out = append(out, h)
		}
	}
	return out
}
