package chain

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// BlockHook processes what a block carries beside its public state — the
// node's private transactions — as InsertBlock stores the block. It runs
// for every block inserted (mined, received, synced, imported) after the
// block's public state is written and before the block itself, so
// whatever it writes is on disk before the block is; it must key what it
// writes by the block hash, so that writes for a block that never gets
// stored (a crash in between, a failure) are never read. An error fails
// the insert: the block is not stored and can be inserted again.
type BlockHook interface {
	// ProcessBlock sees block (engine hash hash), its receipts and its
	// post-state (to read only).
	ProcessBlock(ctx context.Context, block *types.Block, hash common.Hash, receipts types.Receipts, post *state.StateDB) error
}

// SetBlockHook installs h (nil: none). Set it before blocks are inserted.
func (c *Chain) SetBlockHook(h BlockHook) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blockHook = h
}
