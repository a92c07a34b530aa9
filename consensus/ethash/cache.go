package ethash

import (
	"fmt"
	"sync"
)

// cacheLRUSize is how many epoch caches an engine keeps. Three covers the
// current epoch, the previous one (uncles and reorgs across the boundary)
// and the next one; epoch 0's cache is 16 MiB.
const cacheLRUSize = 3

// epochCache is the verification cache of one epoch. data is written once by
// the goroutine that generates it and read-only after ready is closed.
type epochCache struct {
	epoch uint64
	ready chan struct{}
	data  []uint32
	// datasetSize is the full dataset size of the epoch in bytes, which
	// hashimoto needs even when working from the cache.
	datasetSize uint64
}

// cacheLRU is a small least-recently-used set of epoch caches. The first
// caller asking for an epoch generates its cache (1–2 s for epoch 0) outside
// the lock; concurrent callers for the same epoch wait for that generation
// instead of duplicating it.
type cacheLRU struct {
	mu      sync.Mutex
	entries []*epochCache // most recently used last
	max     int
}

func newCacheLRU(max int) *cacheLRU {
	return &cacheLRU{max: max}
}

// get returns the cache of epoch, generating it if needed.
func (l *cacheLRU) get(epoch uint64) (*epochCache, error) {
	if epoch >= maxEpoch {
		return nil, fmt.Errorf("ethash: epoch %d beyond supported maximum %d", epoch, maxEpoch-1)
	}
	l.mu.Lock()
	for i, c := range l.entries {
		if c.epoch == epoch {
			// Move to the most recently used position.
			copy(l.entries[i:], l.entries[i+1:])
			l.entries[len(l.entries)-1] = c
			l.mu.Unlock()
			<-c.ready
			return c, nil
		}
	}
	c := &epochCache{epoch: epoch, ready: make(chan struct{})}
	if len(l.entries) >= l.max {
		// Evicting an entry still being generated is harmless: its waiters
		// hold the pointer and the memory goes when they are done.
		copy(l.entries, l.entries[1:])
		l.entries = l.entries[:len(l.entries)-1]
	}
	l.entries = append(l.entries, c)
	l.mu.Unlock()

	data := make([]uint32, cacheSizeForEpoch(epoch)/wordBytes)
	generateCache(data, seedHashForEpoch(epoch))
	c.data = data
	c.datasetSize = datasetSizeForEpoch(epoch)
	close(c.ready)
	return c, nil
}
