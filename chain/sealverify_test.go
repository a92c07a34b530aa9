package chain

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// sealEngine is testEngine with a seal checked apart, as BFT's commit seals
// are: its hash leaves the seal (the nonce here) out, and it counts the
// checks it is asked for.
type sealEngine struct {
	testEngine
	headers, seals int
}

var badSeal = types.EncodeNonce(0xbad)

func (e *sealEngine) Hash(h *types.Header) common.Hash {
	h = types.CopyHeader(h)
	h.Nonce = types.BlockNonce{}
	return h.Hash()
}

func (e *sealEngine) VerifyHeader(chain consensus.ChainReader, h, p *types.Header, seal bool) error {
	e.headers++
	if err := e.testEngine.VerifyHeader(chain, h, p, seal); err != nil {
		return err
	}
	if seal {
		return e.VerifySeal(chain, h, p)
	}
	return nil
}

func (e *sealEngine) VerifySeal(_ consensus.ChainReader, h, _ *types.Header) error {
	e.seals++
	if h.Nonce == badSeal {
		return consensus.ErrInvalidSeal
	}
	return nil
}

// TestCommitVerifiesHeaderOnce: a block executed as a proposal (header
// checked without its seal) and inserted once sealed is checked for the
// seal alone at the insert, its header not a second time; a bad seal is
// still refused and recorded, and a block other than the executed one is
// verified in full.
func TestCommitVerifiesHeaderOnce(t *testing.T) {
	e := &sealEngine{}
	c, err := Open(NewMemoryDatabase(), testGenesis(), e)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	commit := func(b *types.Block, nonce types.BlockNonce) error {
		t.Helper()
		ex, err := c.Execute(ctx, b, ExecuteOptions{SkipSeal: true})
		if err != nil {
			t.Fatal(err)
		}
		h := b.Header()
		h.Nonce = nonce
		_, err = c.InsertBlock(ctx, b.WithSeal(h), InsertOptions{Executed: ex})
		return err
	}

	b1 := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{transfer(t, testKey, 0, common.Address{1})}, 0)
	if err := commit(b1, types.EncodeNonce(1)); err != nil {
		t.Fatal(err)
	}
	if e.headers != 1 || e.seals != 1 {
		t.Fatalf("proposal then commit: %d header checks, %d seal checks; want 1 and 1", e.headers, e.seals)
	}

	b2 := makeBlock(t, c, c.CurrentHeader(), 1, nil, 0)
	if err := commit(b2, badSeal); !errors.Is(err, consensus.ErrInvalidSeal) {
		t.Fatalf("bad seal at the commit: %v", err)
	}
	if bad := c.BadBlocks(); len(bad) != 1 || bad[0].Block.Nonce() != badSeal.Uint64() {
		t.Fatalf("bad blocks %+v", bad)
	}
	if c.CurrentHeader().Number.Uint64() != 1 {
		t.Fatal("a block with a bad seal became the head")
	}

	// Executed for one block, inserted with another: full verification.
	e.headers, e.seals = 0, 0
	ex, err := c.Execute(ctx, b2, ExecuteOptions{SkipSeal: true})
	if err != nil {
		t.Fatal(err)
	}
	other := makeBlock(t, c, c.CurrentHeader(), 1, nil, 'o')
	if _, err := c.InsertBlock(ctx, other, InsertOptions{Executed: ex}); err != nil {
		t.Fatal(err) // the same transactions on the same parent: the same state
	}
	if e.headers != 2 || e.seals != 1 {
		t.Fatalf("%d header checks, %d seal checks; want 2 (Execute, then the other block in full) and 1", e.headers, e.seals)
	}
}
