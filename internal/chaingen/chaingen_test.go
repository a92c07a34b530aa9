package chaingen

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/clique"
)

func TestGenesisFileRoundTrip(t *testing.T) {
	for _, d := range []int64{1, 100} {
		g := Genesis(d)
		data, err := GenesisJSON(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := config.ParseGenesis(data)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, data)
		}
		if back.FixedDifficulty.Int64() != d {
			t.Fatalf("fixed difficulty %v", back.FixedDifficulty)
		}
		want, got := g.Core.ToBlock().Header(), back.Core.ToBlock().Header()
		if want.Root != got.Root || want.Extra == nil || string(want.Extra) != string(got.Extra) || want.GasLimit != got.GasLimit {
			t.Fatalf("genesis differs after the round trip")
		}
		a, _, _ := OpenMemory(g)
		b, _, _ := OpenMemory(back)
		if a.GenesisHash() != b.GenesisHash() {
			t.Fatalf("genesis hash %s, after round trip %s", a.GenesisHash(), b.GenesisHash())
		}
	}
}

func TestGenerate(t *testing.T) {
	g := Genesis(1)
	c, db, err := OpenMemoryWith(g, UnsealedEngine(g))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	blocks, err := New(c, Options{TxsPerBlock: 10}).ExtendHead(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if c.CurrentHeader().Number.Uint64() != 20 || len(blocks[19].Transactions()) != 10 {
		t.Fatalf("head %d", c.CurrentHeader().Number)
	}
	// A fork from block 10 with another coinbase is a different branch.
	fork, err := New(c, Options{TxsPerBlock: 3, Coinbase: config.DevAccounts[0].Address}).Extend(context.Background(), c.Hash(blocks[9].Header()), 12)
	if err != nil {
		t.Fatal(err)
	}
	if c.CurrentHash() != c.Hash(fork[11].Header()) {
		t.Fatalf("the longer fork did not become the head")
	}
}

// TestUncles: with Options.Uncles every block from the second includes a
// sibling of its parent; with UnsealedUncles that ommer has no valid proof
// of work but is otherwise valid, and the chain imports into a fresh store
// only with seal checks skipped. Sealed ommers import with full checks.
func TestUncles(t *testing.T) {
	ctx := context.Background()
	g := Genesis(1)
	engine := Engine(g)
	open := func() *chain.Chain {
		c, db, err := OpenMemoryWith(g, engine)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return c
	}
	generate := func(opts Options, n int) (*chain.Chain, []*types.Block, []byte) {
		c := open()
		blocks, err := New(c, opts).ExtendHead(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		if err := WriteRLP(&file, blocks); err != nil {
			t.Fatal(err)
		}
		return c, blocks, file.Bytes()
	}

	src, blocks, file := generate(Options{TxsPerBlock: 2, Uncles: true, UnsealedUncles: true}, 4)
	uncleCoinbase := UncleCoinbase(common.Address{})
	for i, b := range blocks {
		uncles := b.Uncles()
		if i == 0 {
			if len(uncles) != 0 {
				t.Fatalf("block 1 has %d ommers", len(uncles))
			}
			continue
		}
		if len(uncles) != 1 {
			t.Fatalf("block %d has %d ommers, want 1", b.Number(), len(uncles))
		}
		u := uncles[0]
		if u.ParentHash != blocks[i-1].ParentHash() || u.Coinbase != uncleCoinbase || u.Number.Cmp(blocks[i-1].Number()) != 0 {
			t.Fatalf("block %d: ommer %d (coinbase %s) is not a sibling of its parent", b.Number(), u.Number, u.Coinbase.Hex())
		}
		parent := src.GetHeaderByHash(u.ParentHash)
		if err := engine.VerifyHeader(src, u, parent, true); !errors.Is(err, consensus.ErrInvalidSeal) {
			t.Fatalf("block %d: ommer's seal: %v, want %v", b.Number(), err, consensus.ErrInvalidSeal)
		}
		if err := engine.VerifyHeader(src, u, parent, false); err != nil {
			t.Fatalf("block %d: ommer invalid apart from its seal: %v", b.Number(), err)
		}
	}
	st, err := src.State()
	if err != nil {
		t.Fatal(err)
	}
	if st.GetBalance(uncleCoinbase).IsZero() {
		t.Fatal("no ommer reward paid")
	}

	if _, err := open().Import(ctx, bytes.NewReader(file), chain.ImportOptions{}); !errors.Is(err, consensus.ErrInvalidSeal) ||
		!strings.Contains(err.Error(), "block 2: invalid uncles") {
		t.Fatalf("import with seal checks: %v, want block 2's ommer's invalid seal", err)
	}
	dst := open()
	stats, err := dst.Import(ctx, bytes.NewReader(file), chain.ImportOptions{SkipSeal: true})
	if err != nil || stats.Imported != 4 || dst.CurrentHash() != src.CurrentHash() {
		t.Fatalf("import skipping seals: %v, %d imported, head %s want %s", err, stats.Imported, dst.CurrentHash().Hex(), src.CurrentHash().Hex())
	}

	src, _, file = generate(Options{TxsPerBlock: 1, Uncles: true}, 3)
	dst = open()
	if stats, err := dst.Import(ctx, bytes.NewReader(file), chain.ImportOptions{}); err != nil || stats.Imported != 3 || dst.CurrentHash() != src.CurrentHash() {
		t.Fatalf("import of sealed ommers: %v, %d imported", err, stats.Imported)
	}
}

// A Clique chain with every fork through Osaka: generated blocks carry the
// later forks' header fields and transfers, and a fresh chain with a
// verify-only Clique engine imports them with every seal checked; the
// genesis file round-trips.
func TestCliqueChain(t *testing.T) {
	ctx := context.Background()
	g := CliqueGenesis(1)
	data, err := GenesisJSON(g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.ParseGenesis(data)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, data)
	}
	e := Engine(g)
	if back.Consensus != "clique" || back.Clique.BlockPeriodSeconds != 1 || e.Hash(back.Core.ToBlock().Header()) != e.Hash(g.Core.ToBlock().Header()) {
		t.Fatalf("clique genesis round trip: %+v", back.Clique)
	}
	src, db, err := OpenMemory(g)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	blocks, err := New(src, Options{TxsPerBlock: 5}).ExtendHead(ctx, 12)
	if err != nil {
		t.Fatal(err)
	}
	h := blocks[11].Header()
	if h.Difficulty.Uint64() != 2 || h.WithdrawalsHash == nil || h.RequestsHash == nil || len(blocks[11].Transactions()) != 5 {
		t.Fatalf("block 12: %+v", h)
	}
	// The importer verifies with an engine that has no key.
	verifier := clique.New(clique.Config{Period: 1, Epoch: clique.DefaultEpoch, CreateEmptyBlocks: true}, clique.Options{})
	dst, db2, err := OpenMemoryWith(g, verifier)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	for _, b := range blocks {
		if _, err := dst.InsertBlock(ctx, b, chain.InsertOptions{}); err != nil {
			t.Fatalf("block %d: %v", b.NumberU64(), err)
		}
	}
	if dst.CurrentHash() != src.CurrentHash() {
		t.Fatal("imported head differs")
	}
	// A block with a tampered seal is refused.
	bad := types.CopyHeader(blocks[0].Header())
	bad.Extra[len(bad.Extra)-2] ^= 1
	fresh, db3, _ := OpenMemoryWith(g, verifier)
	defer db3.Close()
	if _, err := fresh.InsertBlock(ctx, blocks[0].WithSeal(bad), chain.InsertOptions{}); err == nil {
		t.Fatal("tampered seal accepted")
	}
}
