package eth

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestKnownSetForgetsOldest: a full set forgets its oldest hash for each
// new one, and a hash added twice takes one place.
func TestKnownSetForgetsOldest(t *testing.T) {
	k := newKnownSet(3)
	h := func(i byte) common.Hash { return common.Hash{i} }
	k.add(h(1), h(2), h(2), h(3))
	for i := byte(1); i <= 3; i++ {
		if !k.has(h(i)) {
			t.Fatalf("hash %d forgotten before the set was full", i)
		}
	}
	k.add(h(4), h(5))
	if k.has(h(1)) || k.has(h(2)) || !k.has(h(3)) || !k.has(h(4)) || !k.has(h(5)) {
		t.Fatalf("after 5 hashes in a set of 3: has 1 %v 2 %v 3 %v 4 %v 5 %v",
			k.has(h(1)), k.has(h(2)), k.has(h(3)), k.has(h(4)), k.has(h(5)))
	}
	if len(k.set) != 3 || len(k.ring) != 3 {
		t.Fatalf("set holds %d hashes, ring %d", len(k.set), len(k.ring))
	}
}

// BenchmarkNewPeerSets is what a connected peer's two known sets cost
// before any hash comes (they used to be preallocated: 4 MiB a peer).
func BenchmarkNewPeerSets(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = newKnownSet(maxKnownBlocks)
		_ = newKnownSet(maxKnownTxs)
	}
}
