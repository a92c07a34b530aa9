package chain

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// importFile builds blocks 1..n on a source chain, each with perBlock
// transfers from testKey, and returns them encoded as a chain file.
func importFile(t *testing.T, n, perBlock int) (*bytes.Buffer, []*types.Block) {
	t.Helper()
	src, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		file   bytes.Buffer
		blocks []*types.Block
		nonce  uint64
		parent = src.Genesis()
	)
	for i := range n {
		var txs []*types.Transaction
		for range perBlock {
			txs = append(txs, transfer(t, testKey, nonce, common.Address{3}))
			nonce++
		}
		b := makeBlock(t, src, parent, 1, txs, byte(i))
		if _, err := src.InsertBlock(context.Background(), b, InsertOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := rlp.Encode(&file, b); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
		parent = b.Header()
	}
	return &file, blocks
}

// TestImportPipeline: blocks whose senders the recovery workers and the
// importer share are imported with every sender right (the state roots
// match), and a file cut in the middle of a block imports the blocks
// before the cut and names the position of the broken one.
func TestImportPipeline(t *testing.T) {
	file, blocks := importFile(t, 40, 20)
	whole := file.Bytes()

	dst, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := dst.Import(context.Background(), bytes.NewReader(whole), ImportOptions{})
	if err != nil || st.Imported != 40 || st.Txs != 800 {
		t.Fatalf("import: %v, %+v", err, st)
	}
	if dst.CurrentHash() != dst.Hash(blocks[39].Header()) {
		t.Fatalf("head %s, want block 40", dst.CurrentHash().Hex())
	}

	var first bytes.Buffer
	for _, b := range blocks[:10] {
		rlp.Encode(&first, b)
	}
	cut := whole[:first.Len()+len(whole[first.Len():])/60] // inside block 11
	dst, _ = Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	st, err = dst.Import(context.Background(), bytes.NewReader(cut), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "decode block at position 10") {
		t.Fatalf("cut file: %v, want the decode error of position 10", err)
	}
	if st.Imported != 10 || dst.CurrentHeader().Number.Uint64() != 10 {
		t.Fatalf("cut file imported %d blocks, head %d; want the 10 before the cut", st.Imported, dst.CurrentHeader().Number.Uint64())
	}
}

// TestImportStopsAtInvalidBlock: an invalid block ends the import with its
// error (the pipeline ahead of it is stopped), keeping the blocks before.
func TestImportStopsAtInvalidBlock(t *testing.T) {
	_, blocks := importFile(t, 30, 5)
	var file bytes.Buffer
	for i, b := range blocks {
		if i == 12 {
			h := b.Header()
			h.GasUsed++ // the executed block disagrees with its header
			b = b.WithSeal(h)
		}
		rlp.Encode(&file, b)
	}
	dst, _ := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	st, err := dst.Import(context.Background(), &file, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "block 13") {
		t.Fatalf("import: %v, want block 13's error", err)
	}
	if st.Imported != 12 {
		t.Fatalf("imported %d blocks before the invalid one, want 12", st.Imported)
	}
}
