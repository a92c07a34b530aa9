package backend

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
)

// Revert reasons (--revert-reason-enabled). Besu keeps a reverted
// transaction's revert output beside its receipt when it executes the
// block; receipts do not commit to it, so Basalt does not store it and
// instead replays the block when a receipt of a reverted transaction is
// asked for. The replay is the block's own execution (the chain's
// executor) with a tracer that records the output of each transaction's top-level frame,
// so the bytes are exactly what the transaction reverted with, for
// imported and synced blocks alike. Only reverted receipts cost a replay.

// RevertReasons replays the block of header (whose hash is hash) and
// returns, by transaction index, the revert output of each transaction
// that reverted with output.
func (b *Backend) RevertReasons(ctx context.Context, header *types.Header, hash common.Hash) (map[int][]byte, error) {
	c := b.Chain
	number := header.Number.Uint64()
	block := c.GetBlock(hash, number)
	if block == nil || number == 0 {
		return nil, nil
	}
	parent := c.GetHeader(header.ParentHash, number-1)
	if parent == nil {
		return nil, nil
	}
	st, err := b.StateOf(parent, header.ParentHash)
	if err != nil {
		return nil, err
	}
	out := map[int][]byte{}
	index := -1
	hooks := &tracing.Hooks{
		OnTxStart: func(*tracing.VMContext, *types.Transaction, common.Address) { index++ },
		OnExit: func(depth int, output []byte, _ uint64, _ error, reverted bool) {
			if depth == 0 && reverted && len(output) > 0 && index >= 0 {
				out[index] = common.CopyBytes(output)
			}
		},
	}
	if _, err := c.Executor().With(chain.WithTracer(hooks)).Process(ctx, block, hash, st); err != nil {
		return nil, err
	}
	return out, nil
}

// RevertReason is the revert output of the index-th transaction of the
// block of header, with --revert-reason-enabled: nil without the option,
// for a transaction that did not revert, or one that reverted without
// output. GraphQL's Transaction.revertReason reads it.
func (b *Backend) RevertReason(ctx context.Context, header *types.Header, hash common.Hash, index int) []byte {
	if !b.Config.RevertReasons {
		return nil
	}
	reasons, err := b.RevertReasons(ctx, header, hash)
	if err != nil {
		return nil
	}
	return reasons[index]
}
