package chain

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/beacon"
	"github.com/basaltchain/basalt/consensus/ethash"
)

const benchDir = "../../shared/bench/import-1000"

func loadBenchChain(b *testing.B) (*config.Genesis, []*types.Block, uint64) {
	b.Helper()
	g, err := config.LoadGenesisFile(filepath.Join(benchDir, "genesis.json"))
	if err != nil {
		b.Skipf("bench data absent: %v", err)
	}
	f, err := os.Open(filepath.Join(benchDir, "chain.rlp"))
	if err != nil {
		b.Skipf("bench data absent: %v", err)
	}
	defer f.Close()
	var (
		blocks []*types.Block
		gas    uint64
	)
	s := rlp.NewStream(bufio.NewReader(f), 0)
	for {
		blk := new(types.Block)
		if err := s.Decode(blk); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		blocks = append(blocks, blk)
		gas += blk.GasUsed()
	}
	return g, blocks, gas
}

// BenchmarkImportChain imports the 1,000-block bench chain through the chain
// store (Pebble on disk), the figure `blocks import` gives.
func BenchmarkImportChain(b *testing.B) {
	g, blocks, gas := loadBenchChain(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := OpenDatabase(filepath.Join(b.TempDir(), "db"), 512)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Open(db, g.Core, beacon.New(ethash.New(ethash.Config{})))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, blk := range blocks {
			// Fresh copies: a decoded tx caches its sender.
			if _, err := c.InsertBlock(context.Background(), copyBlock(b, blk), InsertOptions{NoSync: true}); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.Sync(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		c.Close()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(gas)*float64(b.N)/1e6/b.Elapsed().Seconds(), "Mgas/s")
}

// BenchmarkStateTransition runs the same blocks through go-ethereum's state
// transition on one in-memory state, without our store: the raw rate our
// store's overhead is measured against.
func BenchmarkStateTransition(b *testing.B) {
	g, blocks, gas := loadBenchChain(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := Open(NewMemoryDatabase(), g.Core, beacon.New(ethash.New(ethash.Config{})))
		if err != nil {
			b.Fatal(err)
		}
		st, err := c.State()
		if err != nil {
			b.Fatal(err)
		}
		headers := &memHeaders{c: c, byHash: make(map[common.Hash]*types.Header)}
		exec := NewExecutor(c.Config(), c.Engine(), headers)
		b.StartTimer()
		for _, blk := range blocks {
			blk = copyBlock(b, blk)
			RecoverSenders(exec.Signer(blk.Header()), blk, nil)
			res, err := exec.Process(context.Background(), blk, c.Hash(blk.Header()), st)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ValidateResult(c.Config(), blk.Header(), st, res); err != nil {
				b.Fatal(err)
			}
			headers.byHash[c.Hash(blk.Header())] = blk.Header()
		}
	}
	b.ReportMetric(float64(gas)*float64(b.N)/1e6/b.Elapsed().Seconds(), "Mgas/s")
}

type memHeaders struct {
	c      *Chain
	byHash map[common.Hash]*types.Header
}

func (m *memHeaders) Config() *params.ChainConfig { return m.c.Config() }
func (m *memHeaders) GetHeader(h common.Hash, n uint64) *types.Header {
	if hd, ok := m.byHash[h]; ok {
		return hd
	}
	return m.c.GetHeader(h, n)
}
func (m *memHeaders) GetHeaderByNumber(n uint64) *types.Header { return m.c.GetHeaderByNumber(n) }

func copyBlock(b *testing.B, blk *types.Block) *types.Block {
	enc, err := rlp.EncodeToBytes(blk)
	if err != nil {
		b.Fatal(err)
	}
	out := new(types.Block)
	if err := rlp.DecodeBytes(enc, out); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkImportPipeline is BenchmarkImportChain through Import, the path of
// `blocks import`: decoding and sender recovery run ahead of execution on the
// other core instead of before each block.
func BenchmarkImportPipeline(b *testing.B) {
	g, blocks, gas := loadBenchChain(b)
	var raw bytes.Buffer
	for _, blk := range blocks {
		if err := rlp.Encode(&raw, blk); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := OpenDatabase(filepath.Join(b.TempDir(), "db"), 512)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Open(db, g.Core, beacon.New(ethash.New(ethash.Config{})))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := c.Import(context.Background(), bytes.NewReader(raw.Bytes()), ImportOptions{})
		if err != nil || st.Imported != uint64(len(blocks)) {
			b.Fatalf("import: %v (%d blocks)", err, st.Imported)
		}
		b.StopTimer()
		c.Close()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(gas)*float64(b.N)/1e6/b.Elapsed().Seconds(), "Mgas/s")
}
