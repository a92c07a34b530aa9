package clique

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
)

// Two chain stores that receive the same two competing out-of-turn blocks
// in opposite orders settle on the same head: total difficulty ties, and
// the engine's EIP-3436 tie-break decides alike on both.
func TestCompetingBlocksResolveAlike(t *testing.T) {
	acc := newAccounts()
	names := []string{"A", "B", "C", "D"}
	g := genesisHeader(acc.addresses(names...))
	gen := &core.Genesis{Config: testConfig(), ExtraData: g.Extra, GasLimit: g.GasLimit, Difficulty: g.Difficulty,
		Timestamp: g.Time, BaseFee: g.BaseFee}
	open := func() (*chain.Chain, *Engine) {
		e := New(defaultCfg, Options{})
		c, err := chain.Open(chain.NewMemoryDatabase(), gen, e)
		if err != nil {
			t.Fatal(err)
		}
		c.SetForkChooser(e)
		return c, e
	}
	p, pe := open()
	q, _ := open()
	if p.Genesis().Hash() != g.Hash() {
		t.Fatal("genesis differs from the test header")
	}
	order := make([]string, len(names))
	for i, a := range acc.addresses(names...) {
		order[i] = acc.names([]common.Address{a})[0]
	}
	insert := func(c *chain.Chain, hs ...*types.Header) {
		t.Helper()
		for _, h := range hs {
			if _, err := c.InsertBlock(context.Background(), types.NewBlockWithHeader(h), chain.InsertOptions{}); err != nil {
				t.Fatalf("block %d: %v", h.Number, err)
			}
		}
	}
	snapAt := func(h *types.Header) *Snapshot {
		s, err := pe.snapshot(p, h.Number.Uint64(), h.Hash())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	b1 := makeHeader(t, acc, g, block{signer: order[1]}, snapAt(g), 1) // in turn
	insert(p, b1)
	insert(q, b1)
	// Block 2 is order[2]'s turn; order[0] and order[3] seal it out of turn.
	x := makeHeader(t, acc, b1, block{signer: order[0]}, snapAt(b1), 1)
	y := makeHeader(t, acc, b1, block{signer: order[3]}, snapAt(b1), 1)
	insert(p, x, y)
	insert(q, y, x)
	if p.CurrentHash() != q.CurrentHash() {
		t.Fatalf("heads differ: %s and %s", p.CurrentHash().Hex(), q.CurrentHash().Hex())
	}
	want := x
	if pe.PreferHead(p, y, x) {
		want = y
	}
	if p.CurrentHash() != want.Hash() {
		t.Fatal("the head is not the block the tie-break prefers")
	}
	// The in-turn block at the same height outweighs both.
	z := makeHeader(t, acc, b1, block{signer: order[2]}, snapAt(b1), 1)
	insert(p, z)
	insert(q, z)
	if p.CurrentHash() != z.Hash() || q.CurrentHash() != z.Hash() {
		t.Fatal("the in-turn block did not win")
	}
}
