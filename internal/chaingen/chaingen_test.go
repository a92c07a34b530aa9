package chaingen

import (
	"context"
	"testing"

	"github.com/basaltchain/basalt/config"
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
