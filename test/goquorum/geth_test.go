package goquorum

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// gethNode is a GoQuorum validator: its own data directory initialised
// from the shared genesis, its node key (which GoQuorum also uses as the
// validator key), and fixed loopback ports that survive restarts.
type gethNode struct {
	t        testing.TB
	bin      string
	dir      string
	key      *ecdsa.PrivateKey
	httpPort int
	p2pPort  int
	// node is the running process (nil while stopped); its P2PNode
	// methods (BlockNumber, BlockHash, Call) work for geth as for basalt.
	node *testnode.P2PNode
	// privateConfig is PRIVATE_CONFIG, the privacy manager's connection
	// file ("": none, GoQuorum runs public-only).
	privateConfig string
	// extraArgs are added to the command line.
	extraArgs []string
}

// newGeth initialises a GoQuorum data directory for key with `geth init`.
func newGeth(t testing.TB, bin, genesis string, key *ecdsa.PrivateKey) *gethNode {
	t.Helper()
	g := &gethNode{t: t, bin: bin, dir: t.TempDir(), key: key,
		httpPort: proctest.FreePort(t), p2pPort: proctest.FreePort(t)}
	keyHex := fmt.Sprintf("%x", crypto.FromECDSA(key))
	if err := os.WriteFile(filepath.Join(g.dir, "nodekey"), []byte(keyHex), 0o600); err != nil {
		t.Fatal(err)
	}
	// --port would bind every interface; the TOML file binds loopback only.
	toml := fmt.Sprintf("[Node.P2P]\nListenAddr = \"127.0.0.1:%d\"\n", g.p2pPort)
	if err := os.WriteFile(filepath.Join(g.dir, "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--datadir", g.dir, "init", genesis).CombinedOutput(); err != nil {
		t.Fatalf("geth init: %v\n%s", err, out)
	}
	return g
}

// address is the validator address (of the node key).
func (g *gethNode) address() common.Address { return crypto.PubkeyToAddress(g.key.PublicKey) }

// enode is the node's enode URL, known before it starts.
func (g *gethNode) enode() string {
	pub := crypto.FromECDSAPub(&g.key.PublicKey)[1:]
	return fmt.Sprintf("enode://%x@127.0.0.1:%d?discport=0", pub, g.p2pPort)
}

// start runs geth as a mining QBFT validator (reference/qbft.md §3) and,
// once its QBFT engine runs, has it dial peers.
func (g *gethNode) start(peers []string) {
	g.t.Helper()
	g.launch(peers)
	g.connect(peers)
}

// launch writes the permissioned node list and runs geth as a mining QBFT
// validator, waiting until JSON-RPC answers. It starts with no static
// peers: see connect.
func (g *gethNode) launch(peers []string) {
	g.t.Helper()
	list, _ := json.Marshal(peers)
	for f, content := range map[string][]byte{"static-nodes.json": []byte("[]"), "permissioned-nodes.json": list} {
		if err := os.WriteFile(filepath.Join(g.dir, f), content, 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
	args := []string{
		"--config", filepath.Join(g.dir, "config.toml"), "--datadir", g.dir,
		"--nodekey", filepath.Join(g.dir, "nodekey"), "--networkid", strconv.Itoa(chainID),
		"--syncmode", "full", "--nodiscover", "--nat", "none", "--maxpeers", "32",
		"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(g.httpPort),
		"--http.api", "admin,eth,net,web3,istanbul,debug", "--http.vhosts", "localhost,127.0.0.1",
		"--ipcdisable", "--mine", "--miner.threads", "1", "--miner.gasprice", "0",
		"--miner.gastarget", strconv.Itoa(gasLimit), "--miner.gaslimit", strconv.Itoa(gasLimit),
		"--verbosity", "3"}
	cmd := exec.Command(g.bin, append(args, g.extraArgs...)...)
	// Without a privacy manager GoQuorum runs public-only.
	private := g.privateConfig
	if private == "" {
		private = "ignore"
	}
	cmd.Env = append(os.Environ(), "PRIVATE_CONFIG="+private)
	n := testnode.StartCommand(g.t, cmd, "http://127.0.0.1:"+strconv.Itoa(g.httpPort))
	g.node = &testnode.P2PNode{Node: n, P2PPort: g.p2pPort}
	keepLogs(g.t, "geth-"+g.address().Hex()[:8], n)
}

// connect waits until the node's QBFT engine runs and then adds peers as
// static peers (admin_addPeer), which it dials and keeps redialling.
//
// GoQuorum 24.4.1 disconnects a peer that sends it a QBFT message while
// its engine is stopped and it is not syncing (eth/handler.go,
// handleConsensusLoop: istanbul.ErrStoppedEngine), and redials a static
// peer only about 35 s later. Its engine starts with mining, which geth
// starts only after --unlock has decrypted the accounts (2 s of scrypt on
// a loaded machine), and stops while it syncs. With the peers in
// static-nodes.json a node dialled them at once and, under load, dropped
// all three at the first round change the others sent: the validator
// with --unlock in TestMixedNetworkPrivate sat alone at height 0 for 33 s
// while the other three made 21 blocks, in every run on a loaded
// machine. A node that starts behind the others syncs, so its engine
// stops and starts again, with the same window.
func (g *gethNode) connect(peers []string) {
	g.t.Helper()
	testnode.WaitFor(g.t, 60*time.Second, "GoQuorum to start mining (its QBFT engine)", func() bool {
		raw, err := g.node.Call("eth_mining")
		var mining bool
		return err == nil && json.Unmarshal(raw, &mining) == nil && mining
	})
	self := g.enode()
	for _, p := range peers {
		if p == self {
			continue
		}
		var ok bool
		g.node.MustCall(&ok, "admin_addPeer", p)
	}
}

// stop ends the process (SIGTERM, then it is waited for).
func (g *gethNode) stop() {
	g.t.Helper()
	g.node.Stop(syscall.SIGTERM)
	g.node = nil
}
