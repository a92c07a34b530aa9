package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/basaltchain/basalt/consensus"
)

// ErrKnownBlock is returned when inserting a block that is already stored.
var ErrKnownBlock = errors.New("block already known")

// HeadEvent reports a change of the canonical head. Added holds the blocks
// that became canonical (oldest first) and Removed the ones that left the
// canonical chain on a reorg (newest first).
type HeadEvent struct {
	Header  *types.Header
	Hash    common.Hash
	Added   []*types.Block
	Removed []*types.Block
}

// InsertOptions tune InsertBlock.
type InsertOptions struct {
	// SkipSeal skips the engine's seal check of every header of the block,
	// its own and its ommers' (blocks import --skip-pow-validation-enabled).
	SkipSeal bool
	// NoSync marks a bulk import: the write-ahead log is not flushed after
	// each block and states are written to disk only every so many blocks
	// (see stateWriter). The importer calls Sync at the end. Every other
	// insert is durable when InsertBlock returns, so a head the node has
	// reported survives a crash.
	NoSync bool
	// Executed carries the state and result of a block the caller already
	// executed (the miner), so it is not run twice.
	Executed *Executed
	// SendersRecovered says the caller has recovered (and so cached) the
	// senders of the block's transactions.
	SendersRecovered bool
}

// Executed is a block's execution output, as produced by the miner.
type Executed struct {
	State    *state.StateDB
	Receipts types.Receipts
	// Skipped are the candidate transactions the builder left out, with the
	// reason (see Result.Skipped); InsertBlock ignores them.
	Skipped []SkippedTx

	// verified is set by Execute: the engine hash of the block it verified
	// against its parent, and whether it checked the seal too. InsertBlock
	// then verifies a block of that hash only for what is left (see
	// verifyExecuted).
	verified     common.Hash
	sealVerified bool
}

// InsertResult describes what InsertBlock did.
type InsertResult struct {
	Hash    common.Hash
	NewHead bool
	GasUsed uint64
}

// InsertBlock verifies, executes and stores block, and makes it the head if
// fork choice says so. Verifying and executing are Execute's (skipped with
// opts.Executed, but for the header, ommer and body checks); InsertBlock
// itself commits, in this order: the state, the block hook's writes, then
// the block with the canonical index and head in one atomic batch.
//
// The block hook's Prepare (the private payloads, fetched from the privacy
// manager) runs before the insert lock is taken, so a slow manager holds
// up only this insert, never the others or the calls that need the lock.
func (c *Chain) InsertBlock(ctx context.Context, block *types.Block, opts InsertOptions) (InsertResult, error) {
	start := time.Now()
	hook := c.blockHook
	for {
		var prepared PreparedBlock
		if hook != nil {
			header := block.Header()
			hash, number := c.engine.Hash(header), header.Number.Uint64()
			if c.HasBlock(hash, number) {
				return InsertResult{Hash: hash, GasUsed: header.GasUsed}, ErrKnownBlock
			}
			if number > 0 && c.HasBlock(header.ParentHash, number-1) {
				var err error
				if prepared, err = hook.Prepare(ctx, block); err != nil {
					return InsertResult{Hash: hash, GasUsed: header.GasUsed}, fmt.Errorf("block %d: %w", number, err)
				}
			}
		}
		res, err := c.insert(ctx, block, opts, hook, prepared, start)
		if err == errUnprepared {
			continue // the parent arrived after the check above
		}
		return res, err
	}
}

// errUnprepared: the block's parent was stored between the hook's Prepare
// being skipped for want of it and the insert lock.
var errUnprepared = errors.New("block hook not prepared")

// insert is InsertBlock under the insert lock, with the hook's part for
// the block prepared (nil: no hook, or the parent was missing).
func (c *Chain) insert(ctx context.Context, block *types.Block, opts InsertOptions, hook BlockHook, prepared PreparedBlock, start time.Time) (InsertResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	stats := InsertStats{Number: block.NumberU64(), GasUsed: block.GasUsed(), Txs: len(block.Transactions())}

	header := block.Header()
	hash := c.engine.Hash(header)
	number := header.Number.Uint64()
	res := InsertResult{Hash: hash, GasUsed: header.GasUsed}
	if c.HasBlock(hash, number) {
		return res, ErrKnownBlock
	}
	if number == 0 {
		return res, errors.New("cannot insert a second genesis block")
	}
	parent := c.GetHeader(header.ParentHash, number-1)
	if parent == nil {
		return res, fmt.Errorf("block %d: %w (parent %s)", number, consensus.ErrUnknownAncestor, header.ParentHash.Hex())
	}
	if hook != nil && prepared == nil {
		return res, errUnprepared
	}
	parentTD := c.GetTD(header.ParentHash, number-1)
	if parentTD == nil {
		return res, fmt.Errorf("block %d: total difficulty of parent missing", number)
	}
	if err := c.verifyExecuted(block, hash, parent, parentTD, !opts.SkipSeal, opts.Executed); err != nil {
		return res, err
	}
	ex := opts.Executed
	if ex == nil {
		var err error
		execStart := time.Now()
		ex, err = c.run(ctx, block, hash, parent, opts.SendersRecovered)
		stats.Executed, stats.Execution = true, time.Since(execStart)
		if err != nil {
			return res, err
		}
	}
	statedb, receipts := ex.State, ex.Receipts

	// 1. State first: a root without a block is harmless.
	root, err := statedb.Commit(Rules(c.config, header), number)
	if err != nil {
		return res, fmt.Errorf("block %d: commit state: %w", number, err)
	}
	if root != header.Root {
		return res, fmt.Errorf("block %d: committed state root %s differs from header %s", number, root.Hex(), header.Root.Hex())
	}
	if err := c.states.commit(root, number, opts.NoSync); err != nil {
		return res, fmt.Errorf("block %d: flush state: %w", number, err)
	}
	if prepared != nil {
		post, err := c.StateAt(root)
		if err != nil {
			return res, fmt.Errorf("block %d: open state: %w", number, err)
		}
		pre, err := c.StateAt(parent.Root)
		if err != nil {
			return res, fmt.Errorf("block %d: open parent state: %w", number, err)
		}
		hb := &HookBlock{Exec: c.exec, Hash: hash, Receipts: receipts, Post: post, Parent: pre}
		if err := prepared.ProcessBlock(ctx, hb); err != nil {
			return res, fmt.Errorf("block %d: %w", number, err)
		}
	}

	// 2. Block, and if it wins fork choice the canonical index and head, in
	// one atomic batch.
	td := new(big.Int).Add(parentTD, header.Difficulty)
	batch := c.db.NewBatch()
	if err := writeHeader(batch, hash, header); err != nil {
		return res, err
	}
	if err := writeBody(batch, hash, number, block.Body()); err != nil {
		return res, err
	}
	if err := writeReceipts(batch, hash, number, receipts); err != nil {
		return res, err
	}
	if err := writeTD(batch, hash, number, td); err != nil {
		return res, err
	}
	var ev *HeadEvent
	cur := c.head.Load()
	if c.wins(header, td, cur) {
		ev, err = c.setHead(batch, block, hash, cur)
		if err != nil {
			return res, err
		}
	}
	if err := batch.Write(); err != nil {
		return res, fmt.Errorf("block %d: write: %w", number, err)
	}
	if ev != nil && !opts.NoSync {
		if err := c.db.SyncKeyValue(); err != nil {
			return res, fmt.Errorf("block %d: sync: %w", number, err)
		}
	}
	c.headerCache.Add(hash, header)
	if ev != nil {
		c.head.Store(&headInfo{header: header, hash: hash, td: td})
		res.NewHead = true
		c.headFeed.Send(*ev)
	}
	stats.NewHead = res.NewHead
	c.observeInsert(stats, start)
	return res, nil
}

// ExecuteOptions tune Execute.
type ExecuteOptions struct {
	// SkipSeal checks the header without the engine's seal: a BFT
	// proposal, checked before its commit seals exist.
	SkipSeal bool
	// SendersRecovered says the caller has recovered (and so cached) the
	// senders of the block's transactions.
	SendersRecovered bool
}

// Execute is what InsertBlock does before it commits, apart from the
// commit: it verifies block against its parent (the merge transition, the
// header, the ommers, the body), executes it on its parent's state and
// checks the outcome against the header, storing nothing. InsertBlock
// stores the result later without running the block again
// (InsertOptions.Executed): a BFT validator checks a proposal so before
// agreeing to it. An invalid block is recorded for debug_getBadBlocks, as
// InsertBlock records it. Execute takes no lock: it only reads the chain.
func (c *Chain) Execute(ctx context.Context, block *types.Block, opts ExecuteOptions) (*Executed, error) {
	header := block.Header()
	hash := c.engine.Hash(header)
	number := header.Number.Uint64()
	if number == 0 {
		return nil, errors.New("cannot execute a genesis block")
	}
	parent := c.GetHeader(header.ParentHash, number-1)
	if parent == nil {
		return nil, fmt.Errorf("block %d: %w (parent %s)", number, consensus.ErrUnknownAncestor, header.ParentHash.Hex())
	}
	parentTD := c.GetTD(header.ParentHash, number-1)
	if parentTD == nil {
		return nil, fmt.Errorf("block %d: total difficulty of parent missing", number)
	}
	if err := c.verify(block, hash, parent, parentTD, !opts.SkipSeal); err != nil {
		return nil, err
	}
	ex, err := c.run(ctx, block, hash, parent, opts.SendersRecovered)
	if err != nil {
		return nil, err
	}
	ex.verified, ex.sealVerified = hash, !opts.SkipSeal
	return ex, nil
}

// verifyExecuted is verify for a block being inserted, which Execute may
// have verified already (ex): a block of the same engine hash has the same
// header but for its seal (the BFT block hash leaves the commit round and
// seals out), the same ommers and the same body, so what is left to check
// is the seal, if Execute skipped it, alone where the engine checks it
// apart (consensus.SealVerifier).
func (c *Chain) verifyExecuted(block *types.Block, hash common.Hash, parent *types.Header, parentTD *big.Int, seal bool, ex *Executed) error {
	if ex == nil || ex.verified != hash {
		return c.verify(block, hash, parent, parentTD, seal)
	}
	if !seal || ex.sealVerified {
		return nil
	}
	sv, ok := c.engine.(consensus.SealVerifier)
	if !ok {
		return c.verify(block, hash, parent, parentTD, seal)
	}
	if err := sv.VerifySeal(c, block.Header(), parent); err != nil {
		return c.invalid(block, hash, fmt.Errorf("block %d: invalid header: %w", block.NumberU64(), err))
	}
	return nil
}

// verify checks block (engine hash hash) against its parent: the merge
// transition, the header (with its seal when seal), the ommers and the
// body. A block that fails is recorded as bad, except at the merge
// transition, where the fault may be the order the blocks came in.
func (c *Chain) verify(block *types.Block, hash common.Hash, parent *types.Header, parentTD *big.Int, seal bool) error {
	header := block.Header()
	number := header.Number.Uint64()
	if err := c.checkMergeTransition(header, parent, parentTD); err != nil {
		return fmt.Errorf("block %d: %w", number, err)
	}
	if err := c.engine.VerifyHeader(c, header, parent, seal); err != nil {
		return c.invalid(block, hash, fmt.Errorf("block %d: invalid header: %w", number, err))
	}
	if err := c.engine.VerifyUncles(c, block, seal); err != nil {
		return c.invalid(block, hash, fmt.Errorf("block %d: invalid uncles: %w", number, err))
	}
	if err := ValidateBody(block); err != nil {
		return c.invalid(block, hash, fmt.Errorf("block %d: invalid body: %w", number, err))
	}
	if err := ValidateSize(c.config, block); err != nil {
		return c.invalid(block, hash, fmt.Errorf("block %d: %w", number, err))
	}
	return nil
}

// run executes the verified block on its parent's state and checks the
// outcome against the header. A block stopped by ctx is not recorded as
// bad; one whose execution or outcome fails is.
func (c *Chain) run(ctx context.Context, block *types.Block, hash common.Hash, parent *types.Header, sendersRecovered bool) (*Executed, error) {
	number := block.NumberU64()
	if !sendersRecovered {
		RecoverSenders(c.exec.Signer(block.Header()), block, c.exec.opts.knownTx)
	}
	statedb, err := c.StateAt(parent.Root)
	if err != nil {
		return nil, fmt.Errorf("block %d: parent state unavailable: %w", number, err)
	}
	result, err := c.exec.Process(ctx, block, hash, statedb)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("block %d: %w", number, err) // stopped, not invalid
		}
		return nil, c.invalid(block, hash, fmt.Errorf("block %d: %w", number, err))
	}
	if _, err := ValidateResult(c.config, block.Header(), statedb, result); err != nil {
		return nil, c.invalid(block, hash, fmt.Errorf("block %d: %w", number, err))
	}
	return &Executed{State: statedb, Receipts: result.Receipts}, nil
}

// Sync writes the in-memory state of a bulk import and flushes every write
// so far to stable storage.
func (c *Chain) Sync() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.states.flush(); err != nil {
		return err
	}
	return c.db.SyncKeyValue()
}

// checkMergeTransition enforces the order PoW -> PoS. A genesis without a
// terminal total difficulty (Besu's harness genesis files) accepts the
// transition wherever the chain makes it.
func (c *Chain) checkMergeTransition(header, parent *types.Header, parentTD *big.Int) error {
	postMerge := header.Difficulty.Sign() == 0
	parentPostMerge := parent.Difficulty.Sign() == 0 && parent.Number.Sign() > 0
	switch {
	case parentPostMerge && !postMerge:
		return errors.New("proof-of-work block after the merge")
	case postMerge && !parentPostMerge && parent.Difficulty.Sign() > 0:
		if ttd := c.config.TerminalTotalDifficulty; ttd != nil && parentTD.Cmp(ttd) < 0 {
			return fmt.Errorf("merge transition at total difficulty %v below terminal total difficulty %v", parentTD, ttd)
		}
	}
	return nil
}

// wins is the fork-choice rule: heavier total difficulty, or for post-merge
// blocks equal difficulty and a higher block. A tie between pre-merge
// blocks goes to the engine's fork chooser when it has one (Clique's
// EIP-3436 rules), else the head stays.
func (c *Chain) wins(header *types.Header, td *big.Int, cur *headInfo) bool {
	switch td.Cmp(cur.td) {
	case 1:
		return true
	case 0:
		if header.Difficulty.Sign() == 0 {
			return header.Number.Cmp(cur.header.Number) > 0
		}
		if c.forkChooser != nil && cur.header.Difficulty.Sign() > 0 {
			return c.forkChooser.PreferHead(c, header, cur.header)
		}
	}
	return false
}

// setHead writes the canonical index for the new head into batch and
// returns the event describing the change.
func (c *Chain) setHead(batch ethdb.Batch, block *types.Block, hash common.Hash, cur *headInfo) (*HeadEvent, error) {
	header := block.Header()
	ev := &HeadEvent{Header: header, Hash: hash}

	// Walk the new branch back to the canonical chain.
	added := []*types.Block{block}
	addedHashes := []common.Hash{hash}
	h := header
	for {
		n := h.Number.Uint64() - 1
		ph := h.ParentHash
		if readCanonicalHash(c.db, n) == ph && n <= cur.header.Number.Uint64() {
			break
		}
		pb := c.GetBlock(ph, n)
		if pb == nil {
			return nil, fmt.Errorf("reorg: block %d %s missing", n, ph.Hex())
		}
		added = append(added, pb)
		addedHashes = append(addedHashes, ph)
		h = pb.Header()
	}
	ancestor := h.Number.Uint64() - 1

	// Blocks leaving the canonical chain, newest first.
	for n := cur.header.Number.Uint64(); n > ancestor; n-- {
		oh := readCanonicalHash(c.db, n)
		ob := c.GetBlock(oh, n)
		if ob == nil {
			return nil, fmt.Errorf("reorg: canonical block %d missing", n)
		}
		ev.Removed = append(ev.Removed, ob)
		for _, tx := range ob.Transactions() {
			batch.Delete(txLookupKey(tx.Hash()))
		}
		if n > header.Number.Uint64() {
			batch.Delete(canonicalKey(n))
		}
	}
	// Blocks joining it, oldest first.
	for i := len(added) - 1; i >= 0; i-- {
		b := added[i]
		n := b.NumberU64()
		if err := batch.Put(canonicalKey(n), addedHashes[i][:]); err != nil {
			return nil, err
		}
		enc := encodeNumber(n)
		for _, tx := range b.Transactions() {
			if err := batch.Put(txLookupKey(tx.Hash()), enc); err != nil {
				return nil, err
			}
		}
		ev.Added = append(ev.Added, b)
	}
	if err := batch.Put(keyHead, hash[:]); err != nil {
		return nil, err
	}
	return ev, nil
}
