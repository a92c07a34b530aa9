package bft

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// This file is an in-memory network of cores for the protocol tests: a
// fake backend whose "signatures" are the author's address (the codec's
// signature checks are tested with the protocol), a message queue that
// delivers every broadcast to every other validator, and explicit timer
// expiries — no clock, no goroutine.

var (
	goodRoot = common.HexToHash("0x600d")
	badRoot  = common.HexToHash("0xbad")
)

// fakeBackend keeps the round in extraData's first four bytes and
// rejects blocks whose state root is badRoot.
type fakeBackend struct{ self common.Address }

func (fakeBackend) Digest(b *types.Block) (common.Hash, error) {
	if len(b.Extra()) < 4 {
		return common.Hash{}, errors.New("no round")
	}
	return b.Header().Hash(), nil
}

func (fakeBackend) BlockRound(b *types.Block) (uint32, error) {
	if len(b.Extra()) < 4 {
		return 0, errors.New("no round")
	}
	return binary.BigEndian.Uint32(b.Extra()), nil
}

func (fakeBackend) WithRound(b *types.Block, r uint32) (*types.Block, error) {
	h := b.Header()
	h.Extra = binary.BigEndian.AppendUint32(nil, r)
	return b.WithSeal(h), nil
}

func (fakeBackend) Verify(b *types.Block) error {
	if b.Root() == badRoot {
		return errors.New("invalid state root")
	}
	return nil
}

func (fakeBackend) Sign(m *Message) error {
	m.Signed = append(m.Author.Bytes(), byte(m.Kind))
	m.Wire = m.Signed
	return nil
}

func (f fakeBackend) SealHash(b *types.Block, r uint32) (common.Hash, error) {
	b, err := f.WithRound(b, r)
	if err != nil {
		return common.Hash{}, err
	}
	return f.Digest(b)
}

func (f fakeBackend) CommitSeal(d common.Hash) ([]byte, error) { return fakeSeal(f.self, d), nil }

func (fakeBackend) SealSigner(d common.Hash, seal []byte) (common.Address, error) {
	if len(seal) != 52 || !bytes.Equal(seal[20:], d[:]) {
		return common.Address{}, errors.New("bad seal")
	}
	return common.BytesToAddress(seal[:20]), nil
}

// fb is a backend for computing digests, seals and signatures in tests.
var fb fakeBackend

func fakeSeal(a common.Address, d common.Hash) []byte { return append(a.Bytes(), d[:]...) }

type envelope struct {
	to  common.Address
	msg *Message
}

// testNet is n validators at height 1 (genesis proposer 0x0, so round r's
// proposer is validator r mod n).
type testNet struct {
	t          *testing.T
	vals       []common.Address
	cores      map[common.Address]*Core
	byzantine  map[common.Address]bool // not run; the test speaks for them
	queue      []envelope
	builds     map[common.Address]BuildBlock
	timers     map[common.Address]map[TimerKind]StartTimer
	committed  map[common.Address]CommitBlock
	rejections map[common.Address][]error
	// drop, when set, drops a broadcast message before it is queued.
	drop func(to common.Address, m *Message) bool
}

func newTestNet(t *testing.T, n int, byzantine ...int) *testNet {
	return newTestNetRules(t, IBFT2, n, byzantine...)
}

// newTestNetRules is newTestNet for the message set rules.
func newTestNetRules(t *testing.T, rules Rules, n int, byzantine ...int) *testNet {
	tn := &testNet{t: t, cores: map[common.Address]*Core{}, byzantine: map[common.Address]bool{},
		builds: map[common.Address]BuildBlock{}, timers: map[common.Address]map[TimerKind]StartTimer{},
		committed: map[common.Address]CommitBlock{}, rejections: map[common.Address][]error{}}
	for i := range n {
		tn.vals = append(tn.vals, common.BigToAddress(big.NewInt(int64(i+1))))
	}
	for _, i := range byzantine {
		tn.byzantine[tn.vals[i]] = true
	}
	for _, v := range tn.vals {
		if tn.byzantine[v] {
			continue
		}
		tn.cores[v] = New(Config{Self: v, RequestTimeout: time.Second, BlockPeriod: time.Second,
			FutureMessagesLimit: 5, FutureMessagesMaxDistance: 10, Rules: rules}, fakeBackend{v})
		tn.timers[v] = map[TimerKind]StartTimer{}
		tn.apply(v, tn.cores[v].NewHeight(tn.height(1)))
	}
	return tn
}

func (tn *testNet) height(seq uint64) Height {
	return Height{Sequence: seq, ParentTime: 100, Validators: tn.vals}
}

// block is a block for round r of height 1 with the given state root.
func (tn *testNet) block(r uint32, root common.Hash, salt byte) *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: big.NewInt(1), Root: root, Time: 101,
		Difficulty: common.Big1, Extra: binary.BigEndian.AppendUint32(nil, r), Coinbase: common.Address{salt}})
}

func (tn *testNet) apply(self common.Address, acts []Action) {
	for _, a := range acts {
		switch a := a.(type) {
		case Broadcast:
			tn.broadcast(a.Msg)
		case StartTimer:
			tn.timers[self][a.Timer.Kind] = a
		case BuildBlock:
			tn.builds[self] = a
		case CommitBlock:
			if _, dup := tn.committed[self]; dup {
				tn.t.Fatalf("%x committed twice", self[19])
			}
			tn.committed[self] = a
		}
	}
}

func (tn *testNet) broadcast(m *Message) {
	for _, v := range tn.vals {
		if v == m.Author || tn.byzantine[v] || (tn.drop != nil && tn.drop(v, m)) {
			continue
		}
		tn.queue = append(tn.queue, envelope{to: v, msg: m})
	}
}

// inject delivers m (from a Byzantine author) to every honest validator
// and returns their verdicts.
func (tn *testNet) inject(m *Message) []error {
	var errs []error
	for _, v := range tn.vals {
		if c := tn.cores[v]; c != nil && v != m.Author {
			acts, err := c.Step(m)
			errs = append(errs, err)
			tn.apply(v, acts)
		}
	}
	return errs
}

// deliver runs the queue dry.
func (tn *testNet) deliver() {
	for len(tn.queue) > 0 {
		e := tn.queue[0]
		tn.queue = tn.queue[1:]
		acts, err := tn.cores[e.to].Step(e.msg)
		if err != nil {
			tn.rejections[e.to] = append(tn.rejections[e.to], err)
		}
		tn.apply(e.to, acts)
	}
}

// fire expires every honest validator's running timer of kind.
func (tn *testNet) fire(kind TimerKind) {
	for _, v := range tn.vals {
		c := tn.cores[v]
		if c == nil {
			continue
		}
		if st, ok := tn.timers[v][kind]; ok {
			delete(tn.timers[v], kind)
			tn.apply(v, c.Timeout(st.Timer))
		}
	}
}

// build hands every outstanding BuildBlock a good block.
func (tn *testNet) build() {
	for v, b := range tn.builds {
		delete(tn.builds, v)
		tn.apply(v, tn.cores[v].Proposed(b.View, tn.block(b.View.Round, goodRoot, v[19])))
	}
}

// run drives the honest validators until all committed: block timers,
// builds, deliveries, and round timers when stuck.
func (tn *testNet) run() {
	tn.fire(BlockTimer)
	for range 20 {
		tn.build()
		tn.deliver()
		if len(tn.committed) == len(tn.cores) {
			return
		}
		tn.fire(RoundTimer)
		tn.deliver()
	}
	tn.t.Fatalf("no commit: %d of %d committed", len(tn.committed), len(tn.cores))
}

// agreed checks that every honest validator committed the same block.
func (tn *testNet) agreed() CommitBlock {
	tn.t.Helper()
	var first *CommitBlock
	for v, c := range tn.committed {
		if first == nil {
			first = &c
			continue
		}
		d1, _ := fb.Digest(first.Block)
		d2, _ := fb.Digest(c.Block)
		if d1 != d2 {
			tn.t.Fatalf("validator %x committed another block", v[19])
		}
	}
	if first == nil {
		tn.t.Fatal("nothing committed")
	}
	q := Quorum(len(tn.vals))
	if len(first.Seals) < q {
		tn.t.Fatalf("%d seals, quorum %d", len(first.Seals), q)
	}
	d, _ := fb.Digest(first.Block)
	seen := map[common.Address]bool{}
	for _, s := range first.Seals {
		a, err := fb.SealSigner(d, s)
		if err != nil || seen[a] {
			tn.t.Fatalf("bad or repeated seal in the commit")
		}
		seen[a] = true
	}
	return *first
}

// signed returns m from its author, "signed".
func signed(m *Message) *Message {
	_ = fb.Sign(m)
	return m
}

func (tn *testNet) String() string { return fmt.Sprintf("%d validators", len(tn.vals)) }
