package clique

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// cliqueChainID is the chain of the Clique networks the tests start.
const cliqueChainID = 2018

// cliqueGenesisFile writes a Clique genesis in the shape of Besu's
// documented example (London, blockperiodseconds 1) listing signers, with
// the second dev account funded, and returns its path.
func cliqueGenesisFile(t *testing.T, signers ...common.Address) string {
	t.Helper()
	extra := clique.GenesisExtra(signers...)
	g := fmt.Sprintf(`{
  "config": {
    "chainId": %d,
    "berlinBlock": 0,
    "londonBlock": 0,
    "clique": {"blockperiodseconds": 1, "epochlength": 30000, "createemptyblocks": true}
  },
  "coinbase": "0x0000000000000000000000000000000000000000",
  "difficulty": "0x1",
  "extraData": "%s",
  "gasLimit": "0x1fffffffffffff",
  "mixHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
  "nonce": "0x0",
  "timestamp": "0x5c51a607",
  "alloc": {"%s": {"balance": "0xad78ebc5ac6200000"}}
}`, cliqueChainID, hexutil.Encode(extra), config.DevAccounts[1].Address.Hex())
	path := filepath.Join(t.TempDir(), "clique.json")
	if err := os.WriteFile(path, []byte(g), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cliqueKey is the node key of test node i (fixed, so signers are known
// before the nodes start).
func cliqueKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("clique e2e node " + strconv.Itoa(i))))
	if err != nil {
		panic(err)
	}
	return k
}

func cliqueAddr(i int) common.Address { return crypto.PubkeyToAddress(cliqueKey(i).PublicKey) }

// startCliqueNode starts node i of a Clique network with its fixed key, the
// CLIQUE methods on and a 1-second static-peer redial.
func startCliqueNode(t *testing.T, i int, genesis string) *testnode.P2PNode {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(cliqueKey(i)))), 0o600); err != nil {
		t.Fatal(err)
	}
	return testnode.StartP2P(t, dir, "--genesis-file="+genesis, "--node-private-key-file="+keyFile,
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,MINER,CLIQUE", "--Xp2p-static-reconnect-seconds=1")
}

func signersOf(t *testing.T, n *testnode.P2PNode, params ...any) []common.Address {
	t.Helper()
	var s []common.Address
	n.MustCall(&s, "clique_getSigners", params...)
	return s
}

func sameAddrs(got []common.Address, want ...common.Address) bool {
	want = slices.Clone(want)
	slices.SortFunc(want, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	return slices.Equal(got, want)
}

func proposalsOf(t *testing.T, n *testnode.P2PNode) map[common.Address]bool {
	t.Helper()
	var p map[common.Address]bool
	n.MustCall(&p, "clique_proposals")
	return p
}

type cliqueBlock struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	Difficulty hexutil.Uint64 `json:"difficulty"`
	Timestamp  hexutil.Uint64 `json:"timestamp"`
}

func blockAt(t *testing.T, n *testnode.P2PNode, number uint64) cliqueBlock {
	t.Helper()
	var b cliqueBlock
	n.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	return b
}

// agreeOn reports whether every node has at least min blocks and all hold
// the same blocks from 1 to the lowest head.
func agreeOn(t *testing.T, min uint64, nodes ...*testnode.P2PNode) bool {
	t.Helper()
	low := nodes[0].BlockNumber()
	for _, n := range nodes[1:] {
		low = minU64(low, n.BlockNumber())
	}
	if low < min {
		return false
	}
	for num := uint64(1); num <= low; num++ {
		want := nodes[0].BlockHash(num)
		for _, n := range nodes[1:] {
			if n.BlockHash(num) != want {
				return false
			}
		}
	}
	return true
}

func minU64(a, b uint64) uint64 {
	if a < b {
		return a
	}
	return b
}

type signerMetric struct {
	Address                 common.Address `json:"address"`
	ProposedBlockCount      hexutil.Uint64 `json:"proposedBlockCount"`
	LastProposedBlockNumber hexutil.Uint64 `json:"lastProposedBlockNumber"`
}

// sealedBy returns how many blocks of [from, to) each address sealed.
// Like Besu, clique_getSignerMetrics stops before the head.
func sealedBy(t *testing.T, n *testnode.P2PNode, from, to uint64) map[common.Address]uint64 {
	t.Helper()
	out := map[common.Address]uint64{}
	if to = minU64(to, n.BlockNumber()); from >= to {
		return out
	}
	var ms []signerMetric
	n.MustCall(&ms, "clique_getSignerMetrics", hexutil.EncodeUint64(from), hexutil.EncodeUint64(to))
	for _, m := range ms {
		out[m.Address] = uint64(m.ProposedBlockCount)
	}
	return out
}

// startCliqueNetwork starts a connected Clique network of signers signer
// nodes and extra further nodes, from one Besu-format genesis with
// blockperiodseconds 1 listing the first signers.
func startCliqueNetwork(t *testing.T, signers, extra int) []*testnode.P2PNode {
	t.Helper()
	addrs := make([]common.Address, signers)
	for i := range addrs {
		addrs[i] = cliqueAddr(i)
	}
	genesis := cliqueGenesisFile(t, addrs...)
	nodes := make([]*testnode.P2PNode, signers+extra)
	for i := range nodes {
		nodes[i] = startCliqueNode(t, i, genesis)
	}
	testnode.Connect(t, nodes...)
	return nodes
}

// Three signers and a node that is not one, from one Besu-format genesis
// (blockperiodseconds 1): blocks every period, in turn, on one chain that
// all four hold; a transfer sent to the non-signer is mined.
func TestCliqueNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a network of four nodes")
	}
	nodes := startCliqueNetwork(t, 3, 1)
	d := nodes[3]
	testnode.WaitFor(t, 90*time.Second, "one chain of 10 blocks on all four nodes", func() bool {
		return agreeOn(t, 10, nodes...)
	})
	// Blocks from 4 on: the first few may be sealed out of turn while the
	// nodes were still connecting.
	head := d.BlockNumber()
	inTurn, first := 0, uint64(4)
	for n := first; n <= head; n++ {
		blk, parent := blockAt(t, d, n), blockAt(t, d, n-1)
		if blk.Timestamp < parent.Timestamp+1 || (blk.Difficulty != 1 && blk.Difficulty != 2) {
			t.Fatalf("block %d: timestamp %d after %d, difficulty %d", n, blk.Timestamp, parent.Timestamp, blk.Difficulty)
		}
		if blk.Difficulty == 2 {
			inTurn++
		}
	}
	t.Logf("blocks %d..%d: %d of %d sealed in turn", first, head, inTurn, head-first+1)
	if inTurn*2 < int(head-first+1) {
		t.Fatalf("only %d of %d blocks sealed in turn", inTurn, head-first+1)
	}
	counts := sealedBy(t, d, 1, head)
	for i := range 3 {
		if counts[cliqueAddr(i)] == 0 {
			t.Fatalf("signer %d sealed nothing: %v", i, counts)
		}
	}
	if counts[cliqueAddr(3)] != 0 {
		t.Fatalf("the non-signer sealed blocks: %v", counts)
	}
	for i, n := range nodes {
		var mining bool
		testnode.WaitFor(t, 10*time.Second, "eth_mining", func() bool {
			n.MustCall(&mining, "eth_mining")
			return mining == (i < 3)
		})
		if !sameAddrs(signersOf(t, n), cliqueAddr(0), cliqueAddr(1), cliqueAddr(2)) {
			t.Fatalf("node %d: clique_getSigners %v", i, signersOf(t, n))
		}
	}
	var info struct {
		Protocols struct {
			Eth struct {
				Config map[string]any `json:"config"`
			} `json:"eth"`
		} `json:"protocols"`
	}
	d.MustCall(&info, "admin_nodeInfo")
	cc, _ := info.Protocols.Eth.Config["clique"].(map[string]any)
	if cc["blockPeriodSeconds"] != float64(1) || cc["epochLength"] != float64(30000) || cc["createemptyblocks"] != true {
		t.Fatalf("admin_nodeInfo clique config %v", info.Protocols.Eth.Config)
	}

	key, _ := devnode.Key(t, 1)
	to := common.Address{0xc1}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(cliqueChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(cliqueChainID), Nonce: 0, To: &to, Value: big.NewInt(1234),
		Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11),
	})
	h := devnode.SendRaw(t, d.Node, tx)
	r := devnode.WaitReceipt(t, d.Node, h)
	if r.Status != 1 {
		t.Fatalf("receipt %+v", r)
	}
	testnode.WaitFor(t, 30*time.Second, "the transfer's block on every node", func() bool {
		return agreeOn(t, uint64(r.BlockNumber), nodes...)
	})
	for _, n := range nodes {
		if got := devnode.Balance(t, n.Node, to); got.Int64() != 1234 {
			t.Fatalf("balance %v", got)
		}
	}
}

// Three signers vote a fourth node in (two propose it), then one of
// themselves out (three of four propose it): clique_getSigners and
// clique_proposals at each step; the removed signer stops sealing;
// clique_discard drops the proposals.
func TestCliqueVoting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a network of four nodes")
	}
	nodes := startCliqueNetwork(t, 3, 1)
	a, b, c, d := nodes[0], nodes[1], nodes[2], nodes[3]
	testnode.WaitFor(t, 90*time.Second, "one chain of 3 blocks", func() bool { return agreeOn(t, 3, nodes...) })

	for _, n := range []*testnode.P2PNode{a, b} {
		var ok bool
		n.MustCall(&ok, "clique_propose", cliqueAddr(3), true)
		if p := proposalsOf(t, n); !ok || len(p) != 1 || !p[cliqueAddr(3)] {
			t.Fatalf("clique_proposals after clique_propose: %v", p)
		}
	}
	if p := proposalsOf(t, c); len(p) != 0 {
		t.Fatalf("c's proposals: %v", p)
	}
	var added uint64
	testnode.WaitFor(t, 60*time.Second, "d among the signers", func() bool {
		if !sameAddrs(signersOf(t, d), cliqueAddr(0), cliqueAddr(1), cliqueAddr(2), cliqueAddr(3)) {
			return false
		}
		added = d.BlockNumber()
		return true
	})
	for _, n := range nodes {
		testnode.WaitFor(t, 30*time.Second, "four signers everywhere", func() bool {
			return sameAddrs(signersOf(t, n), cliqueAddr(0), cliqueAddr(1), cliqueAddr(2), cliqueAddr(3))
		})
	}
	if !sameAddrs(signersOf(t, d, "0x1"), cliqueAddr(0), cliqueAddr(1), cliqueAddr(2)) {
		t.Fatal("clique_getSigners at block 1 changed")
	}
	testnode.WaitFor(t, 60*time.Second, "d to seal a block", func() bool {
		return sealedBy(t, a, added, a.BlockNumber())[cliqueAddr(3)] > 0
	})

	for _, n := range []*testnode.P2PNode{a, b, d} {
		var ok bool
		n.MustCall(&ok, "clique_propose", cliqueAddr(2), false)
	}
	if p := proposalsOf(t, a); len(p) != 2 || !p[cliqueAddr(3)] || p[cliqueAddr(2)] {
		t.Fatalf("a's proposals: %v", p)
	}
	var removed uint64
	testnode.WaitFor(t, 60*time.Second, "c voted out", func() bool {
		if !sameAddrs(signersOf(t, d), cliqueAddr(0), cliqueAddr(1), cliqueAddr(3)) {
			return false
		}
		removed = d.BlockNumber()
		return true
	})
	// The removed signer seals nothing after its removal and says it is
	// not mining.
	testnode.WaitFor(t, 60*time.Second, "6 blocks after the removal on all nodes", func() bool {
		return agreeOn(t, removed+6, nodes...)
	})
	if n := sealedBy(t, d, removed+1, d.BlockNumber())[cliqueAddr(2)]; n != 0 {
		t.Fatalf("c sealed %d blocks after its removal", n)
	}
	var mining bool
	c.MustCall(&mining, "eth_mining")
	if mining {
		t.Fatal("eth_mining true on a removed signer")
	}
	// Proposals stay until discarded, as in Besu.
	for _, addr := range []common.Address{cliqueAddr(2), cliqueAddr(3)} {
		var ok bool
		a.MustCall(&ok, "clique_discard", addr)
	}
	if p := proposalsOf(t, a); len(p) != 0 {
		t.Fatalf("a's proposals after clique_discard: %v", p)
	}
}

// Of three signers, one stopped: the chain goes on; restarted, it catches
// up and seals again. Two stopped: the chain halts (no signer may seal two
// blocks in a row); one back: it resumes.
func TestCliqueSignersStopAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a network of three nodes")
	}
	nodes := startCliqueNetwork(t, 3, 0)
	a, b, c := nodes[0], nodes[1], nodes[2]
	testnode.WaitFor(t, 90*time.Second, "one chain of 3 blocks", func() bool { return agreeOn(t, 3, nodes...) })
	// rejoin restarts n on its data and reconnects it to peers (those it
	// dialled at first have forgotten it).
	rejoin := func(n *testnode.P2PNode, peers ...*testnode.P2PNode) {
		t.Helper()
		n.Restart()
		for _, o := range peers {
			n.AddPeer(o)
		}
	}

	c.Stop(syscall.SIGTERM)
	from := a.BlockNumber()
	testnode.WaitFor(t, 60*time.Second, "4 blocks without c", func() bool { return agreeOn(t, from+4, a, b) })

	rejoin(c, a, b)
	restartedAt := a.BlockNumber()
	testnode.WaitFor(t, 60*time.Second, "c caught up", func() bool { return agreeOn(t, restartedAt, nodes...) })
	testnode.WaitFor(t, 60*time.Second, "c sealing again", func() bool {
		return sealedBy(t, a, restartedAt+1, a.BlockNumber())[cliqueAddr(2)] > 0
	})

	b.Stop(syscall.SIGTERM)
	c.Stop(syscall.SIGTERM)
	halted := waitHalt(t, a)
	t.Logf("with one of three signers the chain halted at block %d", halted)

	rejoin(b, a)
	testnode.WaitFor(t, 60*time.Second, "the chain moving again", func() bool {
		return agreeOn(t, halted+3, a, b)
	})
}

// waitHalt waits until n's head stays put for 4 s (four periods) and then
// checks it still does 3 s later; it returns the head.
func waitHalt(t *testing.T, n *testnode.P2PNode) uint64 {
	t.Helper()
	head := n.BlockNumber()
	stable := time.Now()
	deadline := stable.Add(60 * time.Second)
	for time.Since(stable) < 4*time.Second {
		if time.Now().After(deadline) {
			t.Fatal("the chain did not halt")
		}
		time.Sleep(200 * time.Millisecond)
		if h := n.BlockNumber(); h != head {
			head, stable = h, time.Now()
		}
	}
	time.Sleep(3 * time.Second)
	if h := n.BlockNumber(); h != head {
		t.Fatalf("the chain moved from %d to %d with one signer of three", head, h)
	}
	return head
}

// A node restarted on a Clique chain of 3,000 blocks finds its signer
// state from the snapshot persisted at block 2,048 instead of replaying
// the chain: it rebuilds from 952 headers. A second node fully syncs the
// chain from it, every seal checked, and `blocks export` writes back the
// imported blocks.
func TestCliqueRestartAfter3000Blocks(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and imports 3,000 blocks")
	}
	dir := t.TempDir()
	f, err := chaingen.WriteFilesWith(context.Background(), dir, chaingen.CliqueGenesis(1), 3000, chaingen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	importBlocksInto(t, data, f.Genesis, f.Blocks)

	start := time.Now()
	src := testnode.StartP2P(t, data, "--genesis-file="+f.Genesis, "--rpc-http-api=ETH,NET,ADMIN,CLIQUE")
	var signers []common.Address
	src.MustCall(&signers, "clique_getSigners")
	opened := time.Since(start)
	signer := crypto.PubkeyToAddress(chaingen.CliqueSigner().PublicKey)
	if len(signers) != 1 || signers[0] != signer || src.BlockNumber() != 3000 {
		t.Fatalf("signers %v at block %d", signers, src.BlockNumber())
	}
	rebuilt := regexp.MustCompile(`Clique signer state rebuilt" number=3000 from=(\d+) source=(\w+) headers=(\d+)`).FindStringSubmatch(src.Logs())
	if rebuilt == nil || rebuilt[1] != "2048" || rebuilt[2] != "disk" || rebuilt[3] != "952" {
		t.Fatalf("signer state not rebuilt from the persisted snapshot: %q\n%s", rebuilt, src.Logs())
	}
	t.Logf("restarted at block 3000: up and answering clique_getSigners %v after the process started (state rebuilt from block %s, %s headers)",
		opened.Round(time.Millisecond), rebuilt[1], rebuilt[3])

	joiner := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+f.Genesis)
	joiner.AddPeer(src)
	testnode.WaitFor(t, 120*time.Second, "the joiner synced to block 3000", func() bool { return joiner.BlockNumber() == 3000 })
	if joiner.BlockHash(3000) != f.Head.Hex() {
		t.Fatalf("joiner head %s, want %s", joiner.BlockHash(3000), f.Head.Hex())
	}

	src.Stop(syscall.SIGTERM)
	out := filepath.Join(t.TempDir(), "export.rlp")
	if b, err := exec.Command(testnode.Binary(t), "--data-path="+data, "--genesis-file="+f.Genesis,
		"blocks", "export", "--start-block=1", "--to="+out).CombinedOutput(); err != nil {
		t.Fatalf("blocks export: %v\n%s", err, b)
	}
	want, _ := os.ReadFile(f.Blocks)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want) {
		t.Fatalf("exported %d bytes, imported %d", len(got), len(want))
	}
}

func importBlocksInto(t *testing.T, dataDir, genesis, blocks string) {
	t.Helper()
	out, err := exec.Command(testnode.Binary(t), "--data-path="+dataDir, "--genesis-file="+genesis,
		"blocks", "import", "--no-progress", "--from="+blocks).CombinedOutput()
	if err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
}

// Besu's own Clique chain (its genesis file and blocks 0-4 sealed by a Besu
// signer) imports with every seal checked, gets Besu's hashes, and exports
// byte for byte as Besu wrote it; a block whose seal was tampered with is
// refused.
func TestCliqueBesuChainImport(t *testing.T) {
	genesis := filepath.Join("..", "..", "consensus", "clique", "testdata", "clique_to_pos.json")
	blocks := filepath.Join("..", "..", "consensus", "clique", "testdata", "clique.blocks")
	data := t.TempDir()
	importBlocksInto(t, data, genesis, blocks)
	n := testnode.Start(t, data, "--genesis-file="+genesis, "--rpc-http-api=ETH,CLIQUE")
	besu := devnode.ReadBlocks(t, blocks)
	engine := clique.New(clique.Config{}, clique.Options{}) // block hashes are the engine's
	for _, want := range besu {
		var got struct {
			Hash common.Hash `json:"hash"`
		}
		n.MustCall(&got, "eth_getBlockByNumber", hexutil.EncodeUint64(want.NumberU64()), false)
		if wantHash := engine.Hash(want.Header()); got.Hash != wantHash {
			t.Fatalf("block %d: hash %s, Besu's %s", want.NumberU64(), got.Hash.Hex(), wantHash.Hex())
		}
	}
	var signers []common.Address
	n.MustCall(&signers, "clique_getSigners", "latest")
	if len(signers) != 1 || signers[0] != common.HexToAddress("0x3b63a1ee47ffd227458746ca9bb079d0d3cbb4bd") {
		t.Fatalf("signers %v", signers)
	}
	n.Stop(syscall.SIGTERM)

	out := filepath.Join(t.TempDir(), "export.rlp")
	if b, err := exec.Command(testnode.Binary(t), "--data-path="+data, "--genesis-file="+genesis,
		"blocks", "export", "--to="+out).CombinedOutput(); err != nil {
		t.Fatalf("blocks export: %v\n%s", err, b)
	}
	orig, _ := os.ReadFile(blocks)
	if exported, _ := os.ReadFile(out); !bytes.Equal(exported, orig) {
		t.Fatalf("export differs from Besu's file (%d vs %d bytes)", len(exported), len(orig))
	}

	// Tamper with block 3's seal: the import stops there.
	h := besu[3].Header()
	h.Extra[len(h.Extra)-10] ^= 0x55
	besu[3] = besu[3].WithSeal(h)
	var buf bytes.Buffer
	if err := chaingen.WriteRLP(&buf, besu); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.rlp")
	os.WriteFile(bad, buf.Bytes(), 0o644)
	res, err := exec.Command(testnode.Binary(t), "--data-path="+t.TempDir(), "--genesis-file="+genesis,
		"blocks", "import", "--no-progress", "--from="+bad).CombinedOutput()
	if err == nil || !strings.Contains(string(res), "block 3") {
		t.Fatalf("tampered chain: %v\n%s", err, res)
	}
}
