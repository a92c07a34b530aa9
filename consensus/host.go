package consensus

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// buildBudgetKey is the context key of WithBuildBudget.
type buildBudgetKey struct{}

// WithBuildBudget returns ctx telling Host.Build to stop adding
// transactions once it has spent d on them, and complete the block with
// those added: a BFT proposer keeps its block executable by the other
// validators within the round timer, whatever the pool holds.
func WithBuildBudget(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, buildBudgetKey{}, d)
}

// BuildBudget is the budget WithBuildBudget set on ctx, if any.
func BuildBudget(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(buildBudgetKey{}).(time.Duration)
	return d, ok && d > 0
}

// Host is what the node offers a Producer: the seams between a pure
// consensus core and the world (STYLE.md §1). Its transport is the engine's
// own ProtocolProvider (see p2p/subprotocol.Transport).
type Host interface {
	// Clock is the time source and timer factory production runs on.
	Clock() Clock
	// Chain is the local chain.
	Chain() ChainHeadReader
	// SubscribeHeads delivers new canonical heads to ch until unsubscribe
	// is called or the producer's run ends. The chain never waits for the
	// receiver: one that falls behind misses intermediate heads, never the
	// newest.
	SubscribeHeads(ch chan<- Head) (unsubscribe func())
	// Build assembles an unsealed block on parent (engine hash parentHash)
	// with timestamp ts and the pool's transactions, with the node's
	// shared block builder, adding transactions for at most the
	// BuildBudget of ctx when it has one. It returns a *CannotSealError
	// when the node's engine (or a wrapper around it) refuses to seal on
	// parent.
	Build(ctx context.Context, parent *types.Header, parentHash common.Hash, ts uint64) (Candidate, error)
	// Execute verifies (header without seal, body) and executes a block
	// produced elsewhere on its parent's state without inserting it: a BFT
	// validator checks a proposal so before agreeing to it. The returned
	// candidate inserts the block once sealed without executing it again.
	Execute(ctx context.Context, block *types.Block) (Candidate, error)
	// Import verifies, executes and inserts a block produced elsewhere (a
	// committed proposal of another validator); the node announces it to
	// its peers once it is the head.
	Import(ctx context.Context, block *types.Block) error
}

// Head is a new canonical head.
type Head struct {
	Header *types.Header
	// Hash is the head's engine hash.
	Hash common.Hash
}

// Candidate is a block Host.Build assembled, with its executed state kept
// by the node so that inserting it once sealed does not execute it again.
type Candidate interface {
	// Block is the unsealed block.
	Block() *types.Block
	// Insert verifies sealed (the block's header with the engine's seal
	// added) and inserts the block so sealed into the chain, which makes
	// the node announce it. A candidate is inserted at most once.
	Insert(ctx context.Context, sealed *types.Header) error
}
