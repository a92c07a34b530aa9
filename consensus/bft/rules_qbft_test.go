package bft

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// QBFT on the shared core: the proposer prepares too, so a round is
// prepared on a quorum of prepares, and the honest validators commit.
func TestQBFTCommitsInRoundZero(t *testing.T) {
	tn := newTestNetRules(t, QBFT, 4)
	tn.run()
	c := tn.agreed()
	if c.Round != 0 {
		t.Fatalf("committed in round %d", c.Round)
	}
}

// With one validator silent (f = 1 of 4) QBFT still commits: the
// proposer's own prepare makes up the quorum.
func TestQBFTOneSilentValidator(t *testing.T) {
	tn := newTestNetRules(t, QBFT, 4, 3)
	tn.run()
	tn.agreed()
}

// A block prepared in round 0 whose commits were lost is re-proposed in
// round 1 with the prepares that justify it, and committed.
func TestQBFTPreparedBlockIsReproposed(t *testing.T) {
	tn := newTestNetRules(t, QBFT, 4)
	tn.drop = func(_ common.Address, m *Message) bool { return m.Kind == KindCommit }
	tn.fire(BlockTimer)
	tn.build()
	tn.deliver()
	if len(tn.committed) != 0 {
		t.Fatal("committed without commits")
	}
	want, _ := fb.Digest(tn.cores[tn.vals[1]].rs.proposal.Block)
	tn.drop = nil
	var proposal *Message
	tn.drop = func(_ common.Address, m *Message) bool {
		if m.Kind == KindProposal && m.View.Round == 1 {
			proposal = m
		}
		return false
	}
	tn.fire(RoundTimer)
	tn.deliver()
	tn.build()
	tn.deliver()
	c := tn.agreed()
	back, _ := fb.WithRound(c.Block, 0)
	if got, _ := fb.Digest(back); got != want || c.Round != 1 {
		t.Fatalf("round %d committed another block than the prepared one", c.Round)
	}
	if proposal == nil || len(proposal.Prepares) < Quorum(4) || len(proposal.RoundChanges) < Quorum(4) {
		t.Fatalf("round-1 proposal without its justification: %+v", proposal)
	}
}

// qbftCase is a message a Byzantine validator sends and the verdict every
// honest validator must reach.
type qbftCase struct {
	name string
	msgs func(e qbftEnv) []*Message
	want error
}

type qbftEnv struct {
	tn  *testNet
	byz common.Address // validator 1: round 1's proposer
}

// prepares are QBFT prepares of view for digest by validators vals.
func prepares(view View, digest common.Hash, vals ...common.Address) []*Message {
	var out []*Message
	for _, v := range vals {
		out = append(out, signed(&Message{Kind: KindPrepare, View: view, Author: v, Digest: digest}))
	}
	return out
}

// roundChange is a QBFT round change for round of author, claiming
// prepared (nil: none).
func roundChange(round uint32, author common.Address, prepared *PreparedCertificate, block *types.Block) *Message {
	return signed(&Message{Kind: KindRoundChange, View: View{1, round}, Author: author, Prepared: prepared, Block: block})
}

// TestQBFTJustification covers QBFT's justification rules: each message is
// rejected by every honest validator, who then still commit one block.
func TestQBFTJustification(t *testing.T) {
	cases := []qbftCase{
		{
			name: "round-1 proposal without a round-change certificate",
			msgs: func(e qbftEnv) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal with fewer round changes than a quorum",
			msgs: func(e qbftEnv) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				rcs := []*Message{roundChange(1, e.tn.vals[0], nil, nil), roundChange(1, e.tn.vals[2], nil, nil)}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b, RoundChanges: rcs})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal with round changes for round 2",
			msgs: func(e qbftEnv) []*Message {
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				var rcs []*Message
				for _, v := range e.tn.vals[:3] {
					rcs = append(rcs, roundChange(2, v, nil, nil))
				}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b, RoundChanges: rcs})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal of a new block when a round change claims a prepared one",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				b := e.tn.block(1, goodRoot, 0xee)
				d, _ := fb.Digest(b)
				rcs := []*Message{
					roundChange(1, e.tn.vals[0], &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd}, nil),
					roundChange(1, e.tn.vals[2], nil, nil), roundChange(1, e.tn.vals[3], nil, nil),
				}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b,
					RoundChanges: rcs, Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal whose prepares are for another block than the claimed one",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				other, _ := fb.Digest(e.tn.block(0, goodRoot, 0xbb))
				b, _ := fb.WithRound(prep, 1)
				d, _ := fb.Digest(b)
				rcs := []*Message{
					roundChange(1, e.tn.vals[0], &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd}, nil),
					roundChange(1, e.tn.vals[2], nil, nil), roundChange(1, e.tn.vals[3], nil, nil),
				}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b,
					RoundChanges: rcs, Prepares: prepares(View{1, 0}, other, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round-1 proposal whose prepares fall short of a quorum",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				b, _ := fb.WithRound(prep, 1)
				d, _ := fb.Digest(b)
				rcs := []*Message{
					roundChange(1, e.tn.vals[0], &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd}, nil),
					roundChange(1, e.tn.vals[2], nil, nil), roundChange(1, e.tn.vals[3], nil, nil),
				}
				return []*Message{signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: e.byz, Digest: d, Block: b,
					RoundChanges: rcs, Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2])})}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change with a prepared certificate for another block",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				other := e.tn.block(0, goodRoot, 0xbb)
				pc := &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd,
					Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])}
				return []*Message{roundChange(1, e.byz, pc, other)}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change whose prepares are of a lower round than claimed",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(1, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				pc := &PreparedCertificate{PreparedRound: 1, PreparedDigest: pd,
					Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])}
				return []*Message{roundChange(2, e.byz, pc, prep)}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change claiming a prepared round not below its own",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(1, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				pc := &PreparedCertificate{PreparedRound: 1, PreparedDigest: pd,
					Prepares: prepares(View{1, 1}, pd, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])}
				return []*Message{roundChange(1, e.byz, pc, prep)}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change whose prepares are too few",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				pc := &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd,
					Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2])}
				return []*Message{roundChange(1, e.byz, pc, prep)}
			},
			want: ErrInvalidCert,
		},
		{
			name: "round change with an IBFT 2.0 certificate",
			msgs: func(e qbftEnv) []*Message {
				prep := e.tn.block(0, goodRoot, 0xaa)
				pd, _ := fb.Digest(prep)
				p := signed(&Message{Kind: KindProposal, View: View{1, 0}, Author: e.tn.vals[0], Digest: pd})
				pc := &PreparedCertificate{Proposal: p, Prepares: prepares(View{1, 0}, pd, e.tn.vals[0], e.tn.vals[2], e.tn.vals[3])}
				return []*Message{roundChange(1, e.byz, pc, prep)}
			},
			want: ErrInvalidCert,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tn := newTestNetRules(t, QBFT, 4, 1)
			e := qbftEnv{tn: tn, byz: tn.vals[1]}
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

// A valid QBFT justification is accepted: a round-1 proposal re-proposing
// the block a quorum prepared in round 0.
func TestQBFTValidJustification(t *testing.T) {
	tn := newTestNetRules(t, QBFT, 4, 1)
	byz := tn.vals[1]
	prep := tn.block(0, goodRoot, 0xaa)
	pd, _ := fb.Digest(prep)
	b, _ := fb.WithRound(prep, 1)
	d, _ := fb.Digest(b)
	rcs := []*Message{
		roundChange(1, tn.vals[0], &PreparedCertificate{PreparedRound: 0, PreparedDigest: pd}, nil),
		roundChange(1, tn.vals[2], nil, nil), roundChange(1, tn.vals[3], nil, nil),
	}
	m := signed(&Message{Kind: KindProposal, View: View{1, 1}, Author: byz, Digest: d, Block: b,
		RoundChanges: rcs, Prepares: prepares(View{1, 0}, pd, tn.vals[0], tn.vals[2], tn.vals[3])})
	for _, err := range tn.inject(m) {
		if err != nil {
			t.Fatalf("valid justification rejected: %v", err)
		}
	}
	for _, v := range []common.Address{tn.vals[0], tn.vals[2], tn.vals[3]} {
		if got := tn.cores[v].View().Round; got != 1 {
			t.Fatalf("validator %x in round %d after a justified round-1 proposal", v[19], got)
		}
	}
}
