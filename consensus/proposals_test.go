package consensus

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// Proposals cast the useful votes in turn, in address order, and forget a
// discarded one.
func TestProposalsNext(t *testing.T) {
	a, b, c := common.Address{1}, common.Address{2}, common.Address{3}
	p := NewProposals()
	useful := func(x common.Address, add bool) bool { return x != c }
	if _, _, ok := p.Next(useful); ok {
		t.Fatal("a vote without proposals")
	}
	p.Propose(b, false)
	p.Propose(a, true)
	p.Propose(c, true) // useless: never cast
	var got []common.Address
	for range 4 {
		x, add, ok := p.Next(useful)
		if !ok || add != (x == a) {
			t.Fatalf("next = %v %v %v", x, add, ok)
		}
		got = append(got, x)
	}
	if got[0] == got[1] || got[0] != got[2] || got[1] != got[3] {
		t.Fatalf("votes %v do not take turns", got)
	}
	p.Discard(a)
	p.Discard(b)
	if x, _, ok := p.Next(useful); ok {
		t.Fatalf("discarded proposal %v cast", x)
	}
	if pend := p.Pending(); len(pend) != 1 || !pend[c] {
		t.Fatalf("pending %v", pend)
	}
}
