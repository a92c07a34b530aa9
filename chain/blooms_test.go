package chain_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// TestCanonicalBloomsAndBlockLogs checks the log-query reads against the
// plain accessors, across a reorg that leaves stale headers and a shorter
// canonical chain behind.
func TestCanonicalBloomsAndBlockLogs(t *testing.T) {
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	c := chaintest.Open(t, db)
	addr := common.HexToAddress("0xaa")
	for i := range 6 {
		c.Append([]*types.Log{chaintest.Log(addr, []byte{byte(i)}, common.BigToHash(common.Big1))}, nil, []*types.Log{chaintest.Log(addr, nil)})
	}
	// A heavier branch from block 2 ends at block 4: blocks 5 and 6 leave.
	old5 := c.GetCanonicalHash(5)
	parent := c.GetHeaderByNumber(2)
	for i := range 2 {
		b, rs := c.Build(parent, 10, byte(0x10+i), []*types.Log{chaintest.Log(addr, []byte{0xee})})
		c.Insert(b, rs, false)
		parent = b.Header()
	}
	if c.CurrentHeader().Number.Uint64() != 4 {
		t.Fatalf("head %d", c.CurrentHeader().Number)
	}

	var seen []uint64
	err := c.CanonicalBlooms(0, 100, func(n uint64, hash common.Hash, bloom *types.Bloom) bool {
		h := c.GetHeaderByNumber(n)
		if hash != c.Hash(h) || *bloom != h.Bloom {
			t.Errorf("block %d: hash or bloom differs from the canonical header", n)
		}
		seen = append(seen, n)
		return true
	})
	if err != nil || len(seen) != 5 || seen[0] != 0 || seen[4] != 4 {
		t.Fatalf("scan 0..100: %v %v", seen, err)
	}
	seen = nil
	c.CanonicalBlooms(1, 3, func(n uint64, _ common.Hash, _ *types.Bloom) bool { seen = append(seen, n); return n < 2 })
	if len(seen) != 2 || seen[1] != 2 {
		t.Fatalf("early stop: %v", seen)
	}
	c.CanonicalBlooms(3, 1, func(uint64, common.Hash, *types.Bloom) bool { t.Fatal("empty range called fn"); return false })

	for n := uint64(1); n <= 4; n++ {
		hash := c.GetCanonicalHash(n)
		logs, err := c.BlockLogs(hash, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []*types.Log
		for _, r := range c.GetReceipts(hash, n) {
			want = append(want, r.Logs...)
		}
		if len(logs) != len(want) {
			t.Fatalf("block %d: %d logs, want %d", n, len(logs), len(want))
		}
		for i := range logs {
			if !sameLog(logs[i], want[i]) {
				t.Fatalf("block %d log %d: %+v, want %+v", n, i, logs[i], want[i])
			}
		}
		// From the receipts cache too (GetReceipts filled it).
		again, _ := c.BlockLogs(hash, n, func(l *types.Log) bool { return len(l.Topics) == 1 })
		for _, l := range again {
			if len(l.Topics) != 1 || l.BlockHash != hash {
				t.Fatalf("filtered logs %+v", l)
			}
		}
	}
	// A block that left the chain keeps its logs.
	if logs, err := c.BlockLogs(old5, 5, nil); err != nil || len(logs) != 2 || logs[1].BlockHash != old5 || logs[1].TxIndex != 2 || logs[1].Index != 1 {
		t.Fatalf("reorged-out block 5: %v %v", logs, err)
	}
	if logs, err := c.BlockLogs(common.HexToHash("0x1234"), 3, nil); err != nil || logs != nil {
		t.Fatalf("unknown block: %v %v", logs, err)
	}
}

func sameLog(a, b *types.Log) bool {
	if a.Address != b.Address || len(a.Topics) != len(b.Topics) || string(a.Data) != string(b.Data) {
		return false
	}
	for i := range a.Topics {
		if a.Topics[i] != b.Topics[i] {
			return false
		}
	}
	return a.BlockNumber == b.BlockNumber && a.BlockHash == b.BlockHash && a.BlockTimestamp == b.BlockTimestamp &&
		a.TxHash == b.TxHash && a.TxIndex == b.TxIndex && a.Index == b.Index && a.Removed == b.Removed
}
