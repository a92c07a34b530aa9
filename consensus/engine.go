// Package consensus defines the interface every consensus engine (ethash,
// beacon, clique, ibft2) implements, and is the only place allowed to compute
// block hashes: the chain store keys blocks by Engine.Hash, never by
// types.Header.Hash, because IBFT 2.0 hashes a filtered header.
//
// Engines own block production: beyond Engine, an engine implements the
// optional capability interfaces of capabilities.go (proof-of-work remote
// mining, RPC groups, devp2p sub-protocols, seal scheduling, a producer of
// its own), which the node looks up in one place. The seams a producer runs
// on (clock, transport, block building and import) are here too, so that a
// BFT core stays a pure state machine behind them.
package consensus

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// ChainReader is the read access to the local chain an engine needs while
// verifying or preparing headers.
type ChainReader interface {
	// Config is the chain's fork configuration.
	Config() *params.ChainConfig
	// GetHeader returns the header with the given engine hash and number, or nil.
	GetHeader(hash common.Hash, number uint64) *types.Header
	// GetHeaderByNumber returns the canonical header at number, or nil.
	GetHeaderByNumber(number uint64) *types.Header
}

// Engine is a consensus engine.
type Engine interface {
	// Hash is the block hash by which the chain identifies header (and which
	// children carry as ParentHash).
	Hash(header *types.Header) common.Hash

	// Author returns the account credited with the block's fees and rewards.
	Author(header *types.Header) (common.Address, error)

	// VerifyHeader checks header against its parent. seal=false skips the
	// seal (PoW or signature) check, as `blocks import
	// --skip-pow-validation-enabled` asks.
	VerifyHeader(chain ChainReader, header, parent *types.Header, seal bool) error

	// VerifyUncles checks the ommers of block (engines without ommers reject
	// any). seal has VerifyHeader's meaning for each ommer's header, and a
	// caller passes the same value to both: skipping seals means skipping
	// them for every header of the block, because the chains generated for
	// client test suites carry ommers without a valid seal. Every other
	// ommer rule applies either way.
	VerifyUncles(chain ChainReader, block *types.Block, seal bool) error

	// Prepare fills the consensus fields (difficulty, ...) of a header being
	// built on parent.
	Prepare(chain ChainReader, header, parent *types.Header) error

	// Finalize applies the engine's state changes at the end of a block
	// (block and ommer rewards).
	Finalize(chain ChainReader, header *types.Header, state vm.StateDB, uncles []*types.Header)

	// Seal returns a copy of header carrying a valid seal. It blocks until a
	// seal is found or ctx ends (then it returns ctx.Err()). An engine that
	// cannot seal header now (post-merge, not authorised, not its turn)
	// returns a *CannotSealError saying why, at once.
	Seal(ctx context.Context, header *types.Header) (*types.Header, error)

	// Close releases the engine's resources (worker goroutines, caches).
	Close() error
}
