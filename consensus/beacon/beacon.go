// Package beacon is the consensus engine for chains that moved from proof of
// work to proof of stake (The Merge), such as Besu's conformance chain, whose
// blocks 33 and 34 are PoS blocks on top of 32 ethash blocks.
//
// A header is post-merge exactly when its difficulty is 0. Pre-merge headers
// are handed to the inner engine (ethash) for everything. Post-merge headers
// are checked against the rules of the execution layer alone: difficulty 0,
// nonce 0, no ommers, extra-data of at most 32 bytes, timestamp after the
// parent's, the EIP-1559 gas limit and base fee, and the fields of Shanghai,
// Cancun and Prague when those forks are active. Their seal is the consensus
// layer's business, so there is no seal to check here and Basalt cannot seal
// such blocks; they carry no block or ommer rewards.
//
// Block production stops at the merge: NextSeal (the engine's
// consensus.Scheduler) refuses to seal on a post-merge parent and Seal
// refuses a post-merge header, both with a *consensus.CannotSealError whose
// reason is "post-merge head", so the node's production loop waits for a new
// head instead of retrying. Everything else the inner engine can do (remote
// proof-of-work mining, hash rates, RPC groups, devp2p sub-protocols, its
// own producer) the node finds through Inner (consensus.Wrapper); those
// capabilities are about the pre-merge part of the chain or are stopped at
// the merge by NextSeal, which the node applies to producers too.
//
// What this engine cannot see is where the merge happened: the rule that the
// first PoS block's parent must have reached the terminal total difficulty
// (and no PoW block may follow it) needs total difficulty, which the chain
// store keeps. The chain store enforces it.
package beacon

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// errCannotSeal is the answer to sealing on or after a post-merge block:
// proof-of-stake blocks are sealed by the consensus layer, not by this node,
// and no proof-of-work block may follow one. No retry: only a new head (a
// reorg to a pre-merge branch) changes it.
var errCannotSeal = &consensus.CannotSealError{Reason: consensus.ReasonPostMerge}

var errPoWAfterMerge = errors.New("beacon: proof-of-work block after a proof-of-stake block")

// Beacon wraps a proof-of-work engine for chains that went through the merge.
type Beacon struct {
	inner consensus.Engine
}

var (
	_ consensus.Wrapper   = (*Beacon)(nil)
	_ consensus.Scheduler = (*Beacon)(nil)
)

// New returns a Beacon engine handing pre-merge headers to inner.
func New(inner consensus.Engine) *Beacon {
	return &Beacon{inner: inner}
}

// Inner returns the engine that handles pre-merge headers. It makes Beacon a
// consensus.Wrapper: the node finds the inner engine's capabilities through
// it.
func (b *Beacon) Inner() consensus.Engine {
	return b.inner
}

// IsPoSHeader reports whether header is post-merge: its difficulty is 0.
func IsPoSHeader(header *types.Header) bool {
	return header.Difficulty != nil && header.Difficulty.Sign() == 0
}

// Hash returns the block hash: the inner engine's for pre-merge headers,
// Keccak-256 of the RLP header for post-merge ones.
func (b *Beacon) Hash(header *types.Header) common.Hash {
	if IsPoSHeader(header) {
		return header.Hash()
	}
	return b.inner.Hash(header)
}

// Author returns the fee recipient (coinbase) of a post-merge header, and the
// inner engine's answer for a pre-merge one.
func (b *Beacon) Author(header *types.Header) (common.Address, error) {
	if IsPoSHeader(header) {
		return header.Coinbase, nil
	}
	return b.inner.Author(header)
}

// VerifyHeader checks a post-merge header as the package doc describes and
// hands a pre-merge one to the inner engine, rejecting a pre-merge header on
// a post-merge parent. seal matters only for pre-merge headers.
func (b *Beacon) VerifyHeader(chain consensus.ChainReader, header, parent *types.Header, seal bool) error {
	if header.Difficulty == nil {
		return errors.New("beacon: header without difficulty")
	}
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	if !IsPoSHeader(header) {
		if IsPoSHeader(parent) {
			return errPoWAfterMerge
		}
		return b.inner.VerifyHeader(chain, header, parent, seal)
	}
	return verifyPoSHeader(chain.Config(), header, parent)
}

func verifyPoSHeader(config *params.ChainConfig, header, parent *types.Header) error {
	if header.Number == nil || parent.Number == nil {
		return errors.New("beacon: header without number")
	}
	if new(big.Int).Sub(header.Number, parent.Number).Cmp(common.Big1) != 0 {
		return consensus.ErrInvalidNumber
	}
	if uint64(len(header.Extra)) > params.MaximumExtraDataSize {
		return fmt.Errorf("beacon: extra-data too long: %d > %d bytes", len(header.Extra), params.MaximumExtraDataSize)
	}
	if header.Nonce != (types.BlockNonce{}) {
		return fmt.Errorf("beacon: %w: post-merge block with non-zero nonce", consensus.ErrInvalidNonce)
	}
	if header.UncleHash != types.EmptyUncleHash {
		return fmt.Errorf("beacon: %w: post-merge block with ommers", consensus.ErrUnexpectedUncles)
	}
	if header.Time <= parent.Time {
		return fmt.Errorf("beacon: %w: not after parent's", consensus.ErrInvalidTimestamp)
	}
	if header.GasLimit > params.MaxGasLimit {
		return fmt.Errorf("beacon: invalid gas limit: have %d, max %d", header.GasLimit, params.MaxGasLimit)
	}
	if header.GasUsed > header.GasLimit {
		return fmt.Errorf("beacon: invalid gas used: have %d, gas limit %d", header.GasUsed, header.GasLimit)
	}
	if !config.IsLondon(header.Number) {
		return errors.New("beacon: post-merge block before London")
	}
	if err := feemarket.VerifyLondonGas(config, header, parent); err != nil {
		return fmt.Errorf("beacon: %w", err)
	}
	return verifyForkFields(config, header, parent)
}

// verifyForkFields checks that the fields of Shanghai (withdrawalsRoot),
// Cancun (blobGasUsed, excessBlobGas, parentBeaconBlockRoot) and Prague
// (requestsHash) are present exactly when their fork is active. The roots'
// values are checked against the body and the executed requests by the
// chain store and the block processor. Amsterdam's fields follow the same
// rule.
func verifyForkFields(config *params.ChainConfig, header, parent *types.Header) error {
	if err := consensus.VerifyForkFields(config, header, parent); err != nil {
		return fmt.Errorf("beacon: %w", err)
	}
	if config.IsAmsterdam(header.Number, header.Time) {
		if header.BlockAccessListHash == nil {
			return errors.New("beacon: header is missing blockAccessListHash")
		}
		if header.SlotNumber == nil {
			return errors.New("beacon: header is missing slotNumber")
		}
		return nil
	}
	switch {
	case header.BlockAccessListHash != nil:
		return fmt.Errorf("beacon: invalid blockAccessListHash before Amsterdam: have %x, want none", *header.BlockAccessListHash)
	case header.SlotNumber != nil:
		return fmt.Errorf("beacon: invalid slotNumber before Amsterdam: have %d, want none", *header.SlotNumber)
	}
	return nil
}

// VerifyUncles rejects any ommer in a post-merge block and hands pre-merge
// blocks, and seal, to the inner engine.
func (b *Beacon) VerifyUncles(chain consensus.ChainReader, block *types.Block, seal bool) error {
	if !IsPoSHeader(block.Header()) {
		return b.inner.VerifyUncles(chain, block, seal)
	}
	if len(block.Uncles()) > 0 {
		return fmt.Errorf("beacon: %w: post-merge block with ommers", consensus.ErrUnexpectedUncles)
	}
	return nil
}

// Prepare sets difficulty 0 on a header built on a post-merge parent and
// hands other headers to the inner engine. (Such a header cannot be sealed
// here; see Seal.)
func (b *Beacon) Prepare(chain consensus.ChainReader, header, parent *types.Header) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	if IsPoSHeader(parent) {
		header.Difficulty = new(big.Int)
		return nil
	}
	return b.inner.Prepare(chain, header, parent)
}

// Finalize pays nothing for a post-merge block (issuance moved to the
// consensus layer; withdrawals are applied by the block processor) and hands
// pre-merge blocks to the inner engine.
func (b *Beacon) Finalize(chain consensus.ChainReader, header *types.Header, state vm.StateDB, uncles []*types.Header) {
	if IsPoSHeader(header) {
		return
	}
	b.inner.Finalize(chain, header, state, uncles)
}

// NextSeal refuses to seal on a post-merge parent (the chain has merged; only
// the consensus layer extends it) and sets no bound otherwise: the inner
// engine's own Scheduler, if any, is consulted by the node as well.
func (b *Beacon) NextSeal(_ consensus.ChainReader, parent *types.Header, _ time.Time) (time.Time, error) {
	if IsPoSHeader(parent) {
		return time.Time{}, errCannotSeal
	}
	return time.Time{}, nil
}

// Seal seals pre-merge headers with the inner engine and refuses post-merge
// ones with a *consensus.CannotSealError ("post-merge head").
func (b *Beacon) Seal(ctx context.Context, header *types.Header) (*types.Header, error) {
	if IsPoSHeader(header) {
		return nil, errCannotSeal
	}
	return b.inner.Seal(ctx, header)
}

// Close closes the inner engine.
func (b *Beacon) Close() error {
	return b.inner.Close()
}
