package eth

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// knownSet remembers the most recent hashes a peer is known to have (sent
// us or was sent), so nothing is sent to a peer twice: at least the limit/2
// most recent, never more than limit. It is safe for concurrent use.
//
// It keeps two generations of at most limit/2 hashes and, when the newer
// is full, drops the older and starts a new one. A single map with a ring
// that deleted the oldest hash for each new one held the same number of
// hashes in about 6 MiB a peer after an hour of transactions instead of
// 3.6 MiB when first full: the map's deleted slots are not reclaimed, so
// its tables grow under constant churn, and every lookup of a hash it
// lacks (the common case when relaying) probes the deleted slots too. Two
// generations never delete: 2.5 MiB a peer for 32,768 transaction hashes,
// flat, which is what a validator with 29 peers under load holds 29 of.
type knownSet struct {
	mu    sync.Mutex
	cur   map[common.Hash]struct{}
	prev  map[common.Hash]struct{}
	limit int // of both generations together
}

// newKnownSet returns an empty set of at most limit hashes. Nothing is
// allocated up front: the set grows as hashes come, so a node with a
// hundred quiet peers does not hold a hundred full sets (32,768
// transaction hashes preallocated were 4 MiB a peer).
func newKnownSet(limit int) *knownSet {
	return &knownSet{cur: map[common.Hash]struct{}{}, limit: max(2, limit)}
}

func (k *knownSet) add(hashes ...common.Hash) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, h := range hashes {
		if _, ok := k.cur[h]; ok {
			continue
		}
		if len(k.cur) >= k.limit/2 {
			k.prev, k.cur = k.cur, make(map[common.Hash]struct{}, len(k.cur))
		}
		k.cur[h] = struct{}{}
	}
}

func (k *knownSet) has(h common.Hash) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.cur[h]; ok {
		return true
	}
	_, ok := k.prev[h]
	return ok
}

// len returns how many hashes the set holds.
func (k *knownSet) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.cur) + len(k.prev)
}
