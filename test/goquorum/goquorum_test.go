// Package goquorum runs Basalt QBFT validators in one network with
// GoQuorum validators. GoQuorum is not part of the build: the test runs
// only when BASALT_GOQUORUM_GETH names a GoQuorum `geth` binary (built from
// github.com/Consensys/quorum: see README.md in this folder), and is
// skipped otherwise.
package goquorum

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
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
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// gethBinary returns the GoQuorum binary named by BASALT_GOQUORUM_GETH or
// skips the test.
func gethBinary(t *testing.T) string {
	bin := os.Getenv("BASALT_GOQUORUM_GETH")
	if bin == "" {
		t.Skip("BASALT_GOQUORUM_GETH is not set: set it to a GoQuorum geth binary to run the mixed-network test")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("BASALT_GOQUORUM_GETH: %v", err)
	}
	return bin
}

// keepLogs, when BASALT_GOQUORUM_LOGS names a directory, writes the logs
// node has printed to a file there when the test ends, passed or failed
// (a failed test prints them anyway): to read what both clients did in a
// run that passed, or in many runs under load. The Basalt nodes then log
// at DEBUG, which shows the consensus messages they reject.
func keepLogs(t testing.TB, name string, node *testnode.Node) {
	dir := os.Getenv("BASALT_GOQUORUM_LOGS")
	if dir == "" {
		return
	}
	t.Cleanup(func() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Errorf("BASALT_GOQUORUM_LOGS: %v", err)
			return
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%d-%s.log", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano(), name))
		if err := os.WriteFile(file, []byte(node.Logs()), 0o644); err != nil {
			t.Errorf("BASALT_GOQUORUM_LOGS: %v", err)
		}
	})
}

// keepLogsArgs are the Basalt arguments keepLogs asks for.
func keepLogsArgs() []string {
	if os.Getenv("BASALT_GOQUORUM_LOGS") == "" {
		return nil
	}
	return []string{"--logging=DEBUG"}
}

// mixedNetwork is 2 Basalt and 2 GoQuorum validators from one genesis.
type mixedNetwork struct {
	t          *testing.T
	validators []common.Address // sorted
	basalt     []*testnode.P2PNode
	basaltKeys []*ecdsa.PrivateKey
	geth       []*gethNode
	genesis    string
}

// basaltAddresses are the Basalt validators' addresses.
func (n *mixedNetwork) basaltAddresses() []common.Address {
	var out []common.Address
	for _, k := range n.basaltKeys {
		out = append(out, crypto.PubkeyToAddress(k.PublicKey))
	}
	return out
}

// proposedByBasalt tells whether block number (as node reports it) was
// proposed by a Basalt validator.
func (n *mixedNetwork) proposedByBasalt(node *testnode.P2PNode, number uint64) bool {
	n.t.Helper()
	var b rpcBlock
	node.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	return slices.Contains(n.basaltAddresses(), b.Miner)
}

// running returns the JSON-RPC views of the nodes that are up, Basalt
// first.
func (n *mixedNetwork) running() []*testnode.P2PNode {
	var out []*testnode.P2PNode
	for _, b := range n.basalt {
		if b != nil {
			out = append(out, b)
		}
	}
	for _, g := range n.geth {
		if g.node != nil {
			out = append(out, g.node)
		}
	}
	return out
}

// startMixed starts the 4 validators: the Basalt nodes first, then the
// GoQuorum nodes, which, once their QBFT engines run, each dial all three
// others (admin_addPeer); the Basalt nodes dial each other.
// keys are the validators' (Basalt, Basalt, GoQuorum, GoQuorum).
func startMixed(t *testing.T, bin string, keys []*ecdsa.PrivateKey) *mixedNetwork {
	return startMixedWith(t, bin, keys, mixedOptions{})
}

// mixedOptions vary startMixed's network.
type mixedOptions struct {
	// setup is called on each GoQuorum node before it starts.
	setup func(i int, g *gethNode)
	// basaltArgs are added to the Basalt nodes' command lines.
	basaltArgs []string
	// basaltArgsFor, when set, adds arguments to Basalt node i's.
	basaltArgsFor func(i int) []string
	// genesis changes the genesis (the JSON object).
	genesis func(genesis map[string]any)
}

// startMixedWith is startMixed with opts.
func startMixedWith(t *testing.T, bin string, keys []*ecdsa.PrivateKey, opts mixedOptions) *mixedNetwork {
	n := &mixedNetwork{t: t, validators: sortedAddresses(keys), basaltKeys: keys[:2]}
	genesis := writeGenesis(t, t.TempDir(), n.validators, opts.genesis)
	n.genesis = genesis
	for i, k := range keys[2:] {
		g := newGeth(t, bin, genesis, k)
		if opts.setup != nil {
			opts.setup(i, g)
		}
		n.geth = append(n.geth, g)
	}
	var enodes []string
	for i, k := range n.basaltKeys {
		keyFile := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(k))), 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--genesis-file=" + genesis, "--node-private-key-file=" + keyFile,
			"--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL"}, opts.basaltArgs...)
		if opts.basaltArgsFor != nil {
			args = append(args, opts.basaltArgsFor(i)...)
		}
		b := testnode.StartP2P(t, t.TempDir(), append(args, keepLogsArgs()...)...)
		keepLogs(t, fmt.Sprintf("basalt%d", i), b.Node)
		n.basalt = append(n.basalt, b)
		enodes = append(enodes, b.Enode())
	}
	for _, g := range n.geth {
		enodes = append(enodes, g.enode())
	}
	// Every GoQuorum node's engine runs before any of them has peers
	// (see gethNode.connect): none is cut off at start-up, and none
	// starts behind, so none has to sync (which stops its engine).
	for _, g := range n.geth {
		g.launch(enodes)
	}
	for _, g := range n.geth {
		g.connect(enodes)
	}
	n.basalt[1].AddPeer(n.basalt[0])
	for _, node := range n.running() {
		node.WaitPeers(3, 60*time.Second)
	}
	t.Logf("validators %v: Basalt %v, GoQuorum %v", n.validators,
		[]common.Address{crypto.PubkeyToAddress(keys[0].PublicKey), crypto.PubkeyToAddress(keys[1].PublicKey)},
		[]common.Address{n.geth[0].address(), n.geth[1].address()})
	return n
}

// waitHeight waits until every listed node reached height.
func waitHeight(t *testing.T, timeout time.Duration, height uint64, nodes ...*testnode.P2PNode) {
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

// sameHashes checks every node reports the same hash at heights from..to
// and returns the hashes.
func sameHashes(t *testing.T, from, to uint64, nodes ...*testnode.P2PNode) map[uint64]string {
	t.Helper()
	hashes := map[uint64]string{}
	for h := from; h <= to; h++ {
		want := nodes[0].BlockHash(h)
		if want == "" {
			t.Fatalf("height %d: no block on node 0", h)
		}
		for i, n := range nodes[1:] {
			if got := n.BlockHash(h); got != want {
				t.Fatalf("height %d: node %d has %s, node 0 %s", h, i+1, got, want)
			}
		}
		hashes[h] = want
	}
	return hashes
}

// rpcBlock is the part of eth_getBlockByNumber the test reads.
type rpcBlock struct {
	Hash      common.Hash    `json:"hash"`
	Miner     common.Address `json:"miner"`
	ExtraData hexutil.Bytes  `json:"extraData"`
	BaseFee   *hexutil.Big   `json:"baseFeePerGas"`
}

// checkBlocks decodes each block of heights 1..to as GoQuorum stores it
// (debug_getBlockRlp) and checks, with Basalt's QBFT codec, that its hash
// is the one every node reported, that its commit seals are from distinct
// validators and at least a quorum, and that it has no base fee. It
// returns how many blocks each validator proposed and the blocks committed
// in a round above 0.
func checkBlocks(t *testing.T, g *gethNode, to uint64, hashes map[uint64]string, validators []common.Address) (proposed map[common.Address]int, lateRounds []string) {
	t.Helper()
	proposed = map[common.Address]int{}
	quorum := (2*len(validators) + 2) / 3
	for h := uint64(1); h <= to; h++ {
		header, signers := gethBlock(t, g, h, hashes[h])
		seen := map[common.Address]bool{}
		for _, s := range signers {
			if !slices.Contains(validators, s) || seen[s] {
				t.Fatalf("block %d: seal by %s (validators %v, seen %v)", h, s, validators, seen)
			}
			seen[s] = true
		}
		if len(seen) < quorum {
			t.Fatalf("block %d: %d seals, quorum %d", h, len(seen), quorum)
		}
		proposed[header.Coinbase]++
		if extra, err := qbft.DecodeExtraData(header.Extra); err != nil {
			t.Fatalf("block %d: %v", h, err)
		} else if extra.Round > 0 {
			lateRounds = append(lateRounds, fmt.Sprintf("%d (round %d, by %s)", h, extra.Round, header.Coinbase))
		}
	}
	return proposed, lateRounds
}

// gethBlock fetches block h as GoQuorum stores it (debug_getBlockRlp) and
// checks, with Basalt's QBFT codec, that it hashes to hash, has no base
// fee and that its commit seals recover; it returns the header and the
// seals' signers.
func gethBlock(t *testing.T, g *gethNode, h uint64, hash string) (*types.Header, []common.Address) {
	t.Helper()
	var raw string
	g.node.MustCall(&raw, "debug_getBlockRlp", h)
	header := decodeBlockHeader(t, h, raw)
	if got := qbft.BlockHash(header).Hex(); got != hash {
		t.Fatalf("block %d: Basalt's QBFT hash %s, the nodes report %s", h, got, hash)
	}
	if header.BaseFee != nil {
		t.Fatalf("block %d has a base fee", h)
	}
	signers, err := qbft.SealSigners(header)
	if err != nil {
		t.Fatalf("block %d seals: %v", h, err)
	}
	return header, signers
}

// decodeBlockHeader decodes debug_getBlockRlp's answer (hex, with or
// without 0x) for block h and returns its header.
func decodeBlockHeader(t *testing.T, h uint64, raw string) *types.Header {
	t.Helper()
	data, err := hexutil.Decode("0x" + strings.TrimPrefix(raw, "0x"))
	if err != nil {
		t.Fatalf("block %d RLP: %v", h, err)
	}
	var block types.Block
	if err := rlp.DecodeBytes(data, &block); err != nil {
		t.Fatalf("block %d: %v", h, err)
	}
	return block.Header()
}

// checkGethLogs fails the test for every message or block a running
// GoQuorum node logged that it refused.
func (n *mixedNetwork) checkGethLogs() {
	n.t.Helper()
	n.checkGethLogsExcept(nil)
}

// checkGethLogsExcept is checkGethLogs passing over the lines excuse
// accepts (given the GoQuorum node's index).
func (n *mixedNetwork) checkGethLogsExcept(excuse func(node int, line string) bool) {
	n.t.Helper()
	for i, g := range n.geth {
		if g.node == nil {
			continue
		}
		for _, line := range strings.Split(g.node.Logs(), "\n") {
			for _, bad := range gethRejections {
				if strings.Contains(line, bad) && !lateMessage(line) && (excuse == nil || !excuse(i, line)) {
					n.t.Errorf("GoQuorum node %d rejected a message or block: %s", i, line)
				}
			}
		}
	}
}

// ownProposalRaces finds the (sequence, round) at which a GoQuorum
// validator rejected the PREPARE digests of every other validator, which
// all agreed among themselves: that node alone held another proposal than
// the one everyone prepared. It was seen on the GoQuorum proposer of the
// height at which a private transaction sent to it reached its pool
// (inferred: its miner re-sealed the proposal with the transaction); Basalt
// takes no part in it (the other GoQuorum node prepared what the Basalt
// nodes did), and the round change that follows commits the block. It
// also passes over the digest rejections at a view for which a GoQuorum
// proposer broadcast two different blocks (below). It returns an excuse
// for checkGethLogsExcept that passes over those lines, on that node and
// on the others about it.
func (n *mixedNetwork) ownProposalRaces() func(node int, line string) bool {
	logs := make([]string, len(n.geth))
	addrs := make([]common.Address, len(n.geth))
	for i, g := range n.geth {
		addrs[i] = g.address()
		if g.node != nil {
			logs[i] = g.node.Logs()
		}
	}
	return proposalRaces(logs, addrs, len(n.validators))
}

// proposalRaces is ownProposalRaces on the logs of the GoQuorum nodes
// (logs[i], "" for a node that is down) whose addresses are addrs, in a
// network of validators validators.
func proposalRaces(logs []string, addrs []common.Address, validators int) func(node int, line string) bool {
	field := func(line, name string) string {
		i := strings.Index(line, " "+name+"=")
		if i < 0 {
			return ""
		}
		v := line[i+len(name)+2:]
		if j := strings.IndexByte(v, ' '); j >= 0 {
			v = v[:j]
		}
		return v
	}
	type view struct{ seq, round string }
	rejected := map[int]map[view]map[string]bool{}
	for i, l := range logs {
		rejected[i] = map[view]map[string]bool{}
		for _, line := range strings.Split(l, "\n") {
			if !strings.Contains(line, "QBFT: invalid PREPARE message digest") {
				continue
			}
			v := view{field(line, "current.sequence"), field(line, "current.round")}
			if rejected[i][v] == nil {
				rejected[i][v] = map[string]bool{}
			}
			rejected[i][v][strings.ToLower(field(line, "msg.source"))] = true
		}
	}
	odd := map[view]string{} // the lone node's address
	for i, views := range rejected {
		for v, sources := range views {
			if len(sources) == validators-1 {
				odd[v] = strings.ToLower(addrs[i].Hex())
			}
		}
	}
	// A GoQuorum proposer that broadcast two PRE-PREPAREs of different
	// blocks for one view: its miner sealed twice in a millisecond (the
	// new head and a pending private transaction) and GoQuorum's core
	// (qbft/core/request.go) proposes each sealed block while it has
	// not yet handled its own first PRE-PREPARE. Each validator prepares
	// the one it got first, so the digests of the others' PREPAREs (and
	// COMMITs) differ from a node's own; the round change that follows
	// commits the block. Seen once in 25 runs under load, right after
	// that proposer had synced.
	twice := map[view]bool{}
	for i, l := range logs {
		self := strings.ToLower(addrs[i].Hex())
		hashes := map[view]map[string]bool{}
		for _, line := range strings.Split(l, "\n") {
			if !strings.Contains(line, "QBFT: broadcast PRE-PREPARE message") || strings.ToLower(field(line, "msg.source")) != self {
				continue
			}
			v := view{field(line, "msg.sequence"), field(line, "msg.round")}
			if hashes[v] == nil {
				hashes[v] = map[string]bool{}
			}
			hashes[v][field(line, "block.hash")] = true
			if len(hashes[v]) > 1 {
				twice[v] = true
			}
		}
	}
	return func(node int, line string) bool {
		digest := strings.Contains(line, "QBFT: invalid PREPARE message digest") || strings.Contains(line, "QBFT: invalid COMMIT message digest")
		if !digest {
			return false
		}
		if twice[view{field(line, "msg.sequence"), field(line, "msg.round")}] {
			return true
		}
		if !strings.Contains(line, "QBFT: invalid PREPARE message digest") {
			return false
		}
		lone, ok := odd[view{field(line, "current.sequence"), field(line, "current.round")}]
		return ok && (lone == strings.ToLower(addrs[node].Hex()) || lone == strings.ToLower(field(line, "msg.source")))
	}
}

// transfer sends a legacy transfer (GoQuorum 24.4.1 has no London) of
// value wei at gasPrice from the dev account with nonce to via node,
// returning its hash.
func transfer(t *testing.T, via *testnode.P2PNode, nonce uint64, to common.Address, value int64, gasPrice *big.Int) common.Hash {
	t.Helper()
	key, _ := crypto.HexToECDSA(devKeyHex)
	tx := types.MustSignNewTx(key, types.NewEIP155Signer(big.NewInt(chainID)), &types.LegacyTx{
		Nonce: nonce, GasPrice: gasPrice, Gas: 21000, To: &to, Value: big.NewInt(value)})
	data, _ := tx.MarshalBinary()
	var hash common.Hash
	via.MustCall(&hash, "eth_sendRawTransaction", hexutil.Encode(data))
	return hash
}

// waitReceipt waits for the receipt of hash on node and checks it
// succeeded.
func waitReceipt(t *testing.T, node *testnode.P2PNode, hash common.Hash) uint64 {
	t.Helper()
	var r *struct {
		Status      hexutil.Uint64 `json:"status"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
	}
	testnode.WaitFor(t, 60*time.Second, "receipt of "+hash.Hex(), func() bool {
		node.MustCall(&r, "eth_getTransactionReceipt", hash)
		return r != nil
	})
	if r.Status != 1 {
		t.Fatalf("transaction %s failed", hash)
	}
	return uint64(r.BlockNumber)
}

// balance is eth_getBalance at latest.
func balance(t *testing.T, node *testnode.P2PNode, addr common.Address) *big.Int {
	t.Helper()
	var b hexutil.Big
	node.MustCall(&b, "eth_getBalance", addr, "latest")
	return (*big.Int)(&b)
}

// TestMixedNetwork: 2 Basalt and 2 GoQuorum QBFT validators from one
// genesis produce blocks together; all four report the same hash at every
// height for the first 100 blocks, and each block, as GoQuorum stores it,
// hashes and carries commit seals as Basalt's codec expects; both clients
// propose; a transfer sent to either client is mined and seen by the
// other; the chain goes on while a GoQuorum validator is down, the
// restarted GoQuorum node catches up, and the chain goes on while a Basalt
// validator is down; a Basalt node syncs the whole chain from GoQuorum.
func TestMixedNetwork(t *testing.T) {
	bin := gethBinary(t)
	n := startMixed(t, bin, validatorKeys(t, 4))
	all := n.running()
	bas, gq := n.basalt[0], n.geth[0].node

	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	viaBasalt := transfer(t, bas, 0, to, 1000, big.NewInt(1e9))
	block := waitReceipt(t, gq, viaBasalt)
	t.Logf("transfer sent to Basalt mined in block %d (receipt from GoQuorum)", block)
	viaGeth := transfer(t, gq, 1, to, 2000, big.NewInt(1e9))
	block = waitReceipt(t, bas, viaGeth)
	t.Logf("transfer sent to GoQuorum mined in block %d (receipt from Basalt)", block)
	waitHeight(t, time.Minute, block, all...)
	for _, node := range all {
		if got := balance(t, node, to); got.Cmp(big.NewInt(3000)) != 0 {
			t.Fatalf("recipient balance %v on %s, want 3000", got, node.URL)
		}
	}
	// A stream of transfers, one every 250 ms to each node in turn: a
	// Basalt proposer includes what is pending when its turn comes, so
	// GoQuorum executes transactions in blocks Basalt built.
	nonce := uint64(2)
	var stream []common.Hash
	for i := range 8 {
		stream = append(stream, transfer(t, all[i%len(all)], nonce, to, 1, big.NewInt(1e9)))
		nonce++
		time.Sleep(250 * time.Millisecond)
	}
	var basaltBuilt []uint64
	for _, h := range stream {
		if block := waitReceipt(t, gq, h); n.proposedByBasalt(gq, block) && !slices.Contains(basaltBuilt, block) {
			basaltBuilt = append(basaltBuilt, block)
		}
	}
	if len(basaltBuilt) == 0 {
		t.Fatal("no Basalt-proposed block carried a transfer")
	}
	// GoQuorum builds its block when the parent arrives and leaves out
	// what comes later, so in a stream its blocks tend to be empty. A
	// transfer priced below Basalt's minimum gas price (1000 wei by
	// default) is one GoQuorum (--miner.gasprice 0) alone takes: it is
	// mined in a block GoQuorum built, which the Basalt nodes execute.
	cheap := transfer(t, gq, nonce, to, 1, big.NewInt(1))
	nonce++
	cheapBlock := waitReceipt(t, bas, cheap)
	if n.proposedByBasalt(bas, cheapBlock) {
		t.Fatalf("the transfer below Basalt's minimum gas price was mined by Basalt in block %d", cheapBlock)
	}
	t.Logf("transfers mined in blocks built by Basalt %v and (1 wei gas price) by GoQuorum [%d]", basaltBuilt, cheapBlock)

	const blocks = 100
	waitHeight(t, 5*time.Minute, blocks, all...)
	hashes := sameHashes(t, 0, blocks, all...)
	proposed, late := checkBlocks(t, n.geth[0], blocks, hashes, n.validators)
	t.Logf("blocks 0..%d: same hash on all 4 nodes; blocks proposed per validator: %v; committed after a round change: %v", blocks, proposed, late)
	for _, v := range n.validators {
		if proposed[v] == 0 {
			t.Fatalf("validator %s proposed none of blocks 1..%d: %v", v, blocks, proposed)
		}
	}

	// A GoQuorum validator stops: the other three go on.
	n.geth[1].stop()
	from := gq.BlockNumber()
	waitHeight(t, 2*time.Minute, from+5, n.running()...)
	t.Logf("GoQuorum validator %s stopped at height %d; the others reached %d", n.geth[1].address(), from, from+5)
	n.geth[1].start(append([]string{n.basalt[0].Enode(), n.basalt[1].Enode()}, n.geth[0].enode()))
	top := bas.BlockNumber()
	waitHeight(t, 2*time.Minute, top+2, n.running()...)
	t.Logf("GoQuorum validator restarted and caught up past height %d", top)

	// A Basalt validator stops: the other three go on.
	stopped := n.basalt[1]
	stopped.Stop(syscall.SIGKILL) // a crash, not a clean shutdown
	n.basalt[1] = nil
	from = gq.BlockNumber()
	waitHeight(t, 2*time.Minute, from+5, n.running()...)
	t.Logf("Basalt validator %s stopped at height %d; the others reached %d",
		crypto.PubkeyToAddress(n.basaltKeys[1].PublicKey), from, from+5)
	viaGeth = transfer(t, gq, nonce, to, 4000, big.NewInt(1e9))
	block = waitReceipt(t, bas, viaGeth)
	t.Logf("transfer sent to GoQuorum during the Basalt outage mined in block %d", block)

	final := gq.BlockNumber()
	waitHeight(t, time.Minute, final, n.running()...)
	hashes = sameHashes(t, 0, final, n.running()...)
	_, late = checkBlocks(t, n.geth[0], final, hashes, n.validators)
	t.Logf("heights 0..%d: same hash on the 3 running nodes, seals verified; committed after a round change: %v", final, late)
	if len(late) == 0 {
		t.Fatal("no block was committed after a round change, though proposers were down")
	}

	// A Basalt node that is no validator syncs the mixed chain from
	// scratch from a GoQuorum node alone, verifying every block.
	observer := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+n.genesis, "--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT")
	var added bool
	observer.MustCall(&added, "admin_addPeer", n.geth[0].enode())
	top = gq.BlockNumber()
	waitHeight(t, 2*time.Minute, top, observer)
	sameHashes(t, 0, top, gq, observer)
	t.Logf("a Basalt non-validator synced heights 0..%d from GoQuorum alone, same hashes", top)
	n.checkGethLogs()
}

// lateMessage tells whether a GoQuorum log line is about a message for a
// height it has finished (msg.sequence below current.sequence). GoQuorum
// checks a message's signer against the current validator set before it
// drops old messages, so the last commit of a validator voted out at the
// height before is logged as "invalid message signature" when it arrives
// after that height was committed: late, not wrong.
func lateMessage(line string) bool {
	field := func(name string) (uint64, bool) {
		i := strings.Index(line, " "+name+"=")
		if i < 0 {
			return 0, false
		}
		v := line[i+len(name)+2:]
		if j := strings.IndexByte(v, ' '); j >= 0 {
			v = v[:j]
		}
		n, err := strconv.ParseUint(v, 10, 64)
		return n, err == nil
	}
	cur, ok1 := field("current.sequence")
	msg, ok2 := field("msg.sequence")
	return ok1 && ok2 && msg < cur
}

// gethRejections are what GoQuorum 24.4.1 logs when it refuses a QBFT
// message or a block (consensus/istanbul/qbft/core, core/blockchain.go).
var gethRejections = []string{
	"QBFT: invalid message", // undecodable, bad signature, signer not a validator
	"QBFT: invalid PRE-PREPARE",
	"QBFT: ignore PRE-PREPARE message from non proposer",
	"QBFT: invalid PREPARE message digest",
	"QBFT: invalid COMMIT message digest",
	"QBFT: failed to add ROUND-CHANGE",
	"BAD BLOCK",
}
