package chain

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// BlockHook processes what a block carries beside its public state — the
// node's private transactions — as InsertBlock stores the block, in two
// steps so that nothing outside the node is waited for under the insert
// lock:
//
//   - Prepare runs before InsertBlock takes the lock and gathers what the
//     block needs from outside (the private payloads, from the privacy
//     manager). It may wait as long as its source needs: only this insert
//     waits with it. InsertBlock calls it only for a block it does not
//     hold yet and whose parent it holds. An error fails the insert.
//   - The returned PreparedBlock runs under the lock, after the block's
//     public state is written and before the block itself, so whatever it
//     writes is on disk before the block is. It must not wait for
//     anything outside the node.
//
// It runs for every block inserted (mined, received, synced, imported). It
// must key what it writes by the block hash, so that writes for a block
// that never gets stored (a crash in between, a failure) are never read. An
// error fails the insert: the block is not stored and can be inserted
// again.
//
// The hook is given to Open (WithBlockHook) and fixed for the chain's life.
type BlockHook interface {
	Prepare(ctx context.Context, block *types.Block) (PreparedBlock, error)
}

// PreparedBlock is a block's hook work once what it needs is gathered
// (BlockHook.Prepare).
type PreparedBlock interface {
	// ProcessBlock runs the hook's part of the block under the insert
	// lock.
	ProcessBlock(ctx context.Context, b *HookBlock) error
}

// HookBlock is what InsertBlock gives a PreparedBlock: the block executed
// and its public state written, the block itself not stored yet. Everything
// a hook reads of the chain comes in here, so a hook holds no reference to
// the chain and needs none set after Open.
type HookBlock struct {
	// Exec is the chain's executor: the block context, the EVM.
	Exec *Executor
	// Hash is the block's engine hash, the key of whatever the hook writes.
	Hash common.Hash
	// Receipts are the block's public receipts.
	Receipts types.Receipts
	// Post is the block's public post-state, to read only.
	Post *state.StateDB
	// Parent is the public state of the block's parent, opened for this
	// call alone: a hook that replays the block's transactions on it
	// (GoQuorum private execution) may change it, and it is then dropped.
	Parent *state.StateDB
}
