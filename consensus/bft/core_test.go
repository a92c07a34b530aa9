package bft

import (
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

func TestQuorum(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 4, 6: 4, 7: 5, 10: 7, 30: 20} {
		if got := Quorum(n); got != want {
			t.Errorf("Quorum(%d) = %d, want %d", n, got, want)
		}
	}
	for n, want := range map[int]int{1: 0, 3: 0, 4: 1, 6: 1, 7: 2, 30: 9} {
		if got := FaultTolerance(n); got != want {
			t.Errorf("FaultTolerance(%d) = %d, want %d", n, got, want)
		}
	}
}

// Besu's ProposerSelector: after the previous proposer, advanced by the
// round; a previous proposer that is no validator counts from the next
// validator above it.
func TestProposer(t *testing.T) {
	v := []common.Address{{0x10}, {0x20}, {0x30}, {0x40}}
	cases := []struct {
		prev  common.Address
		round uint32
		want  common.Address
	}{
		{common.Address{0x10}, 0, common.Address{0x20}},
		{common.Address{0x10}, 1, common.Address{0x30}},
		{common.Address{0x40}, 0, common.Address{0x10}},
		{common.Address{0x30}, 6, common.Address{0x20}},
		{common.Address{}, 0, common.Address{0x10}},     // genesis coinbase 0x0
		{common.Address{}, 5, common.Address{0x20}},     // round 5 mod 4
		{common.Address{0x25}, 0, common.Address{0x30}}, // voted out: the next above
		{common.Address{0x50}, 1, common.Address{0x20}}, // above all: from the first
	}
	for _, c := range cases {
		if got := Proposer(v, c.prev, c.round); got != c.want {
			t.Errorf("Proposer(prev %x, round %d) = %x, want %x", c.prev[0], c.round, got[0], c.want[0])
		}
	}
}

func TestCommitsInRoundZero(t *testing.T) {
	for _, n := range []int{1, 2, 4, 7} {
		tn := newTestNet(t, n)
		tn.run()
		c := tn.agreed()
		if c.Round != 0 {
			t.Fatalf("%d validators: committed in round %d", n, c.Round)
		}
	}
}

// The round-0 timer starts when the block period is over, and only the
// proposer is asked to build.
func TestBlockTimerStartsRound(t *testing.T) {
	tn := newTestNet(t, 4)
	for _, v := range tn.vals {
		st := tn.timers[v][BlockTimer]
		if st.AtUnix != 101 {
			t.Fatalf("block timer at %d, want parent time + period", st.AtUnix)
		}
		if _, ok := tn.timers[v][RoundTimer]; ok {
			t.Fatal("round timer before the block period is over")
		}
	}
	tn.fire(BlockTimer)
	if len(tn.builds) != 1 || tn.builds[tn.vals[0]].View != (View{1, 0}) {
		t.Fatalf("builds %v", tn.builds)
	}
	if st := tn.timers[tn.vals[1]][RoundTimer]; st.Delay.Seconds() != 1 {
		t.Fatalf("round timer %v", st)
	}
}

// A sub-second period (xblockperiodmilliseconds) cannot run from the
// parent's timestamp, which is in seconds: the block timer is a delay from
// the head's arrival, and the block may carry its parent's timestamp. A
// height's period replaces the configured one.
func TestSubSecondBlockPeriod(t *testing.T) {
	tn := newTestNet(t, 4)
	for _, v := range tn.vals {
		h := tn.height(1)
		h.Sequence, h.BlockPeriod = 2, 250*time.Millisecond
		tn.builds = map[common.Address]BuildBlock{}
		tn.apply(v, tn.cores[v].NewHeight(h))
		st := tn.timers[v][BlockTimer]
		if st.AtUnix != 0 || st.Delay != 250*time.Millisecond {
			t.Fatalf("block timer %+v, want a 250ms delay", st)
		}
	}
	tn.fire(BlockTimer)
	if len(tn.builds) != 1 {
		t.Fatalf("builds %v", tn.builds)
	}
	for _, b := range tn.builds {
		if b.MinTime != 100 {
			t.Fatalf("MinTime %d, want the parent's 100", b.MinTime)
		}
	}
	// 1.5 s: still from the arrival; the timestamp at least a second on.
	h := tn.height(3)
	h.BlockPeriod = 1500 * time.Millisecond
	v := tn.vals[0]
	tn.apply(v, tn.cores[v].NewHeight(h))
	if st := tn.timers[v][BlockTimer]; st.Delay != 1500*time.Millisecond || tn.cores[v].minTime() != 101 {
		t.Fatalf("1.5 s period: timer %+v, min time %d", st, tn.cores[v].minTime())
	}
	// Whole seconds again: from the parent's timestamp.
	h = tn.height(4)
	h.BlockPeriod = 2 * time.Second
	tn.apply(v, tn.cores[v].NewHeight(h))
	if st := tn.timers[v][BlockTimer]; st.AtUnix != 102 || st.Delay != 0 {
		t.Fatalf("2 s period: timer %+v, want at 102", st)
	}
}

// A proposer that stays silent costs a round: the round-1 proposer's block
// is committed, and the round timer doubles.
func TestSilentProposer(t *testing.T) {
	tn := newTestNet(t, 4, 0)
	tn.run()
	c := tn.agreed()
	if c.Round != 1 {
		t.Fatalf("committed in round %d, want 1", c.Round)
	}
	if d := tn.timers[tn.vals[1]][RoundTimer].Delay.Seconds(); d != 2 {
		t.Fatalf("round-1 timer %vs, want 2s", d)
	}
}

// Once prepared, a block survives a round change: the next proposer
// re-proposes it (the prepared certificate rides on the round changes),
// so a block some validator may have committed is never replaced.
func TestPreparedBlockIsReproposed(t *testing.T) {
	tn := newTestNet(t, 4)
	tn.drop = func(_ common.Address, m *Message) bool { return m.Kind == KindCommit }
	tn.fire(BlockTimer)
	tn.build()
	tn.deliver()
	if len(tn.committed) != 0 {
		t.Fatal("committed without commits")
	}
	prepared, _ := fb.WithRound(tn.cores[tn.vals[1]].rs.proposal.Block, 0)
	want, _ := fb.Digest(prepared)
	tn.drop = nil
	tn.fire(RoundTimer)
	tn.deliver()
	tn.build() // a build would be a new block: there must be none
	tn.deliver()
	c := tn.agreed()
	back, _ := fb.WithRound(c.Block, 0)
	if got, _ := fb.Digest(back); got != want || c.Round != 1 {
		t.Fatalf("round %d committed another block than the prepared one", c.Round)
	}
}

// A validator far behind in rounds joins the others on f+1 round changes
// instead of climbing one timeout at a time.
func TestRoundCatchUp(t *testing.T) {
	tn := newTestNet(t, 4)
	late := tn.vals[3]
	// The others went through rounds 1..3 without late.
	for r := uint32(1); r <= 3; r++ {
		for _, v := range tn.vals[:2] {
			m := signed(&Message{Kind: KindRoundChange, View: View{1, r}, Author: v})
			acts, err := tn.cores[late].Step(m)
			if err != nil {
				t.Fatal(err)
			}
			tn.apply(late, acts)
		}
	}
	if got := tn.cores[late].View().Round; got != 3 {
		t.Fatalf("late validator in round %d, want 3", got)
	}
}

// Byzantine inputs, each rejected by every honest validator, after which
// the honest validators still commit one block.
func TestByzantineInputs(t *testing.T) {
	type env struct {
		tn       *testNet
		byz      common.Address // a Byzantine validator (not the round-0 proposer unless byzProposer)
		outsider common.Address
	}
	cases := []struct {
		name        string
		byzProposer bool // the Byzantine validator is round 0's proposer
		msgs        func(e env) []*Message
		want        error
	}{
		{
			name: "proposal from the wrong proposer",
			msgs: func(e env) []*Message {
				b := e.tn.block(0, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.byz, Digest: d, Block: b})}
			},
			want: ErrWrongProposer,
		},
		{
			name: "block with a bad state root", byzProposer: true,
			msgs: func(e env) []*Message {
				b := e.tn.block(0, badRoot, 0xee)
				d, _ := fb.Digest(b)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.byz, Digest: d, Block: b})}
			},
			want: ErrInvalidBlock,
		},
		{
			name: "proposal digest not the block's", byzProposer: true,
			msgs: func(e env) []*Message {
				b := e.tn.block(0, goodRoot, 0xee)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.byz, Digest: common.Hash{1}, Block: b})}
			},
			want: ErrInvalidDigest,
		},
		{
			name: "proposal whose header carries another round", byzProposer: true,
			msgs: func(e env) []*Message {
				b := e.tn.block(3, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.byz, Digest: d, Block: b})}
			},
			want: ErrInvalidBlock,
		},
		{
			name: "prepare from a non-validator",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindPrepare, View: View{1, 0}, Author: e.outsider, Digest: common.Hash{2}})}
			},
			want: ErrNotValidator,
		},
		{
			name: "commit from a non-validator",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindCommit, View: View{1, 0}, Author: e.outsider, Digest: common.Hash{2},
					CommitSeal: fakeSeal(e.outsider, common.Hash{2})})}
			},
			want: ErrNotValidator,
		},
		{
			name: "commit with another validator's seal",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindCommit, View: View{1, 0}, Author: e.byz, Digest: common.Hash{2},
					CommitSeal: fakeSeal(e.tn.vals[0], common.Hash{2})})}
			},
			want: ErrInvalidSeal,
		},
		{
			name: "commit with a seal over another digest",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindCommit, View: View{1, 0}, Author: e.byz, Digest: common.Hash{2},
					CommitSeal: fakeSeal(e.byz, common.Hash{3})})}
			},
			want: ErrInvalidSeal,
		},
		{
			name: "duplicated commit",
			msgs: func(e env) []*Message {
				m := signed(&Message{Kind: KindCommit, View: View{1, 0}, Author: e.byz, Digest: common.Hash{2},
					CommitSeal: fakeSeal(e.byz, common.Hash{2})})
				return []*Message{m, m}
			},
			want: ErrDuplicate,
		},
		{
			name: "duplicated prepare",
			msgs: func(e env) []*Message {
				m := signed(&Message{Kind: KindPrepare, View: View{1, 0}, Author: e.byz, Digest: common.Hash{2}})
				return []*Message{m, m}
			},
			want: ErrDuplicate,
		},
		{
			name: "prepare from the round's proposer", byzProposer: true,
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindPrepare, View: View{1, 0}, Author: e.byz, Digest: common.Hash{2}})}
			},
			want: ErrPrepareProposer,
		},
		{
			name: "message for a height beyond futuremessagesmaxdistance",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindPrepare, View: View{12, 0}, Author: e.byz})}
			},
			want: ErrTooFarAhead,
		},
		{
			name: "future messages beyond futuremessageslimit",
			msgs: func(e env) []*Message {
				var out []*Message
				for i := range 6 { // the limit is 5
					out = append(out, signed(&Message{Kind: KindPrepare, View: View{3, uint32(i)}, Author: e.byz}))
				}
				return out
			},
			want: ErrTooFarAhead,
		},
		{
			name: "message for a round too far ahead",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindPrepare, View: View{1, maxRoundLead + 1}, Author: e.byz})}
			},
			want: ErrTooFarAhead,
		},
		{
			name: "round-1 proposal without a round-change certificate",
			msgs: func(e env) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal with too few round changes",
			msgs: func(e env) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				var cert []*Message
				for _, v := range e.tn.vals[:2] {
					cert = append(cert, signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: v}))
				}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b, RoundChanges: cert})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal with one round change repeated",
			msgs: func(e env) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				rc := signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: e.tn.vals[2]})
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b,
					RoundChanges: []*Message{rc, rc, rc}})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change with a prepared certificate lacking prepares",
			msgs: func(e env) []*Message {
				b := e.tn.block(0, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				p := signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.tn.vals[0], Digest: d})
				return []*Message{signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: e.byz, Block: b,
					Prepared: &PreparedCertificate{Proposal: p}})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change whose block is not the prepared one",
			msgs: func(e env) []*Message {
				b := e.tn.block(0, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				p := signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.tn.vals[0], Digest: d})
				var prepares []*Message
				for _, v := range e.tn.vals[1:3] {
					prepares = append(prepares, signed(&Message{Kind: KindPrepare, View: View{1, 0}, Author: v, Digest: d}))
				}
				return []*Message{signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: e.byz,
					Block: e.tn.block(0, goodRoot, 0xef), Prepared: &PreparedCertificate{Proposal: p, Prepares: prepares}})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change with a block but no certificate",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: e.byz, Block: e.tn.block(0, goodRoot, 0xee)})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "message of an unknown kind",
			msgs: func(e env) []*Message {
				return []*Message{signed(&Message{Kind: 9, View: View{1, 0}, Author: e.byz})}
			},
			want: ErrUnknownKind,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			byz := 1 // round 1's proposer: its round-1 messages are the interesting ones
			if c.byzProposer {
				byz = 0
			}
			tn := newTestNet(t, 4, byz)
			e := env{tn: tn, byz: tn.vals[byz], outsider: common.Address{0xaa}}
			var last []error
			for _, m := range c.msgs(e) {
				last = tn.inject(m)
			}
			for _, err := range last {
				if !errors.Is(err, c.want) {
					t.Fatalf("verdict %v, want %v", err, c.want)
				}
			}
			tn.run()
			tn.agreed()
		})
	}
}

// Messages of the next height are kept and replayed when it starts.
func TestFutureHeightReplayed(t *testing.T) {
	tn := newTestNet(t, 4)
	c := tn.cores[tn.vals[1]]
	m := signed(&Message{Kind: KindRoundChange, View: View{2, 1}, Author: tn.vals[2]})
	if _, err := c.Step(m); err != nil {
		t.Fatal(err)
	}
	if c.Buffered() != 1 {
		t.Fatalf("buffered %d", c.Buffered())
	}
	c.NewHeight(tn.height(2))
	if c.Buffered() != 0 || len(c.roundChanges[1]) != 1 {
		t.Fatalf("not replayed: buffered %d, round changes %d", c.Buffered(), len(c.roundChanges[1]))
	}
	if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{1, 0}, Author: tn.vals[2]})); !errors.Is(err, ErrOldMessage) {
		t.Fatalf("old height: %v", err)
	}
}

// relays returns the messages acts relay.
func relays(acts []Action) []*Message {
	var out []*Message
	for _, a := range acts {
		if r, ok := a.(Relay); ok {
			out = append(out, r.Msg)
		}
	}
	return out
}

// Only a message the core accepted at its height is relayed: one by an
// outsider is rejected, one of a later height is kept without a relay and
// relayed when its height starts and it passes there.
func TestRelayOnlyAccepted(t *testing.T) {
	tn := newTestNet(t, 4)
	c := tn.cores[tn.vals[1]]
	good := signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: tn.vals[2]})
	acts, err := c.Step(good)
	if err != nil || len(relays(acts)) != 1 || relays(acts)[0] != good {
		t.Fatalf("accepted message: %v, relays %d", err, len(relays(acts)))
	}
	if _, ok := acts[0].(Relay); !ok {
		t.Fatal("the relay does not come first")
	}
	outsider := signed(&Message{Kind: KindRoundChange, View: View{1, 1}, Author: common.Address{0xaa}})
	if acts, err := c.Step(outsider); !errors.Is(err, ErrNotValidator) || len(acts) != 0 {
		t.Fatalf("outsider: %v, %d actions", err, len(acts))
	}
	ahead := signed(&Message{Kind: KindRoundChange, View: View{2, 1}, Author: tn.vals[3]})
	if acts, err := c.Step(ahead); err != nil || len(relays(acts)) != 0 {
		t.Fatalf("next height: %v, relays %d", err, len(relays(acts)))
	}
	if r := relays(c.NewHeight(tn.height(2))); len(r) != 1 || r[0] != ahead {
		t.Fatalf("replayed at its height: %d relays", len(r))
	}
}

// A message of a later height is kept only when its author is one of the
// latest validators the core knows, and each author has its share of the
// buffer (futuremessageslimit divided among the validators): one validator
// filling it leaves room for the others.
func TestFutureHeightAuthorBound(t *testing.T) {
	tn := newTestNet(t, 4) // futuremessageslimit 5: a share of 2 each
	c := tn.cores[tn.vals[0]]
	if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{2, 0}, Author: common.Address{0xaa}})); !errors.Is(err, ErrNotValidator) {
		t.Fatalf("outsider's future message: %v", err)
	}
	if c.Buffered() != 0 {
		t.Fatalf("outsider's message kept: buffered %d", c.Buffered())
	}
	flood := tn.vals[1]
	for i := range 2 {
		if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{3, uint32(i)}, Author: flood})); err != nil {
			t.Fatalf("message %d within the share: %v", i, err)
		}
	}
	for i := 2; i < 50; i++ {
		if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{2 + uint64(i%5), uint32(i)}, Author: flood})); !errors.Is(err, ErrTooFarAhead) {
			t.Fatalf("message %d beyond the share: %v", i, err)
		}
	}
	if c.Buffered() != 2 {
		t.Fatalf("buffered %d, want the flooder's share 2", c.Buffered())
	}
	// The others still get in, up to the limit, nearest heights first.
	for i, v := range tn.vals[2:] {
		if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{2, 0}, Author: v})); err != nil {
			t.Fatalf("validator %d: %v", i+2, err)
		}
	}
	if c.Buffered() != 4 {
		t.Fatalf("buffered %d, want 4", c.Buffered())
	}
	// A new height drops what is past, replays its own and recounts the
	// shares.
	c.NewHeight(tn.height(3))
	if len(c.future) != 0 || len(c.futureBy) != 0 {
		t.Fatalf("after height 3: heights %d, authors %d", len(c.future), len(c.futureBy))
	}
	if _, err := c.Step(signed(&Message{Kind: KindPrepare, View: View{4, 0}, Author: flood})); err != nil {
		t.Fatalf("the flooder's share is free again: %v", err)
	}
}
