package eth

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// knownSet remembers the most recent hashes a peer is known to have (sent
// us or was sent), so nothing is sent to a peer twice. When full it forgets
// the oldest. It is safe for concurrent use.
type knownSet struct {
	mu    sync.Mutex
	set   map[common.Hash]struct{}
	ring  []common.Hash
	next  int
	limit int
}

// newKnownSet returns an empty set of at most limit hashes. Nothing is
// allocated up front: the set grows as hashes come, so a node with a
// hundred quiet peers does not hold a hundred full sets (32,768
// transaction hashes preallocated were 4 MiB a peer).
func newKnownSet(limit int) *knownSet {
	return &knownSet{set: map[common.Hash]struct{}{}, limit: limit}
}

func (k *knownSet) add(hashes ...common.Hash) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, h := range hashes {
		if _, ok := k.set[h]; ok {
			continue
		}
		if len(k.ring) < k.limit {
			k.ring = append(k.ring, h)
		} else {
			delete(k.set, k.ring[k.next])
			k.ring[k.next] = h
			k.next = (k.next + 1) % k.limit
		}
		k.set[h] = struct{}{}
	}
}

func (k *knownSet) has(h common.Hash) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.set[h]
	return ok
}
