package ethash

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

const (
	// allowedFutureBlockTime is how far ahead of the local clock a header's
	// timestamp may be.
	allowedFutureBlockTime = 15 // seconds
	// maxUncles is the most ommers a block may include.
	maxUncles = 2
	// uncleGenerations is how many ancestors back an uncle's parent may be.
	uncleGenerations = 7
)

var (
	errDuplicateUncle  = errors.New("duplicate uncle")
	errUncleIsAncestor = errors.New("uncle is an ancestor")
	errDanglingUncle   = errors.New("uncle's parent is not an ancestor within 7 generations")
)

// BlockReader is an optional extension of consensus.ChainReader. When the
// chain given to VerifyUncles implements it, an uncle already included by one
// of the last 7 ancestors is rejected (Yellow Paper 11.1); without it that
// rule cannot be checked here and is the caller's.
type BlockReader interface {
	// GetBlock returns the block with the given engine hash and number, or nil.
	GetBlock(hash common.Hash, number uint64) *types.Block
}

// VerifyHeader checks header against parent: number, timestamp (after the
// parent's, at most 15 s ahead of the local clock), extra-data size, gas
// limit (±1/1024 of the parent's and at least 5000, or EIP-1559's elastic
// rule and base fee from London on), gas used, difficulty, the post-London
// fields of the forks active at the header (see verifyForkFields), the DAO
// extra-data rule, and with seal the proof of work.
func (e *Ethash) VerifyHeader(chain consensus.ChainReader, header, parent *types.Header, seal bool) error {
	return e.verifyHeader(chain.Config(), header, parent, seal, false)
}

// verifyHeader does VerifyHeader's work; uncle skips the future-timestamp
// check, which does not apply to ommers.
func (e *Ethash) verifyHeader(config *params.ChainConfig, header, parent *types.Header, seal, uncle bool) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	if header.Number == nil || header.Difficulty == nil || parent.Number == nil || parent.Difficulty == nil {
		return errors.New("header without number or difficulty")
	}
	if new(big.Int).Sub(header.Number, parent.Number).Cmp(common.Big1) != 0 {
		return consensus.ErrInvalidNumber
	}
	if uint64(len(header.Extra)) > params.MaximumExtraDataSize {
		return fmt.Errorf("extra-data too long: %d > %d bytes", len(header.Extra), params.MaximumExtraDataSize)
	}
	if !uncle && header.Time > uint64(e.now().Unix())+allowedFutureBlockTime {
		return consensus.ErrFutureBlock
	}
	if header.Time <= parent.Time {
		return fmt.Errorf("%w: not after parent's", consensus.ErrInvalidTimestamp)
	}
	if want := e.CalcDifficulty(config, header.Time, parent); header.Difficulty.Cmp(want) != 0 {
		return fmt.Errorf("invalid difficulty: have %v, want %v", header.Difficulty, want)
	}
	if err := feemarket.VerifyGas(config, header, parent); err != nil {
		return err
	}
	if err := verifyForkFields(config, header, parent); err != nil {
		return err
	}
	if err := misc.VerifyDAOHeaderExtraData(config, header); err != nil {
		return err
	}
	if seal {
		return e.VerifyPoW(header)
	}
	return nil
}

// verifyForkFields checks the header fields that later forks added, which a
// PoW header carries when those timestamp forks are configured on a PoW
// chain: each must be present exactly when its fork is active.
//   - Shanghai: withdrawalsRoot, and it must be the empty root (proof of work
//     has no withdrawals).
//   - Cancun: blobGasUsed and excessBlobGas (EIP-4844 rules) and
//     parentBeaconBlockRoot (any value; Basalt's miner sets zero).
//   - Prague: requestsHash (its value is checked against the executed
//     requests by the block processor).
//   - Amsterdam is not supported on proof of work; its fields must be absent.
func verifyForkFields(config *params.ChainConfig, header, parent *types.Header) error {
	if err := consensus.VerifyForkFields(config, header, parent); err != nil {
		return err
	}
	if h := header.WithdrawalsHash; h != nil && *h != types.EmptyWithdrawalsHash {
		return fmt.Errorf("invalid withdrawalsRoot %x: proof-of-work blocks carry no withdrawals", *h)
	}
	if config.IsAmsterdam(header.Number, header.Time) {
		return errors.New("ethash does not support the Amsterdam fork")
	}
	switch {
	case header.BlockAccessListHash != nil:
		return fmt.Errorf("invalid blockAccessListHash: have %x, want none", *header.BlockAccessListHash)
	case header.SlotNumber != nil:
		return fmt.Errorf("invalid slotNumber: have %d, want none", *header.SlotNumber)
	}
	return nil
}

// VerifyUncles checks the block's ommers: at most 2, no duplicates, none an
// ancestor of the block, each a child of one of the block's ancestors 2 to 7
// generations back, and each a valid header on its parent, its proof of
// work included when seal is set. An uncle already included by an earlier
// block is rejected only when chain implements BlockReader. The ommers hash
// itself is the chain store's check.
func (e *Ethash) VerifyUncles(chain consensus.ChainReader, block *types.Block, seal bool) error {
	uncles := block.Uncles()
	if len(uncles) > maxUncles {
		return consensus.ErrTooManyUncles
	}
	if len(uncles) == 0 {
		return nil
	}

	// Gather the ancestors (and the uncles they already included).
	ancestors := make(map[common.Hash]*types.Header, uncleGenerations+1)
	seen := make(map[common.Hash]struct{})
	blocks, _ := chain.(BlockReader)

	hash, number := block.ParentHash(), block.NumberU64()-1
	for i := 0; i < uncleGenerations && block.NumberU64() > uint64(i); i++ {
		ancestor := chain.GetHeader(hash, number)
		if ancestor == nil {
			break
		}
		ancestors[hash] = ancestor
		if blocks != nil && ancestor.UncleHash != types.EmptyUncleHash {
			if b := blocks.GetBlock(hash, number); b != nil {
				for _, u := range b.Uncles() {
					seen[e.Hash(u)] = struct{}{}
				}
			}
		}
		if number == 0 {
			break
		}
		hash, number = ancestor.ParentHash, number-1
	}
	self := e.Hash(block.Header())
	ancestors[self] = block.Header()
	seen[self] = struct{}{}

	for _, uncle := range uncles {
		hash := e.Hash(uncle)
		if _, dup := seen[hash]; dup {
			return errDuplicateUncle
		}
		seen[hash] = struct{}{}
		if ancestors[hash] != nil {
			return errUncleIsAncestor
		}
		parent := ancestors[uncle.ParentHash]
		if parent == nil || uncle.ParentHash == block.ParentHash() {
			return errDanglingUncle
		}
		if err := e.verifyHeader(chain.Config(), uncle, parent, seal, true); err != nil {
			return fmt.Errorf("uncle %x: %w", hash, err)
		}
	}
	return nil
}

// Prepare sets the difficulty of a header being built on parent (its Number
// and Time are already set).
func (e *Ethash) Prepare(chain consensus.ChainReader, header, parent *types.Header) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	header.Difficulty = e.CalcDifficulty(chain.Config(), header.Time, parent)
	return nil
}
