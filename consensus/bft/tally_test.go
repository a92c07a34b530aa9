package bft

import (
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestTallyMajority(t *testing.T) {
	a, b, c, d, x := common.Address{1}, common.Address{2}, common.Address{3}, common.Address{4}, common.Address{9}
	tl := NewTally([]common.Address{d, c, b, a})
	tl.AddVote(a, x, true)
	tl.AddVote(b, x, true)
	if tl.IsValidator(x) {
		t.Fatal("added with 2 of 4 votes")
	}
	tl.AddVote(b, x, true) // a repeated vote counts once
	if tl.IsValidator(x) {
		t.Fatal("a repeated vote counted twice")
	}
	tl.AddVote(c, x, true)
	if !tl.IsValidator(x) || len(tl.Validators()) != 5 {
		t.Fatalf("not added with 3 of 4: %v", tl.Validators())
	}
	if _, ok := tl.Voted(a, x); ok {
		t.Fatal("votes about an added validator kept")
	}
	// Dropping needs 5/2+1 = 3 of 5; the dropped validator's votes go too.
	tl.AddVote(d, common.Address{7}, true)
	for _, v := range []common.Address{a, b, c} {
		tl.AddVote(v, d, false)
	}
	if tl.IsValidator(d) {
		t.Fatal("not dropped")
	}
	if _, ok := tl.Voted(d, common.Address{7}); ok {
		t.Fatal("dropped validator's vote kept")
	}
	if !slices.IsSortedFunc(tl.Validators(), func(p, q common.Address) int { return p.Cmp(q) }) {
		t.Fatal("validators not sorted")
	}
	// A changed mind replaces the earlier vote.
	tl.AddVote(a, b, false)
	tl.AddVote(a, b, true)
	if add, ok := tl.Voted(a, b); !ok || !add {
		t.Fatal("vote not replaced")
	}
	tl.DiscardOutstandingVotes()
	if _, ok := tl.Voted(a, b); ok {
		t.Fatal("epoch kept votes")
	}
	cp := tl.Copy()
	cp.AddVote(a, x, false)
	if _, ok := tl.Voted(a, x); ok {
		t.Fatal("copy shares state")
	}
}

func TestVoteUseful(t *testing.T) {
	self, v2, out := common.Address{1}, common.Address{2}, common.Address{9}
	tl := NewTally([]common.Address{self, v2})
	if tl.VoteUseful(self, v2, true) {
		t.Fatal("adding a validator counted as useful")
	}
	if !tl.VoteUseful(self, out, true) || !tl.VoteUseful(self, v2, false) {
		t.Fatal("a vote that changes the set counted as useless")
	}
	tl.AddVote(self, out, true) // cast already (1 of 2 is no majority)
	if tl.VoteUseful(self, out, true) {
		t.Fatal("a vote cast twice")
	}
	if tl.VoteUseful(self, out, false) {
		t.Fatal("dropping a non-validator counted as useful")
	}
}
