package miner

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// sliceTxs is a TxIterator over a list.
type sliceTxs []*types.Transaction

func (s *sliceTxs) Peek() *types.Transaction {
	if len(*s) == 0 {
		return nil
	}
	return (*s)[0]
}
func (s *sliceTxs) Shift() { *s = (*s)[1:] }
func (s *sliceTxs) Pop()   { *s = (*s)[1:] }

// A build budget (consensus.WithBuildBudget) ends the candidates once
// spent; within it they pass through; a context without one has none.
func TestBuildBudget(t *testing.T) {
	if _, ok := consensus.BuildBudget(context.Background()); ok {
		t.Fatal("a budget without WithBuildBudget")
	}
	ctx := consensus.WithBuildBudget(context.Background(), 250*time.Millisecond)
	if d, ok := consensus.BuildBudget(ctx); !ok || d != 250*time.Millisecond {
		t.Fatalf("budget %v %v", d, ok)
	}
	tx := types.NewTx(&types.LegacyTx{Nonce: 1})
	open := &budgetedTxs{TxIterator: &sliceTxs{tx, tx}, until: time.Now().Add(time.Hour)}
	if open.Peek() != tx {
		t.Fatal("a candidate withheld within the budget")
	}
	spent := &budgetedTxs{TxIterator: &sliceTxs{tx}, until: time.Now().Add(-time.Millisecond)}
	if spent.Peek() != nil {
		t.Fatal("a candidate after the budget")
	}
}
