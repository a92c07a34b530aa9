package clique

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// testNet is a chain of headers on a genesis listing some signers, and an
// engine (with the key of one of them, or none) verifying it.
type testNet struct {
	t      testing.TB
	acc    *accounts
	chain  *fakeChain
	engine *Engine
	clock  *consensus.ManualClock
	cfg    Config
}

func newTestNet(t testing.TB, cfg Config, self string, signers ...string) *testNet {
	t.Helper()
	acc := newAccounts()
	genesis := genesisHeader(acc.addresses(signers...))
	n := &testNet{t: t, acc: acc, chain: newFakeChain(genesis), cfg: cfg, clock: manualClock(genesisTime + 1_000_000)}
	opts := Options{Clock: n.clock, DB: rawdb.NewMemoryDatabase(), Rand: func(max int64) int64 { return max / 2 }}
	if self != "" {
		opts.Key = acc.key(self)
	}
	n.engine = New(cfg, opts)
	return n
}

// next builds the child of the head described by b, with the difficulty
// the rules give b's signer.
func (n *testNet) next(b block) *types.Header {
	n.t.Helper()
	head := n.chain.CurrentHeader()
	snap, err := n.engine.snapshot(n.chain, head.Number.Uint64(), head.Hash())
	if err != nil {
		n.t.Fatal(err)
	}
	return makeHeader(n.t, n.acc, head, b, snap, n.cfg.Period)
}

// extend verifies and appends blocks signed in turn by signers.
func (n *testNet) extend(signers ...string) {
	n.t.Helper()
	for _, s := range signers {
		h := n.next(block{signer: s})
		n.verify(h)
		n.chain.add(h)
	}
}

func (n *testNet) verify(h *types.Header) {
	n.t.Helper()
	if err := n.engine.VerifyHeader(n.chain, h, n.chain.GetHeaderByHash(h.ParentHash), true); err != nil {
		n.t.Fatalf("block %d: %v", h.Number, err)
	}
}

func (n *testNet) verifyErr(h *types.Header) error {
	return n.engine.VerifyHeader(n.chain, h, n.chain.GetHeaderByHash(h.ParentHash), true)
}

var defaultCfg = Config{Period: 1, Epoch: 30000, CreateEmptyBlocks: true}

// The order of the sorted signers, by name, so tests know whose turn it is.
func (n *testNet) turnOrder(names ...string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b string) int {
		x, y := n.acc.address(a), n.acc.address(b)
		return x.Cmp(y)
	})
	return out
}

// Header rules, each broken once on an otherwise valid block: the state
// machine refuses it with the rule's error.
func TestVerifyHeaderRules(t *testing.T) {
	n := newTestNet(t, Config{Period: 1, Epoch: 4, CreateEmptyBlocks: true}, "", "A", "B", "C")
	order := n.turnOrder("A", "B", "C")
	inTurn := func(number uint64) string { return order[number%3] }
	n.extend(inTurn(1), inTurn(2))
	head := n.chain.CurrentHeader() // block 2; block 3 is next, block 4 a checkpoint

	resign := func(h *types.Header, who string) *types.Header {
		s, err := SignHeader(h, n.acc.key(who))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := func() *types.Header { return n.next(block{signer: inTurn(3)}) }
	if err := n.verifyErr(good()); err != nil {
		t.Fatalf("valid block: %v", err)
	}

	for _, tc := range []struct {
		name string
		h    func() *types.Header
		want error
	}{
		{"wrong difficulty", func() *types.Header {
			h := good()
			h.Difficulty = big.NewInt(1) // in turn: 2
			return resign(h, inTurn(3))
		}, consensus.ErrInvalidDifficulty},
		{"difficulty neither 1 nor 2", func() *types.Header {
			h := good()
			h.Difficulty = big.NewInt(3)
			return resign(h, inTurn(3))
		}, consensus.ErrInvalidDifficulty},
		{"seal by another key", func() *types.Header { return resign(good(), "D") }, ErrUnauthorizedSigner},
		{"seal not a signature", func() *types.Header {
			h := good()
			h.Extra[len(h.Extra)-1] = 7 // recovery id must be 0 or 1
			return h
		}, ErrBadSeal},
		{"no seal", func() *types.Header {
			h := good()
			clear(h.Extra[len(h.Extra)-SealLength:])
			return h
		}, ErrMissingSeal},
		{"tampered after sealing", func() *types.Header {
			h := good()
			h.GasLimit-- // the signature now recovers some other address
			return h
		}, ErrUnauthorizedSigner},
		{"unauthorised signer", func() *types.Header { return n.next(block{signer: "D"}) }, ErrUnauthorizedSigner},
		{"signed the parent", func() *types.Header { return n.next(block{signer: inTurn(2)}) }, ErrRecentlySigned},
		{"sooner than the period", func() *types.Header {
			h := good()
			h.Time = head.Time
			return resign(h, inTurn(3))
		}, consensus.ErrInvalidTimestamp},
		{"signer list off a checkpoint", func() *types.Header {
			h := good()
			h.Extra = Extra{Signers: n.acc.addresses("A", "B", "C")}.Encode()
			return resign(h, inTurn(3))
		}, errSignersOffEpoch},
		{"nonce neither add nor drop", func() *types.Header {
			h := good()
			h.Nonce = types.EncodeNonce(1)
			return resign(h, inTurn(3))
		}, ErrInvalidVote},
		{"mix digest", func() *types.Header {
			h := good()
			h.MixDigest = common.Hash{1}
			return resign(h, inTurn(3))
		}, consensus.ErrInvalidMixDigest},
		{"ommers", func() *types.Header {
			h := good()
			h.UncleHash = common.Hash{1}
			return resign(h, inTurn(3))
		}, consensus.ErrUnexpectedUncles},
		{"extraData too short", func() *types.Header {
			h := good()
			h.Extra = h.Extra[:90]
			return h
		}, ErrExtraTooShort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := n.verifyErr(tc.h()); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}

	// Block 4 is a checkpoint: it must list the signers and carry no vote.
	n.extend(inTurn(3))
	t.Run("checkpoint without signers", func(t *testing.T) {
		if err := n.verifyErr(n.next(block{signer: inTurn(4)})); !errors.Is(err, errCheckpointSigners) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("checkpoint with wrong signers", func(t *testing.T) {
		h := n.next(block{signer: inTurn(4), checkpoint: []string{"A", "B"}})
		if err := n.verifyErr(h); !errors.Is(err, errCheckpointSigners) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("vote on a checkpoint", func(t *testing.T) {
		h := n.next(block{signer: inTurn(4), checkpoint: []string{"A", "B", "C"}, voted: "D", auth: true})
		if err := n.verifyErr(h); !errors.Is(err, errCheckpointVote) {
			t.Fatalf("error %v", err)
		}
	})
	n.chain.add(n.next(block{signer: inTurn(4), checkpoint: []string{"A", "B", "C"}}))
	n.verify(n.chain.CurrentHeader())
}

// A timestamp more than 10 s ahead of the local clock is refused (Besu's
// drift), one 10 s ahead accepted; the clock is the engine's input.
func TestFutureTimestamp(t *testing.T) {
	n := newTestNet(t, defaultCfg, "", "A")
	now := int64(genesisTime + 100)
	n.clock = manualClock(uint64(now))
	n.engine = New(defaultCfg, Options{Clock: n.clock})
	for _, tc := range []struct {
		ahead int64
		ok    bool
	}{{10, true}, {11, false}} {
		h := n.next(block{signer: "A"})
		h.Time = uint64(now + tc.ahead)
		h, _ = SignHeader(h, n.acc.key("A"))
		err := n.verifyErr(h)
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, consensus.ErrFutureBlock)) {
			t.Fatalf("%d s ahead: %v", tc.ahead, err)
		}
	}
	// Time passes: the same block becomes acceptable.
	n.clock.Advance(time.Second)
	h := n.next(block{signer: "A"})
	h.Time = uint64(now + 11)
	h, _ = SignHeader(h, n.acc.key("A"))
	n.verify(h)
}

// With createemptyblocks false, a block without transactions is neither
// sealed (the loop retries in a second) nor accepted.
func TestNoEmptyBlocks(t *testing.T) {
	cfg := Config{Period: 1, Epoch: 30000, CreateEmptyBlocks: false}
	n := newTestNet(t, cfg, "A", "A")
	if err := n.verifyErr(n.next(block{signer: "A"})); !errors.Is(err, errEmptyBlock) {
		t.Fatalf("empty block: %v", err)
	}
	n.verify(n.next(block{signer: "A", txs: true}))

	h := &types.Header{ParentHash: n.chain.CurrentHeader().Hash(), Number: big.NewInt(1), TxHash: types.EmptyTxsHash,
		Extra: make([]byte, VanityLength+SealLength)}
	_, err := n.engine.Seal(context.Background(), h)
	var cs *consensus.CannotSealError
	if !errors.As(err, &cs) || cs.Reason != ReasonNoTransactions || cs.Retry != time.Second {
		t.Fatalf("sealing an empty block: %v", err)
	}
}

// Prepare fills the Clique fields; Seal signs; the result verifies and its
// author is the node's signer.
func TestPrepareSealVerify(t *testing.T) {
	n := newTestNet(t, Config{Period: 5, Epoch: 3, CreateEmptyBlocks: true}, "A", "A", "B")
	order := n.turnOrder("A", "B")
	build := func() *types.Header {
		parent := n.chain.CurrentHeader()
		h := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1),
			GasLimit: parent.GasLimit, Time: parent.Time + 1, Extra: []byte("basalt"), UncleHash: types.EmptyUncleHash,
			TxHash: types.EmptyTxsHash, ReceiptHash: types.EmptyReceiptsHash, Root: parent.Root, BaseFee: parent.BaseFee,
			Coinbase: common.Address{9}}
		if err := n.engine.Prepare(n.chain, h, parent); err != nil {
			t.Fatal(err)
		}
		h.BaseFee = n.next(block{signer: "A"}).BaseFee
		return h
	}
	h := build() // block 1
	parent := n.chain.CurrentHeader()
	ex, err := ParseExtra(h.Extra)
	if err != nil {
		t.Fatal(err)
	}
	wantDiff := DiffNoTurn
	if order[1] == "A" {
		wantDiff = DiffInTurn
	}
	if h.Time != parent.Time+5 || h.Coinbase != (common.Address{}) || h.Nonce != nonceDropVote ||
		ex.Vanity != Vanity([]byte("basalt")) || len(ex.Signers) != 0 || ex.Sealed() || h.Difficulty.Cmp(wantDiff) != 0 {
		t.Fatalf("prepared header %+v, extra %+v", h, ex)
	}
	if a, err := n.engine.Author(h); err != nil || a != n.acc.address("A") {
		t.Fatalf("author of the header being built: %v %v", a, err)
	}
	sealed, err := n.engine.Seal(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	n.verify(sealed)
	if a, err := n.engine.Author(sealed); err != nil || a != n.acc.address("A") {
		t.Fatalf("author %v %v", a, err)
	}
	n.chain.add(sealed)

	// Block 3 is a checkpoint: Prepare lists the signers and casts no vote.
	n.extend("B")
	n.engine.Propose(n.acc.address("C"), true)
	h = build()
	if ex, _ := ParseExtra(h.Extra); !slices.Equal(ex.Signers, n.acc.addresses("A", "B")) || h.Coinbase != (common.Address{}) {
		t.Fatalf("checkpoint: signers %v, coinbase %x", ex.Signers, h.Coinbase)
	}
	sealed, err = n.engine.Seal(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	n.verify(sealed)
}

// The vote of a block comes from the node's proposals, only while it
// would change the tally, rotating among several.
func TestPrepareVotes(t *testing.T) {
	n := newTestNet(t, Config{Period: 1, Epoch: 30000, CreateEmptyBlocks: true}, "A", "A", "B", "C")
	prepare := func() *types.Header {
		parent := n.chain.CurrentHeader()
		h := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1), Time: parent.Time + 1}
		if err := n.engine.Prepare(n.chain, h, parent); err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := prepare(); h.Coinbase != (common.Address{}) {
		t.Fatal("vote without a proposal")
	}
	n.engine.Propose(n.acc.address("D"), true)
	n.engine.Propose(n.acc.address("B"), false)
	n.engine.Propose(n.acc.address("C"), true) // already a signer: no vote
	seen := map[common.Address]types.BlockNonce{}
	for range 4 {
		h := prepare()
		seen[h.Coinbase] = h.Nonce
	}
	if len(seen) != 2 || seen[n.acc.address("D")] != nonceAuthVote || seen[n.acc.address("B")] != nonceDropVote {
		t.Fatalf("votes %v", seen)
	}
	if p := n.engine.Proposals(); len(p) != 3 || !p[n.acc.address("D")] || p[n.acc.address("B")] {
		t.Fatalf("proposals %v", p)
	}
	n.engine.Discard(n.acc.address("D"))
	n.engine.Discard(n.acc.address("B"))
	if h := prepare(); h.Coinbase != (common.Address{}) {
		t.Fatal("vote after discarding every useful proposal")
	}
	// Once A's add vote for D is in the chain, A does not cast it again.
	n.engine.Propose(n.acc.address("D"), true)
	n.chain.add(n.next(block{signer: "A", voted: "D", auth: true}))
	if h := prepare(); h.Coinbase != (common.Address{}) {
		t.Fatalf("repeated vote for %x", h.Coinbase)
	}
}

// NextSeal: the in-turn signer seals a period after the parent, the others
// after a random delay drawn once per parent; a signer that sealed the
// parent, and a key that is no signer, may not seal.
func TestNextSeal(t *testing.T) {
	n := newTestNet(t, defaultCfg, "", "A", "B", "C")
	order := n.turnOrder("A", "B", "C")
	n.extend(order[1]) // block 1, in turn
	parent := n.chain.CurrentHeader()
	base := time.Unix(int64(parent.Time+1), 0)
	now := base.Add(-500 * time.Millisecond)

	draws := 0
	engineOf := func(name string) *Engine {
		return New(defaultCfg, Options{Key: n.acc.key(name), Rand: func(max int64) int64 {
			draws++
			if max != 1250 { // (3/2+1)*500, Besu's bound for 3 signers
				t.Fatalf("delay bound %d", max)
			}
			return 99
		}})
	}
	if at, err := engineOf(order[2]).NextSeal(n.chain, parent, now); err != nil || !at.Equal(base) {
		t.Fatalf("in turn: %v %v, want %v", at, err, base)
	}
	out := engineOf(order[0])
	at, err := out.NextSeal(n.chain, parent, now)
	if err != nil || !at.Equal(base.Add(100*time.Millisecond)) {
		t.Fatalf("out of turn: %v %v", at, err)
	}
	again, _ := out.NextSeal(n.chain, parent, now.Add(2*time.Second))
	if !again.Equal(at) || draws != 1 {
		t.Fatalf("second plan %v (draws %d), want the first %v", again, draws, at)
	}
	// Late (a node that just started): the delay counts from now.
	late := engineOf(order[0])
	if at, _ := late.NextSeal(n.chain, parent, base.Add(3*time.Second)); !at.Equal(base.Add(3*time.Second + 100*time.Millisecond)) {
		t.Fatalf("late out-of-turn plan %v", at)
	}

	var cs *consensus.CannotSealError
	if _, err := engineOf(order[1]).NextSeal(n.chain, parent, now); !errors.As(err, &cs) || cs.Reason != consensus.ReasonNotMyTurn {
		t.Fatalf("signer of the parent: %v", err)
	}
	if _, err := engineOf("D").NextSeal(n.chain, parent, now); !errors.As(err, &cs) || cs.Reason != consensus.ReasonNotAuthorised {
		t.Fatalf("not a signer: %v", err)
	}
	if _, err := New(defaultCfg, Options{}).NextSeal(n.chain, parent, now); !errors.As(err, &cs) || cs.Reason != consensus.ReasonNotAuthorised {
		t.Fatalf("no key: %v", err)
	}
	if _, ok := New(defaultCfg, Options{}).SealerAddress(); ok {
		t.Fatal("an engine without a key claims a sealer address")
	}
	// Seal refuses a recent signer as well, once it knows the parent.
	h := n.next(block{signer: order[1]})
	if _, err := engineOf(order[1]).Seal(context.Background(), h); err != nil {
		t.Fatalf("seal before the engine knows the parent: %v", err)
	}
	e := engineOf(order[1])
	e.NextSeal(n.chain, parent, now)
	if _, err := e.Seal(context.Background(), h); !errors.As(err, &cs) || cs.Reason != consensus.ReasonNotMyTurn {
		t.Fatalf("seal by the parent's signer: %v", err)
	}
}

// Snapshots are persisted every 1,024 blocks: an engine started on the
// database of another rebuilds the head's state from the latest one,
// reading fewer than 1,024 headers instead of the whole chain.
func TestSnapshotPersisted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 2,100 blocks")
	}
	n := newTestNet(t, defaultCfg, "", "A")
	for range 2100 {
		h := n.next(block{signer: "A"})
		n.verify(h)
		n.chain.add(h)
	}
	head := n.chain.CurrentHeader()
	fresh := New(defaultCfg, Options{DB: n.engine.db})
	before := n.chain.headerReads()
	snap, err := fresh.snapshot(n.chain, head.Number.Uint64(), head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if reads := n.chain.headerReads() - before; reads != 2100-2048 {
		t.Fatalf("rebuilt from %d headers, want %d", reads, 2100-2048)
	}
	if snap.Number != 2100 || !slices.Equal(snap.Signers, n.acc.addresses("A")) {
		t.Fatalf("snapshot %+v", snap)
	}
	// Without a database, the whole chain is replayed.
	memOnly := New(defaultCfg, Options{})
	before = n.chain.headerReads()
	if _, err := memOnly.snapshot(n.chain, head.Number.Uint64(), head.Hash()); err != nil {
		t.Fatal(err)
	}
	if reads := n.chain.headerReads() - before; reads != 2101 {
		t.Fatalf("memory-only engine read %d headers", reads)
	}
}

// Ties of total difficulty go to the lower block, then to the signer
// nearer its turn, then to the lower hash (EIP-3436, as Besu).
func TestPreferHead(t *testing.T) {
	n := newTestNet(t, defaultCfg, "", "A", "B", "C")
	order := n.turnOrder("A", "B", "C")
	n.extend(order[1])
	// Two out-of-turn siblings of block 2 (in turn: order[2]).
	x := n.next(block{signer: order[0]})
	y := n.next(block{signer: order[1]})
	_ = y // order[1] signed block 1: recency forbids y, so build another
	y = n.next(block{signer: order[0], voted: "D", auth: true})
	e := n.engine
	dx, _ := e.distanceFromInTurn(n.chain, x)
	dy, _ := e.distanceFromInTurn(n.chain, y)
	if dx != dy {
		t.Fatalf("same signer, distances %d %d", dx, dy)
	}
	xh, yh := x.Hash(), y.Hash()
	lowerIsX := xh.Cmp(yh) < 0
	if e.PreferHead(n.chain, x, y) != lowerIsX || e.PreferHead(n.chain, y, x) == lowerIsX {
		t.Fatal("hash tie-break not the lower hash")
	}
	// A lower block wins over a higher one of equal weight.
	n.chain.add(x)
	z := n.next(block{signer: order[2]})
	if !e.PreferHead(n.chain, x, z) || e.PreferHead(n.chain, z, x) {
		t.Fatal("lower block does not win")
	}
}

// The seal hash leaves out the fields of Shanghai and later forks, as
// Besu's does.
func TestSealHashIgnoresLaterForkFields(t *testing.T) {
	acc := newAccounts()
	h := makeHeader(t, acc, genesisHeader(acc.addresses("A")), block{signer: "A"}, nil, 1)
	want := SealHash(h)
	root, used, excess := types.EmptyWithdrawalsHash, uint64(0), uint64(0)
	h.WithdrawalsHash, h.BlobGasUsed, h.ExcessBlobGas = &root, &used, &excess
	h.ParentBeaconRoot, h.RequestsHash = &common.Hash{1}, &common.Hash{2}
	if got := SealHash(h); got != want {
		t.Fatalf("seal hash changed with later fork fields: %x vs %x", got, want)
	}
	if a, err := recoverSigner(h); err != nil || a != acc.address("A") {
		t.Fatalf("signer %v %v", a, err)
	}
}
