package bftload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
	"github.com/basaltchain/basalt/testsupport/txload"
)

const chainID = 2018 // bftnet's genesis

// loadOptions are the node options of the scenarios: a pool and batch
// size for the benchmarks' 500 tx/s.
var loadOptions = []string{"--tx-pool-max-size=100000"}

// requestTimeout is the validators' requesttimeoutseconds: 1 in the tests
// (a stopped proposer costs a second); the benchmarks set -load.timeout,
// since at 500 tx/s on a small machine a block takes longer than that to
// build and verify.
var requestTimeout = 1

// patience bounds each wait for blocks; the benchmarks triple it.
var patience = 60 * time.Second

// prefix is the RPC method prefix of engine's validator methods.
func prefix(engine string) string {
	if engine == "qbft" {
		return "qbft"
	}
	return "ibft"
}

func validators(t testing.TB, engine string, n *testnode.P2PNode) []common.Address {
	t.Helper()
	var v []common.Address
	n.MustCall(&v, prefix(engine)+"_getValidatorsByBlockNumber", "latest")
	return v
}

// vote makes each of voters propose adding (or dropping) a, or, with
// discard, withdraw their vote on a.
func vote(t testing.TB, engine string, a common.Address, add, discard bool, voters ...*testnode.P2PNode) {
	t.Helper()
	for _, n := range voters {
		var ok bool
		if discard {
			n.MustCall(&ok, prefix(engine)+"_discardValidatorVote", a)
			continue
		}
		n.MustCall(&ok, prefix(engine)+"_proposeValidatorVote", a, add)
		if !ok {
			t.Fatal("proposeValidatorVote returned false")
		}
	}
}

// TestVoteValidatorChangesUnderLoad: 4 validators and a fifth node, under
// a steady stream of transfers. A majority's votes
// (*_proposeValidatorVote) add the fifth node, which then takes part (5
// validators need 4 commit seals); a majority then votes the last
// validator out, which stays up as a follower and seals nothing more. On
// QBFT and IBFT 2.0.
func TestVoteValidatorChangesUnderLoad(t *testing.T) {
	for _, engine := range bftnet.Engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			voteChanges(t, engine, 4, *rate)
		})
	}
}

// quorum is the commit seals a block of count BFT validators needs.
func quorum(count int) int { return (2*count + 2) / 3 }

// voteChanges runs TestVoteValidatorChangesUnderLoad's scenario on count
// validators of engine with rate transfers per second.
func voteChanges(t testing.TB, engine string, count, rate int) txload.Figures {
	senders := txload.Senders("vote-"+engine, txload.SendersFor(rate))
	net := bftnet.GenerateEngine(t, engine, count, requestTimeout, txload.Alloc(senders))
	net.Start(loadOptions...)
	n := net.Nodes
	bftnet.WaitHeight(t, patience, 2, n...)

	key, _ := crypto.GenerateKey()
	newcomer := crypto.PubkeyToAddress(key.PublicKey)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(key))), 0o600); err != nil {
		t.Fatal(err)
	}
	e := testnode.StartP2P(t, t.TempDir(), append([]string{"--genesis-file=" + net.Genesis, "--node-private-key-file=" + keyFile,
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,TXPOOL," + net.APIGroups()}, loadOptions...)...)
	all := append(slices.Clone(n), e)
	testnode.Connect(t, all...)
	first := bftnet.Head(t, all...)
	load := txload.Start(chainID, senders, rate, all...)
	defer load.Stop()
	bftnet.WaitHeight(t, patience, first+3, all...)

	voters := n[:count/2+1] // a majority of count
	vote(t, engine, newcomer, true, false, voters...)
	var added uint64
	testnode.WaitFor(t, patience, "new validator voted in", func() bool {
		added = n[0].BlockNumber()
		return slices.Contains(validators(t, engine, n[0]), newcomer)
	})
	vote(t, engine, newcomer, false, true, voters...)
	const span = 8 // blocks checked after each change
	bftnet.WaitHeight(t, patience, added+span, all...)
	took := false
	for h := added + 2; h <= added+span; h++ {
		hdr := bftnet.Header(t, n[0], h)
		seals := net.Sealers(t, hdr)
		if len(seals) < quorum(count+1) {
			t.Fatalf("block %d: %d seals, %d needed of %d validators", h, len(seals), quorum(count+1), count+1)
		}
		took = took || hdr.Coinbase == newcomer || slices.Contains(seals, newcomer)
	}
	if !took {
		t.Fatalf("voted-in validator %s neither proposed nor sealed blocks %d..%d", newcomer, added+2, added+span)
	}
	addRC := net.RoundChanges(t, n[0], added+1, added+span)
	addRounds := net.Rounds(t, n[0], added+1, added+span, net.Name("new"))

	// Node i runs on key i. A majority of count+1, the newcomer among
	// them, votes the last validator out.
	gone := net.Addrs[count-1]
	voters = append(slices.Clone(n[:(count+1)/2]), e)
	vote(t, engine, gone, false, false, voters...)
	var removed uint64
	testnode.WaitFor(t, patience, "a validator voted out", func() bool {
		removed = n[0].BlockNumber()
		v := validators(t, engine, n[0])
		return len(v) == count && !slices.Contains(v, gone)
	})
	vote(t, engine, gone, false, true, voters...)
	bftnet.WaitHeight(t, patience, removed+span, all...)
	for h := removed + 2; h <= removed+span; h++ {
		if seals := net.Sealers(t, bftnet.Header(t, n[0], h)); slices.Contains(seals, gone) || len(seals) < quorum(count) {
			t.Fatalf("block %d sealed by %v: want %d of the %d remaining, not removed %s", h, seals, quorum(count), count, gone)
		}
	}
	removeRC := net.RoundChanges(t, n[0], removed+1, removed+span)
	removeRounds := net.Rounds(t, n[0], removed+1, removed+span, net.Name("new"))

	load.Stop()
	fig := load.Check(t, n[0].Node, 120*time.Second)
	bftnet.WaitHeight(t, patience, bftnet.Head(t, all...), all...)
	low := bftnet.SameChain(t, all...)
	if fig.Acknowledged == 0 {
		t.Fatal("no transfer acknowledged")
	}
	t.Logf("%s votes on %d validators, %d tx/s offered: validator voted in by block %d (%d of the next %d blocks at a round above 0: %s), one out by block %d (%d of the next %d: %s); blocks %d..%d (%d produced), one chain on all %d nodes; %s",
		engine, count, rate, added, addRC, span, addRounds, removed, removeRC, span, removeRounds, first, low, low-first, count+1, fig)
	return fig
}

// TestRestartAllValidators: under a steady stream of transfers, all 4
// validators are killed at once (SIGKILL: a site's power cut, every
// process dies mid-round) and started again. Production is back, at
// round 0, within a few blocks; no acknowledged transfer is lost (each
// node journals what it acknowledged); one chain. On QBFT and IBFT 2.0.
func TestRestartAllValidators(t *testing.T) {
	for _, engine := range bftnet.Engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			restartAll(t, engine, 4, *rate)
		})
	}
}

// restartAll runs TestRestartAllValidators' scenario on count validators
// of engine with rate transfers per second.
func restartAll(t testing.TB, engine string, count, rate int) txload.Figures {
	senders := txload.Senders("restart-"+engine, txload.SendersFor(rate))
	net := bftnet.GenerateEngine(t, engine, count, requestTimeout, txload.Alloc(senders))
	net.Start(loadOptions...)
	n := net.Nodes
	bftnet.WaitHeight(t, patience, 2, n...)
	first := bftnet.Head(t, n...)
	load := txload.Start(chainID, senders, rate, n...)
	defer load.Stop()
	bftnet.WaitHeight(t, patience, first+5, n...)

	// Transfers are still sent during the outage: no node answers, so
	// each is offered again until one does.
	load.SetTargets()
	for _, v := range n {
		v.Stop(syscall.SIGKILL)
	}
	var before uint64
	for _, v := range n {
		v.RestartAfter(syscall.SIGKILL) // already dead: starts it again
		before = max(before, v.BlockNumber())
	}
	testnode.Connect(t, n...)
	load.SetTargets(n...)
	const within = 5
	bftnet.WaitHeight(t, 120*time.Second, before+within, n...)
	firstNormal := uint64(0)
	for h := before + 1; h <= before+within; h++ {
		if net.Round(t, bftnet.Header(t, n[0], h)) == 0 {
			firstNormal = h
			break
		}
	}
	if firstNormal == 0 {
		t.Fatalf("blocks %d..%d after the restart all committed after round changes: production not back to normal", before+1, before+within)
	}
	bftnet.WaitHeight(t, patience, bftnet.Head(t, n...)+3, n...)

	load.Stop()
	fig := load.Check(t, n[0].Node, 120*time.Second)
	bftnet.WaitHeight(t, patience, bftnet.Head(t, n...), n...)
	low := bftnet.SameChain(t, n...)
	if fig.Acknowledged == 0 {
		t.Fatal("no transfer acknowledged")
	}
	t.Logf("%s all %d validators killed and restarted at height %d, %d tx/s offered: first block at round 0 is %d (recovery: %d blocks after round changes); blocks %d..%d (%d produced), one chain; %s",
		engine, count, before, rate, firstNormal, firstNormal-before-1, first, low, low-first, fig)
	return fig
}

// emptyPeriod is the emptyblockperiodseconds of TestEmptyBlockPeriodFresh.
const emptyPeriod = 3

// TestEmptyBlockPeriodFresh: a fresh network (genesis timestamp now) with
// 1 s blocks and emptyblockperiodseconds 3 (besu#10917: block 1 failed and
// the network starved). On QBFT block 1 is made with no transaction in
// sight, after the empty-block period; on IBFT 2.0 transfers flow from the
// start, so block 1 carries them at the block period. Then a steady
// stream: blocks holding transfers follow the 1 s period; once it stops,
// empty blocks are at least 3 s apart and keep coming (no starvation);
// every acknowledged transfer mined exactly once, one chain.
func TestEmptyBlockPeriodFresh(t *testing.T) {
	for _, engine := range bftnet.Engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			emptyBlocksFresh(t, engine, 4, *rate)
		})
	}
}

// emptyBlocksFresh runs TestEmptyBlockPeriodFresh's scenario on count
// validators of engine with rate transfers per second.
func emptyBlocksFresh(t testing.TB, engine string, count, rate int) txload.Figures {
	senders := txload.Senders("empty-"+engine, txload.SendersFor(rate))
	net := bftnet.GenerateEngine(t, engine, count, max(requestTimeout, 2), txload.Alloc(senders))
	var g map[string]any
	raw, err := os.ReadFile(net.Genesis)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	genesisTime := uint64(time.Now().Unix())
	g["timestamp"] = hexutil.EncodeUint64(genesisTime)
	g["config"].(map[string]any)[engine].(map[string]any)["emptyblockperiodseconds"] = emptyPeriod
	if raw, err = json.Marshal(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(net.Genesis, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	busyStart := engine == "ibft2"
	net.Start(loadOptions...)
	n := net.Nodes
	var load *txload.Stream
	if busyStart {
		load = txload.Start(chainID, senders, rate, n...)
		defer load.Stop()
	}
	bftnet.WaitHeight(t, patience, 1, n...)
	type block struct {
		Timestamp    hexutil.Uint64 `json:"timestamp"`
		Transactions []common.Hash  `json:"transactions"`
	}
	get := func(h uint64) block {
		var b block
		n[0].MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(h), false)
		return b
	}
	b1 := get(1)
	switch {
	case !busyStart && (len(b1.Transactions) != 0 || uint64(b1.Timestamp) < genesisTime+emptyPeriod):
		t.Fatalf("block 1 (no transaction sent): %d transactions, %d s after genesis; want empty, at least %d s", len(b1.Transactions), uint64(b1.Timestamp)-genesisTime, emptyPeriod)
	case busyStart && len(b1.Transactions) == 0 && uint64(b1.Timestamp) < genesisTime+emptyPeriod:
		t.Fatalf("block 1 empty %d s after genesis, before the empty-block period", uint64(b1.Timestamp)-genesisTime)
	}
	if !busyStart {
		bftnet.WaitHeight(t, patience, 3, n...)
		load = txload.Start(chainID, senders, rate, n...)
		defer load.Stop()
	}
	busyFrom := bftnet.Head(t, n...)
	bftnet.WaitHeight(t, patience, busyFrom+6, n...)
	load.Stop()
	fig := load.Check(t, n[0].Node, 120*time.Second)
	idleFrom := bftnet.Head(t, n...)
	// Idle again: empty blocks keep coming, emptyPeriod apart.
	bftnet.WaitHeight(t, patience, idleFrom+3, n...)
	low := bftnet.SameChain(t, n...)
	empty, full := 0, 0
	for h := uint64(2); h <= low; h++ {
		b, parent := get(h), get(h-1)
		gap := uint64(b.Timestamp) - uint64(parent.Timestamp)
		if len(b.Transactions) == 0 {
			empty++
			// The empty-block wait is round 0's: after a round
			// change the new proposer proposes at once.
			if gap < emptyPeriod && net.Round(t, bftnet.Header(t, n[0], h)) == 0 {
				t.Fatalf("empty block %d %d s after its parent, emptyblockperiodseconds is %d", h, gap, emptyPeriod)
			}
			continue
		}
		full++
		if gap < 1 {
			t.Fatalf("block %d %d s after its parent, blockperiodseconds is 1", h, gap)
		}
	}
	if fig.Acknowledged == 0 || full == 0 {
		t.Fatalf("%d transfers acknowledged, %d blocks with transfers", fig.Acknowledged, full)
	}
	t.Logf("%s fresh network of %d validators with emptyblockperiodseconds %d (block 1: %d transactions, %d s after genesis), %d tx/s offered: blocks 1..%d (%d with transfers, %d empty after block 1), one chain; %s",
		engine, count, emptyPeriod, len(b1.Transactions), uint64(b1.Timestamp)-genesisTime, rate, low, full, empty, fig)
	return fig
}
