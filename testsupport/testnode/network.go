package testnode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// P2PNode is a basalt process with peer-to-peer networking on, listening
// on loopback on a port of its own that survives restarts.
type P2PNode struct {
	*Node
	// P2PPort is the devp2p TCP (and UDP) port.
	P2PPort int
	args    []string
	with    services
}

// p2pDefaults are the options StartP2P adds before the caller's (which win):
// networking on loopback, discovery off (tests connect nodes explicitly;
// pass --discovery-enabled to test it), ADMIN and MINER methods over HTTP.
func p2pDefaults(port int) []string {
	return []string{
		"--p2p-enabled",
		"--p2p-host=127.0.0.1",
		"--p2p-interface=127.0.0.1",
		"--p2p-port=" + strconv.Itoa(port),
		"--discovery-enabled=false",
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,MINER",
	}
}

// StartP2P runs a node like Start, with peer-to-peer networking on a free
// port. args come after the defaults, so they override them.
func StartP2P(t testing.TB, dataDir string, args ...string) *P2PNode {
	t.Helper()
	return startP2P(t, dataDir, services{}, args)
}

// StartP2PGraphQL is StartP2P with the GraphQL service on as well
// (GraphQLURL is its endpoint).
func StartP2PGraphQL(t testing.TB, dataDir string, args ...string) *P2PNode {
	t.Helper()
	return startP2P(t, dataDir, services{graphql: true}, args)
}

// StartP2PBinary is StartP2P running the basalt binary at bin instead of
// the module's own: another release, for upgrade tests. Its flags must be
// ones that binary knows (StartP2P's defaults are).
func StartP2PBinary(t testing.TB, bin, dataDir string, args ...string) *P2PNode {
	t.Helper()
	return startP2P(t, dataDir, services{bin: bin}, args)
}

func startP2P(t testing.TB, dataDir string, with services, args []string) *P2PNode {
	t.Helper()
	port := FreePort(t)
	full := append(p2pDefaults(port), args...)
	return &P2PNode{Node: start(t, dataDir, with, full), P2PPort: port, args: full, with: with}
}

// Restart stops the process (SIGTERM) and starts it again on the same data
// path, key and p2p port, with the same services (on new ports).
func (n *P2PNode) Restart() {
	n.t.Helper()
	n.RestartAfter(syscall.SIGTERM)
}

// RestartAfter stops the process with sig (SIGKILL: a crash) and starts
// it again like Restart.
func (n *P2PNode) RestartAfter(sig syscall.Signal) {
	n.t.Helper()
	n.Stop(sig)
	n.Node = start(n.t, n.DataDir, n.with, n.args)
}

// RestartBinary stops the process (SIGTERM) and starts the basalt binary
// at bin ("" for the module's own) on the same data path, key, p2p port
// and options: one step of a rolling upgrade (or downgrade).
func (n *P2PNode) RestartBinary(bin string) {
	n.t.Helper()
	n.Stop(syscall.SIGTERM)
	n.with.bin = bin
	n.Node = start(n.t, n.DataDir, n.with, n.args)
}

// Enode is the node's enode URL (net_enode).
func (n *P2PNode) Enode() string {
	n.t.Helper()
	var url string
	n.MustCall(&url, "net_enode")
	return url
}

// AddPeer asks the node to connect to other (admin_addPeer) and returns
// the method's answer.
func (n *P2PNode) AddPeer(other *P2PNode) bool {
	n.t.Helper()
	var added bool
	n.MustCall(&added, "admin_addPeer", other.Enode())
	return added
}

// PeerCount is net_peerCount.
func (n *P2PNode) PeerCount() int {
	n.t.Helper()
	var c hexutil.Uint64
	n.MustCall(&c, "net_peerCount")
	return int(c)
}

// BlockNumber is eth_blockNumber.
func (n *P2PNode) BlockNumber() uint64 {
	n.t.Helper()
	var b hexutil.Uint64
	n.MustCall(&b, "eth_blockNumber")
	return uint64(b)
}

// BlockHash returns the hash of the canonical block at number ("" if none).
func (n *P2PNode) BlockHash(number uint64) string {
	n.t.Helper()
	var b *struct {
		Hash string `json:"hash"`
	}
	n.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	if b == nil {
		return ""
	}
	return b.Hash
}

// WaitPeers waits until the node has want peers.
func (n *P2PNode) WaitPeers(want int, timeout time.Duration) {
	n.t.Helper()
	WaitFor(n.t, timeout, strconv.Itoa(want)+" peers", func() bool { return n.PeerCount() == want })
}

// WriteStaticNodes writes <dataDir>/static-nodes.json with the given enode
// URLs (before the node starts).
func WriteStaticNodes(t testing.TB, dataDir string, enodes ...string) {
	t.Helper()
	if enodes == nil {
		enodes = []string{}
	}
	data, _ := json.Marshal(enodes)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "static-nodes.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// StartNetwork starts count nodes, args(i) giving the extra options of node
// i (nil for none), connects every pair with admin_addPeer and waits until
// each node has all the others as peers.
func StartNetwork(t testing.TB, count int, args func(i int) []string) []*P2PNode {
	t.Helper()
	nodes := make([]*P2PNode, count)
	for i := range nodes {
		var extra []string
		if args != nil {
			extra = args(i)
		}
		nodes[i] = StartP2P(t, t.TempDir(), extra...)
	}
	Connect(t, nodes...)
	return nodes
}

// Connect links every pair of nodes (the later one dials the earlier) and
// waits until each has the others as peers.
func Connect(t testing.TB, nodes ...*P2PNode) {
	t.Helper()
	for i := range nodes {
		for j := range i {
			nodes[i].AddPeer(nodes[j])
		}
	}
	for _, n := range nodes {
		n.WaitPeers(len(nodes)-1, 30*time.Second)
	}
}
