package chain

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/types"
)

// Bounds of the decoded body and receipt caches. Counting entries alone
// let their memory follow the size of the blocks: a node serving newHeads
// under 500 tx/s held 256 decoded bodies of ~500 transactions (about
// 100 MiB of heap, ~800 bytes a decoded transaction), and after a stall of
// a minute a block of 16,000 transactions is one entry like an empty one.
// The weight of a body is its transactions, of a block's receipts the
// receipts and their logs; the caches keep the most recent blocks that fit
// in both bounds (about 15 MiB each at most).
const (
	blockCacheEntries = 256
	blockCacheWeight  = 16384
)

// weightedCache is an LRU of decoded block data bounded both by entries
// and by the total weight of the values it holds. A value heavier than the
// whole bound is not cached. It is safe for concurrent use.
type weightedCache[V any] struct {
	mu        sync.Mutex
	lru       lru.BasicLRU[common.Hash, V]
	weigh     func(V) int
	weights   map[common.Hash]int
	total     int
	entries   int
	maxWeight int
}

func newWeightedCache[V any](entries, maxWeight int, weigh func(V) int) *weightedCache[V] {
	return &weightedCache[V]{lru: lru.NewBasicLRU[common.Hash, V](entries), weigh: weigh,
		weights: make(map[common.Hash]int), entries: entries, maxWeight: maxWeight}
}

// Get returns the cached value of hash.
func (c *weightedCache[V]) Get(hash common.Hash) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(hash)
}

// Add caches v under hash, evicting the least recently used entries until
// both bounds hold.
func (c *weightedCache[V]) Add(hash common.Hash, v V) {
	w := c.weigh(v) + 1 // an empty block still costs its entry
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.weights[hash]; ok {
		c.lru.Remove(hash)
		c.total -= old
		delete(c.weights, hash)
	}
	if w > c.maxWeight {
		return
	}
	for c.total+w > c.maxWeight || c.lru.Len() >= c.entries {
		k, _, ok := c.lru.RemoveOldest()
		if !ok {
			break
		}
		c.total -= c.weights[k]
		delete(c.weights, k)
	}
	c.lru.Add(hash, v)
	c.weights[hash] = w
	c.total += w
}

// size returns the entries and the total weight held.
func (c *weightedCache[V]) size() (entries, weight int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.total
}

func bodyWeight(b *types.Body) int { return len(b.Transactions) + len(b.Uncles) + len(b.Withdrawals) }

func receiptsWeight(rs types.Receipts) int {
	w := len(rs)
	for _, r := range rs {
		w += len(r.Logs)
	}
	return w
}
