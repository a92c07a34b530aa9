package chain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// bodyOf returns a body of n transactions (one shared transaction: the
// cache weighs bodies by their transaction count, not their bytes).
func bodyOf(n int) *types.Body {
	tx := types.NewTx(&types.LegacyTx{Nonce: 1, Gas: 21000, GasPrice: big.NewInt(1), Value: big.NewInt(1)})
	b := &types.Body{Transactions: make([]*types.Transaction, n)}
	for i := range b.Transactions {
		b.Transactions[i] = tx
	}
	return b
}

// Bodies of large blocks must not pin memory in proportion to their size:
// the body cache holds at most blockCacheWeight transactions however many
// large blocks are read (before, 256 bodies of any size were kept).
func TestBodyCacheBoundedByTransactions(t *testing.T) {
	c := newWeightedCache(blockCacheEntries, blockCacheWeight, bodyWeight)
	for i := range 2 * blockCacheEntries {
		c.Add(common.BigToHash(big.NewInt(int64(i))), bodyOf(1000))
		entries, weight := c.size()
		if weight > blockCacheWeight || entries > blockCacheEntries {
			t.Fatalf("after %d bodies of 1,000 transactions: %d entries weighing %d, bounds %d and %d",
				i+1, entries, weight, blockCacheEntries, blockCacheWeight)
		}
	}
	// The most recent bodies are the ones kept.
	last := common.BigToHash(big.NewInt(2*blockCacheEntries - 1))
	if _, ok := c.Get(last); !ok {
		t.Fatal("the last body added is not cached")
	}
	if _, ok := c.Get(common.BigToHash(big.NewInt(0))); ok {
		t.Fatal("the first body added is still cached")
	}
	// Empty blocks are bounded by entries.
	for i := range 4 * blockCacheEntries {
		c.Add(common.BigToHash(big.NewInt(int64(10_000+i))), bodyOf(0))
	}
	if entries, _ := c.size(); entries != blockCacheEntries {
		t.Fatalf("%d empty bodies cached, want %d", entries, blockCacheEntries)
	}
	// A body heavier than the whole bound is not cached, and evicts nothing.
	heavy := common.HexToHash("0xb1")
	c.Add(heavy, bodyOf(blockCacheWeight+1))
	if _, ok := c.Get(heavy); ok {
		t.Fatal("a body heavier than the bound was cached")
	}
	if entries, _ := c.size(); entries != blockCacheEntries {
		t.Fatalf("%d bodies left after an oversized one, want %d", entries, blockCacheEntries)
	}
	// Re-adding a key replaces its weight.
	k := common.BigToHash(big.NewInt(10_000 + 4*blockCacheEntries - 1))
	c.Add(k, bodyOf(100))
	c.Add(k, bodyOf(100))
	if _, weight := c.size(); weight != blockCacheEntries-1+101 {
		t.Fatalf("weight %d after replacing a body, want %d", weight, blockCacheEntries-1+101)
	}
}

func TestReceiptsCacheCountsLogs(t *testing.T) {
	c := newWeightedCache(blockCacheEntries, blockCacheWeight, receiptsWeight)
	rs := types.Receipts{{Logs: make([]*types.Log, 99)}}
	for i := range 1000 {
		c.Add(common.BigToHash(big.NewInt(int64(i))), rs)
	}
	if entries, weight := c.size(); weight > blockCacheWeight || entries != blockCacheWeight/101 {
		t.Fatalf("%d entries weighing %d: want %d within %d", entries, weight, blockCacheWeight/101, blockCacheWeight)
	}
}
