package subprotocol

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/consensus"
)

// A ban lasts its ttl on the list's clock, and a ban again restarts it.
func TestBanListExpiry(t *testing.T) {
	clock := consensus.NewManualClock(time.Unix(1000, 0))
	b := NewBanList(clock, 10*time.Minute, 4)
	id := enode.ID{1}
	if b.Banned(id) {
		t.Fatal("banned before any ban")
	}
	b.Ban(id)
	clock.Advance(10*time.Minute - time.Second)
	if !b.Banned(id) {
		t.Fatal("ban ended early")
	}
	b.Ban(id) // misbehaved again: the ban starts over
	clock.Advance(10*time.Minute - time.Second)
	if !b.Banned(id) {
		t.Fatal("a renewed ban ended with the first one")
	}
	clock.Advance(time.Second)
	if b.Banned(id) || b.Len() != 0 {
		t.Fatalf("ban outlived its ttl (len %d)", b.Len())
	}
}

// The list never holds more than its bound: expired bans go first, then
// the one that would end first.
func TestBanListBounded(t *testing.T) {
	clock := consensus.NewManualClock(time.Unix(1000, 0))
	b := NewBanList(clock, time.Minute, 3)
	for i := range 3 {
		b.Ban(enode.ID{byte(i)})
		clock.Advance(time.Second)
	}
	b.Ban(enode.ID{9}) // full: peer 0's ban ends first and goes
	if b.Len() != 3 || b.Banned(enode.ID{0}) || !b.Banned(enode.ID{1}) || !b.Banned(enode.ID{9}) {
		t.Fatalf("len %d after an eviction", b.Len())
	}
	for i := range 1000 {
		b.Ban(enode.ID{byte(i), byte(i >> 8), 1})
	}
	if b.Len() != 3 {
		t.Fatalf("len %d, bound 3", b.Len())
	}
	clock.Advance(time.Minute)
	b.Ban(enode.ID{7}) // every other ban expired: all are swept
	if b.Len() != 1 || !b.Banned(enode.ID{7}) {
		t.Fatalf("len %d after expiry", b.Len())
	}
}
