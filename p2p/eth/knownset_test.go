package eth

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func hashOf(i int) common.Hash {
	var h common.Hash
	binary.BigEndian.PutUint64(h[:], uint64(i))
	h[31] = 1 // not the zero hash
	return h
}

// TestKnownSetRemembersRecent: a set of limit L keeps at least the L/2 most
// recent hashes and never more than L, however many come; a hash added
// twice takes one place.
func TestKnownSetRemembersRecent(t *testing.T) {
	const limit = 8
	k := newKnownSet(limit)
	k.add(hashOf(1), hashOf(2), hashOf(2), hashOf(3))
	if k.len() != 3 {
		t.Fatalf("%d hashes after 3 distinct ones", k.len())
	}
	for i := 4; i <= 1000; i++ {
		k.add(hashOf(i))
		if n := k.len(); n > limit {
			t.Fatalf("%d hashes after %d, limit %d", n, i, limit)
		}
		for j := i - limit/2 + 1; j <= i; j++ {
			if j > 0 && !k.has(hashOf(j)) {
				t.Fatalf("after %d hashes, recent hash %d forgotten", i, j)
			}
		}
	}
	if k.has(hashOf(1000 - limit)) {
		t.Fatal("a hash older than the limit is remembered")
	}
}

// TestKnownSetMemoryFlat: a full set of transaction hashes under constant
// churn stays at the memory it had when first full (the ring-and-map set
// it replaces grew from 3.6 to 6 MiB as its map's deleted slots piled up).
func TestKnownSetMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 20 sets' worth of hashes")
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	k := newKnownSet(maxKnownTxs)
	next := 0
	fill := func(n int) {
		for range n {
			k.add(hashOf(next))
			next++
		}
	}
	base := heap()
	fill(2 * maxKnownTxs)
	full := heap() - base
	fill(20 * maxKnownTxs)
	churned := heap() - base
	runtime.KeepAlive(k)
	if churned > full+full/4 {
		t.Fatalf("a full set held %d bytes, after churn %d", full, churned)
	}
	if churned > 4<<20 {
		t.Fatalf("a set of %d hashes holds %d bytes", maxKnownTxs, churned)
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
