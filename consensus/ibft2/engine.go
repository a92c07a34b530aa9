// Package ibft2 is the IBFT 2.0 consensus engine, compatible with Besu's:
// the extraData codec, the block hashes (on chain without round and seals,
// the commit-seal hash with the round), header and commit-seal rules, the
// vote tally, the IBF/1 message codec, the IBFT JSON-RPC group and the
// producer that runs the shared BFT core (package bft) through the adapter
// (package bftadapter).
package ibft2

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/driver"
)

// allowedFutureBlockTime is how far ahead of the local clock a block's
// timestamp may be (Besu: now + 1 s).
const allowedFutureBlockTime = 1

// Errors of header verification.
var (
	ErrInvalidMixDigest  = errors.New("invalid mix digest")
	ErrInvalidNonce      = errors.New("invalid nonce: must be 0")
	ErrInvalidDifficulty = errors.New("invalid difficulty: must be 1")
	ErrInvalidUncleHash  = errors.New("invalid ommers hash: IBFT 2.0 blocks have no ommers")
	ErrInvalidTimestamp  = errors.New("timestamp below parent's plus the block period")
	ErrInvalidValidators = errors.New("extraData validators differ from the vote tally")
	ErrInvalidCoinbase   = errors.New("coinbase is not a validator")
	ErrInsufficientSeals = errors.New("fewer commit seals than the quorum")
	ErrInvalidCommitSeal = errors.New("invalid commit seal")
)

// Engine is the IBFT 2.0 engine. It is safe for concurrent use.
type Engine struct {
	cfg   *config.IBFT2Config
	key   *ecdsa.PrivateKey // nil: verification only
	self  common.Address
	clock consensus.Clock

	tallies   *lru.Cache[common.Hash, *bft.Tally]
	proposals *bft.Proposals
	net       *network
	metrics   driver.Metrics // set by SetMetrics before Produce

	closeOnce sync.Once
}

// Options are optional settings of New.
type Options struct {
	// Key is the node key; without it the engine verifies but cannot
	// produce blocks.
	Key *ecdsa.PrivateKey
	// Clock is the time source (the wall clock when nil).
	Clock consensus.Clock
}

// New returns an IBFT 2.0 engine with the genesis options cfg.
func New(cfg *config.IBFT2Config, opts Options) *Engine {
	e := &Engine{cfg: cfg, key: opts.Key, clock: opts.Clock,
		tallies: lru.NewCache[common.Hash, *bft.Tally](4096), proposals: bft.NewProposals()}
	if e.clock == nil {
		e.clock = consensus.SystemClock
	}
	if e.key != nil {
		e.self = crypto.PubkeyToAddress(e.key.PublicKey)
	}
	e.net = newNetwork(cfg)
	return e
}

// Address is the local validator address (zero without a key).
func (e *Engine) Address() common.Address { return e.self }

// SealerAddress is the node key's address (consensus.KeySealer): the node
// then produces without --miner-enabled, as Besu's validators do, and
// proposes with this coinbase; false without a key.
func (e *Engine) SealerAddress() (common.Address, bool) { return e.self, e.key != nil }

// Config returns the genesis options the engine runs with.
func (e *Engine) Config() *config.IBFT2Config { return e.cfg }

// Hash is the on-chain block hash (see BlockHash).
func (e *Engine) Hash(header *types.Header) common.Hash { return BlockHash(header) }

// Author is the block's proposer, its coinbase: it earns the fees.
func (e *Engine) Author(header *types.Header) (common.Address, error) { return header.Coinbase, nil }

// VerifyHeader checks header against parent with Besu's IBFT 2.0 rules
// (IbftBlockHeaderValidationRulesetFactory) and, when seal is set, its
// commit seals.
func (e *Engine) VerifyHeader(chain consensus.ChainReader, header, parent *types.Header, seal bool) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	if header.Number == nil || parent.Number == nil || header.Number.Uint64() != parent.Number.Uint64()+1 {
		return consensus.ErrInvalidNumber
	}
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return err
	}
	if header.MixDigest != MixDigest {
		return ErrInvalidMixDigest
	}
	if header.Nonce != (types.BlockNonce{}) {
		return ErrInvalidNonce
	}
	if header.Difficulty == nil || header.Difficulty.Cmp(common.Big1) != 0 {
		return ErrInvalidDifficulty
	}
	if header.UncleHash != types.EmptyUncleHash {
		return ErrInvalidUncleHash
	}
	if header.Time < parent.Time+e.cfg.BlockPeriodSeconds {
		return ErrInvalidTimestamp
	}
	if header.Time > uint64(e.clock.Now().Unix())+allowedFutureBlockTime {
		return consensus.ErrFutureBlock
	}
	if err := consensus.VerifyGas(chain.Config(), header, parent); err != nil {
		return err
	}
	if err := consensus.VerifyForkFields(chain.Config(), header, parent); err != nil {
		return err
	}
	tally, err := e.tallyAfter(chain, parent)
	if err != nil {
		return err
	}
	if !slices.Equal(extra.Validators, tally.Validators()) {
		return ErrInvalidValidators
	}
	if !tally.IsValidator(header.Coinbase) {
		return ErrInvalidCoinbase
	}
	if seal {
		return verifySeals(header, extra, tally)
	}
	return nil
}

// verifySeals checks the commit seals: at least a quorum, each by a
// distinct validator of the block.
func verifySeals(header *types.Header, extra *ExtraData, tally *bft.Tally) error {
	digest := filteredHash(header, extra, layoutWithoutSeals)
	seen := map[common.Address]bool{}
	for i, s := range extra.Seals {
		a, err := recoverSigner(digest, s)
		if err != nil {
			return fmt.Errorf("%w %d: %v", ErrInvalidCommitSeal, i, err)
		}
		if !tally.IsValidator(a) {
			return fmt.Errorf("%w %d: %s is not a validator", ErrInvalidCommitSeal, i, a.Hex())
		}
		if seen[a] {
			return fmt.Errorf("%w %d: %s sealed twice", ErrInvalidCommitSeal, i, a.Hex())
		}
		seen[a] = true
	}
	if q := bft.Quorum(len(tally.Validators())); len(seen) < q {
		return fmt.Errorf("%w: %d seals, quorum %d", ErrInsufficientSeals, len(seen), q)
	}
	return nil
}

// VerifyUncles rejects any ommer.
func (e *Engine) VerifyUncles(chain consensus.ChainReader, block *types.Block, seal bool) error {
	if len(block.Uncles()) > 0 {
		return errors.New("IBFT 2.0 blocks have no ommers")
	}
	return nil
}

// Prepare fills the consensus fields of a block the local validator
// proposes: constant mix digest, nonce 0, difficulty 1, itself as
// coinbase, and extraData with the validators after parent, its next
// pending vote and round 0 (the producer sets the round).
func (e *Engine) Prepare(chain consensus.ChainReader, header, parent *types.Header) error {
	if e.key == nil {
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	tally, err := e.tallyAfter(chain, parent)
	if err != nil {
		return err
	}
	if !tally.IsValidator(e.self) {
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	extra := &ExtraData{Validators: tally.Validators()}
	if a, add, ok := e.proposals.Next(e.self, tally); ok {
		extra.Vote = &Vote{Recipient: a, Add: add}
	}
	header.Extra = extra.Encode()
	header.Coinbase = e.self
	header.Difficulty = big.NewInt(1)
	header.MixDigest = MixDigest
	header.Nonce = types.BlockNonce{}
	header.UncleHash = types.EmptyUncleHash
	return nil
}

// Finalize pays the block reward (config.ibft2.blockreward, 0 by default)
// to the mining beneficiary or else the proposer.
func (e *Engine) Finalize(chain consensus.ChainReader, header *types.Header, state vm.StateDB, uncles []*types.Header) {
	if e.cfg.BlockReward == nil || e.cfg.BlockReward.Sign() <= 0 {
		return
	}
	to := header.Coinbase
	if e.cfg.MiningBeneficiary != nil {
		to = *e.cfg.MiningBeneficiary
	}
	r, _ := uint256.FromBig(e.cfg.BlockReward)
	state.AddBalance(to, r, tracing.BalanceIncreaseRewardMineBlock)
}

// Seal is not how IBFT 2.0 blocks get sealed: the producer collects commit
// seals from a quorum of validators.
func (e *Engine) Seal(ctx context.Context, header *types.Header) (*types.Header, error) {
	return nil, &consensus.CannotSealError{Reason: "IBFT 2.0 blocks are sealed by the validators' consensus"}
}

// Close releases nothing; the producer's goroutines end with its context.
func (e *Engine) Close() error { return nil }

// Validators returns the validators of header's block (its extraData), as
// ibft_getValidatorsByBlock* report them: no replay needed.
func Validators(header *types.Header) ([]common.Address, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return nil, err
	}
	return extra.Validators, nil
}

// tallyAfter returns the vote tally after header: the validators of the
// next block and the outstanding votes. It walks back to a cached tally,
// an epoch block (whose tally is its validators and no votes) or genesis.
func (e *Engine) tallyAfter(chain consensus.ChainReader, header *types.Header) (*bft.Tally, error) {
	var (
		pending []*types.Header
		base    *bft.Tally
		h       = header
	)
	for {
		hash := BlockHash(h)
		if t, ok := e.tallies.Get(hash); ok {
			base = t.Copy()
			break
		}
		n := h.Number.Uint64()
		if n == 0 || n%e.cfg.EpochLength == 0 {
			vals, err := Validators(h)
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", n, err)
			}
			base = bft.NewTally(vals)
			e.tallies.Add(hash, base.Copy())
			break
		}
		pending = append(pending, h)
		parent := chain.GetHeader(h.ParentHash, n-1)
		if parent == nil {
			return nil, fmt.Errorf("tally of block %d: %w", n, consensus.ErrUnknownAncestor)
		}
		h = parent
	}
	for i := len(pending) - 1; i >= 0; i-- {
		h := pending[i]
		extra, err := DecodeExtraData(h.Extra)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", h.Number.Uint64(), err)
		}
		if extra.Vote != nil {
			base.AddVote(h.Coinbase, extra.Vote.Recipient, extra.Vote.Add)
		}
		e.tallies.Add(BlockHash(h), base.Copy())
	}
	return base, nil
}

// ValidatorsAfter returns the validators of the block after header.
func (e *Engine) ValidatorsAfter(chain consensus.ChainReader, header *types.Header) ([]common.Address, error) {
	t, err := e.tallyAfter(chain, header)
	if err != nil {
		return nil, err
	}
	return t.Validators(), nil
}

// requestTimeout is the round-0 timer.
func (e *Engine) requestTimeout() time.Duration {
	return time.Duration(e.cfg.RequestTimeoutSeconds) * time.Second
}
