package bftengine

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
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

	"github.com/basaltchain/basalt/consensus/feemarket"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// sealCacheSize bounds the remembered commit-seal signers: a few blocks of
// a hundred validators' seals.
const sealCacheSize = 1024

// allowedFutureBlockTime is how far ahead of the local clock a block's
// timestamp may be (Besu: now + 1 s).
const allowedFutureBlockTime = 1

// Errors of header verification.
var (
	ErrInvalidValidators = errors.New("extraData validators differ from the vote tally")
	ErrInvalidCoinbase   = errors.New("coinbase is not a validator")
	ErrInsufficientSeals = errors.New("fewer commit seals than the quorum")
	ErrContractModeExtra = errors.New("extraData carries validators or a vote under contract validator selection")
)

// MixDigest is the mixHash of every IBFT 2.0 and QBFT block: ASCII "tical
// byzantine fault tolerance".
var MixDigest = common.HexToHash("0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365")

// Segment is a span of blocks, from From on, run by one protocol with one
// set of options: the genesis protocol, a QBFT transition, or the QBFT
// start block of a migration from IBFT 2.0.
type Segment struct {
	From   uint64
	Format Format
	// Config are the options (config.ibft2, or config.qbft with the
	// transition's overrides applied).
	Config *config.IBFT2Config
	// Validators, when set, replace the validator set at From without a
	// vote (a transition's "validators").
	Validators []common.Address
	// Contract, when set, selects the validators of each block of the
	// segment by calling this contract's getValidators() at the parent
	// block's state (validatorselectionmode "contract"); headers then carry
	// no validators and no vote.
	Contract *common.Address
}

// Engine is a BFT engine over a schedule of segments. It is safe for
// concurrent use.
type Engine struct {
	segs  []Segment // ascending From, the first from 0
	key   *ecdsa.PrivateKey
	self  common.Address
	clock consensus.Clock

	tallies     *lru.Cache[common.Hash, *bft.Tally]
	seals       *lru.Cache[common.Hash, common.Address] // recoverSeal's, by keccak(digest ‖ seal)
	recover     func(digest common.Hash, seal []byte) (common.Address, error)
	proposals   *consensus.Proposals
	anyGasLimit bool
	nets        []*network // one per distinct sub-protocol, in segment order
	mesh        *mesh      // bftmesh, beside them
	holders     *holders   // who sent commits for recent blocks (PeerHasBlock)
	inbox       chan driver.Inbound
	// gate is what the sub-protocols admit messages against (set by the
	// driver on each head); bans are the peers they caught misbehaving.
	gate    atomic.Pointer[Gate]
	bans    *subprotocol.BanList
	metrics map[string]driver.Metrics // by Format.Key (SetMetrics)

	closeOnce sync.Once
}

// Options are optional settings of New.
type Options struct {
	// Key is the node key; without it the engine verifies but cannot
	// produce blocks.
	Key *ecdsa.PrivateKey
	// Clock is the time source (the wall clock when nil).
	Clock consensus.Clock
	// AnyGasLimit accepts any change of the gas limit between blocks, as
	// GoQuorum's QBFT does (its proposers move the limit toward their
	// --miner.gaslimit in one step; besu#10723). The limit still bounds
	// the gas used. Set for a GoQuorum network (genesis isQuorum).
	AnyGasLimit bool
}

// New returns an engine running segs (sorted by From here; the first must
// start at block 0).
func New(segs []Segment, opts Options) (*Engine, error) {
	segs = slices.Clone(segs)
	slices.SortStableFunc(segs, func(a, b Segment) int { return cmpU64(a.From, b.From) })
	if len(segs) == 0 || segs[0].From != 0 {
		return nil, errors.New("BFT schedule must start at block 0")
	}
	e := &Engine{segs: segs, key: opts.Key, clock: opts.Clock, anyGasLimit: opts.AnyGasLimit,
		tallies: lru.NewCache[common.Hash, *bft.Tally](4096), proposals: consensus.NewProposals(),
		seals: lru.NewCache[common.Hash, common.Address](sealCacheSize), recover: bft.RecoverSigner}
	if e.clock == nil {
		e.clock = consensus.SystemClock
	}
	if e.key != nil {
		e.self = crypto.PubkeyToAddress(e.key.PublicKey)
	}
	queue := uint64(0)
	for _, s := range segs {
		queue = max(queue, s.Config.MessageQueueLimit)
	}
	e.inbox = make(chan driver.Inbound, max(1, int(queue)))
	e.bans = subprotocol.NewBanList(e.clock, banDuration, maxBans)
	e.mesh = newMesh()
	e.holders = newHolders()
	for _, s := range segs {
		if !slices.ContainsFunc(e.nets, func(n *network) bool { return n.format.Spec().Protocol == s.Format.Spec().Protocol }) {
			n := newNetwork(s.Format, s.Config, e.inbox, &e.gate, e.bans)
			n.self, n.mesh, n.holders = e.self, e.mesh, e.holders
			e.nets = append(e.nets, n)
		}
	}
	return e, nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Segment returns the segment that runs block number.
func (e *Engine) Segment(number uint64) Segment {
	i := len(e.segs) - 1
	for i > 0 && e.segs[i].From > number {
		i--
	}
	return e.segs[i]
}

func (e *Engine) format(number uint64) Format           { return e.Segment(number).Format }
func (e *Engine) cfg(number uint64) *config.IBFT2Config { return e.Segment(number).Config }

func headerNumber(h *types.Header) uint64 {
	if h.Number == nil {
		return 0
	}
	return h.Number.Uint64()
}

// Address is the local validator address (zero without a key).
func (e *Engine) Address() common.Address { return e.self }

// SealerAddress is the node key's address (consensus.KeySealer): the node
// then produces without --miner-enabled, as Besu's validators do.
func (e *Engine) SealerAddress() (common.Address, bool) { return e.self, e.key != nil }

// Proposals are the local validator's pending votes.
func (e *Engine) Proposals() *consensus.Proposals { return e.proposals }

// Hash is the on-chain block hash of the protocol that runs the block.
func (e *Engine) Hash(header *types.Header) common.Hash {
	return e.format(headerNumber(header)).BlockHash(header)
}

// Author is the block's proposer, its coinbase: it earns the fees.
func (e *Engine) Author(header *types.Header) (common.Address, error) { return header.Coinbase, nil }

// Validators returns the validators of header's block, from its extraData.
func (e *Engine) Validators(header *types.Header) ([]common.Address, error) {
	extra, err := e.format(headerNumber(header)).DecodeExtra(header.Extra)
	if err != nil {
		return nil, err
	}
	return extra.Validators, nil
}

// VerifyHeader checks header against parent with Besu's BFT header rules
// (IbftBlockHeaderValidationRulesetFactory, QbftBlockHeaderValidationRulesetFactory)
// and, when seal is set, its commit seals.
func (e *Engine) VerifyHeader(chain consensus.ChainReader, header, parent *types.Header, seal bool) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	if header.Number == nil || parent.Number == nil || header.Number.Uint64() != parent.Number.Uint64()+1 {
		return consensus.ErrInvalidNumber
	}
	n := header.Number.Uint64()
	f, cfg := e.format(n), e.cfg(n)
	extra, err := f.DecodeExtra(header.Extra)
	if err != nil {
		return err
	}
	if header.MixDigest != MixDigest {
		return consensus.ErrInvalidMixDigest
	}
	if header.Nonce != (types.BlockNonce{}) {
		return fmt.Errorf("%w: must be 0", consensus.ErrInvalidNonce)
	}
	if header.Difficulty == nil || header.Difficulty.Cmp(common.Big1) != 0 {
		return fmt.Errorf("%w: must be 1", consensus.ErrInvalidDifficulty)
	}
	if header.UncleHash != types.EmptyUncleHash {
		return consensus.ErrUnexpectedUncles
	}
	// The parent's timestamp plus the whole seconds of the period: under
	// a sub-second period (xblockperiodmilliseconds) blocks may share
	// their parent's second, never go back before it. (Besu drops the
	// parent rule altogether for such periods; a timestamp that goes back
	// would break timestamp forks and contracts reading block.timestamp.)
	if header.Time < parent.Time+uint64(cfg.BlockPeriod()/time.Second) {
		return fmt.Errorf("%w: below parent's plus the block period's whole seconds", consensus.ErrInvalidTimestamp)
	}
	if header.Time > uint64(e.clock.Now().Unix())+allowedFutureBlockTime {
		return consensus.ErrFutureBlock
	}
	verifyGas := feemarket.VerifyGas
	if e.anyGasLimit {
		verifyGas = feemarket.VerifyGasAnyLimit
	}
	if err := verifyGas(chain.Config(), header, parent); err != nil {
		return err
	}
	if err := consensus.VerifyForkFields(chain.Config(), header, parent); err != nil {
		return err
	}
	tally, err := e.tallyAfter(chain, parent)
	if err != nil {
		return err
	}
	if contract := e.Segment(n).Contract; contract != nil {
		// Besu leaves the list empty; GoQuorum writes the contract's set.
		if (len(extra.Validators) != 0 && !slices.Equal(extra.Validators, tally.Validators())) || extra.Vote != nil {
			return ErrContractModeExtra
		}
	} else if !slices.Equal(extra.Validators, tally.Validators()) {
		return ErrInvalidValidators
	}
	if !tally.IsValidator(header.Coinbase) {
		return ErrInvalidCoinbase
	}
	if seal {
		return e.verifySeals(f, header, extra, tally)
	}
	return nil
}

// VerifySeal checks header's commit seals alone (consensus.SealVerifier):
// the chain calls it at a commit whose proposal passed VerifyHeader.
func (e *Engine) VerifySeal(chain consensus.ChainReader, header, parent *types.Header) error {
	f := e.format(headerNumber(header))
	extra, err := f.DecodeExtra(header.Extra)
	if err != nil {
		return err
	}
	tally, err := e.tallyAfter(chain, parent)
	if err != nil {
		return err
	}
	return e.verifySeals(f, header, extra, tally)
}

// verifySeals checks the commit seals: at least a quorum, each by a
// distinct validator of the block.
func (e *Engine) verifySeals(f Format, header *types.Header, extra *bft.Extra, tally *bft.Tally) error {
	digest, err := f.SealHash(header, extra.Round)
	if err != nil {
		return err
	}
	seen := map[common.Address]bool{}
	for i, s := range extra.Seals {
		a, err := e.recoverSeal(digest, s)
		if err != nil {
			return fmt.Errorf("%w: commit seal %d: %v", consensus.ErrInvalidSeal, i, err)
		}
		if !tally.IsValidator(a) {
			return fmt.Errorf("%w: commit seal %d: %s is not a validator", consensus.ErrInvalidSeal, i, a.Hex())
		}
		if seen[a] {
			return fmt.Errorf("%w: commit seal %d: %s sealed twice", consensus.ErrInvalidSeal, i, a.Hex())
		}
		seen[a] = true
	}
	if q := bft.Quorum(len(tally.Validators())); len(seen) < q {
		return fmt.Errorf("%w: %d seals, quorum %d", ErrInsufficientSeals, len(seen), q)
	}
	return nil
}

// recoverSeal is f.RecoverSeal, remembered: a validator recovers each
// commit seal as its commit message comes, and again when it imports the
// block the seals end up in (and a node syncing may verify a header twice);
// with a hundred validators that is two hundred signature recoveries a
// block, half of them needless.
func (e *Engine) recoverSeal(digest common.Hash, seal []byte) (common.Address, error) {
	key := crypto.Keccak256Hash(digest[:], seal)
	if a, ok := e.seals.Get(key); ok {
		return a, nil
	}
	a, err := e.recover(digest, seal)
	if err == nil {
		e.seals.Add(key, a)
	}
	return a, err
}

// SealSigners returns the signers of the commit seals of header, in seal
// order.
func (e *Engine) SealSigners(header *types.Header) ([]common.Address, error) {
	f := e.format(headerNumber(header))
	extra, err := f.DecodeExtra(header.Extra)
	if err != nil {
		return nil, err
	}
	digest, err := f.SealHash(header, extra.Round)
	if err != nil {
		return nil, err
	}
	out := make([]common.Address, len(extra.Seals))
	for i, s := range extra.Seals {
		if out[i], err = e.recoverSeal(digest, s); err != nil {
			return nil, fmt.Errorf("commit seal %d: %w", i, err)
		}
	}
	return out, nil
}

// VerifyUncles rejects any ommer.
func (e *Engine) VerifyUncles(chain consensus.ChainReader, block *types.Block, seal bool) error {
	if len(block.Uncles()) > 0 {
		return consensus.ErrUnexpectedUncles
	}
	return nil
}

// Prepare fills the consensus fields of a block the local validator
// proposes: constant mix digest, nonce 0, difficulty 1, itself as
// coinbase, and extraData (in the layout of the block's protocol) with the
// validators after parent, its next pending vote and round 0 (the producer
// sets the round).
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
	var vote *bft.Vote
	vals := tally.Validators()
	if e.Segment(headerNumber(header)).Contract != nil {
		vals = nil // the contract holds them; votes do not apply
	} else if a, add, ok := e.proposals.Next(func(a common.Address, add bool) bool { return tally.VoteUseful(e.self, a, add) }); ok {
		vote = &bft.Vote{Recipient: a, Add: add}
	}
	header.Extra = e.format(headerNumber(header)).EncodeExtra(&bft.Extra{Validators: vals, Vote: vote})
	header.Coinbase = e.self
	header.Difficulty = big.NewInt(1)
	header.MixDigest = MixDigest
	header.Nonce = types.BlockNonce{}
	header.UncleHash = types.EmptyUncleHash
	return nil
}

// Finalize pays the block reward (blockreward, 0 by default) to the mining
// beneficiary or else the proposer.
func (e *Engine) Finalize(chain consensus.ChainReader, header *types.Header, state vm.StateDB, uncles []*types.Header) {
	cfg := e.cfg(headerNumber(header))
	if cfg.BlockReward == nil || cfg.BlockReward.Sign() <= 0 {
		return
	}
	to := header.Coinbase
	if cfg.MiningBeneficiary != nil {
		to = *cfg.MiningBeneficiary
	}
	r, _ := uint256.FromBig(cfg.BlockReward)
	state.AddBalance(to, r, tracing.BalanceIncreaseRewardMineBlock)
}

// Seal is not how BFT blocks get sealed: the producer collects commit
// seals from a quorum of validators.
func (e *Engine) Seal(ctx context.Context, header *types.Header) (*types.Header, error) {
	return nil, &consensus.CannotSealError{Reason: "BFT blocks are sealed by the validators' consensus"}
}

// Close releases nothing; the producer's goroutines end with its context.
func (e *Engine) Close() error { return nil }

// tallyAfter returns the vote tally after header: the validators of the
// next block and the outstanding votes. It walks back to a cached tally, a
// block whose successor starts with a validator override, an epoch block
// (whose tally is its validators and no votes) or genesis. Each block's
// extraData is read in its own protocol's layout, so the set carries over
// a switch of protocol.
func (e *Engine) tallyAfter(chain consensus.ChainReader, header *types.Header) (*bft.Tally, error) {
	if next := e.Segment(header.Number.Uint64() + 1); next.Contract != nil {
		return e.contractTally(chain, header, *next.Contract)
	}
	var (
		pending []*types.Header
		base    *bft.Tally
		h       = header
	)
	for {
		hash := e.Hash(h)
		if t, ok := e.tallies.Get(hash); ok {
			base = t.Copy()
			break
		}
		n := h.Number.Uint64()
		if next := e.Segment(n + 1); next.From == n+1 && next.Validators != nil {
			base = bft.NewTally(next.Validators)
			e.tallies.Add(hash, base.Copy())
			break
		}
		if seg := e.Segment(n); n > 0 && seg.Contract != nil {
			// Back from contract selection: the votes start from the
			// validators the contract gave the last contract block.
			parent := chain.GetHeader(h.ParentHash, n-1)
			if parent == nil {
				return nil, fmt.Errorf("tally of block %d: %w", n, consensus.ErrUnknownAncestor)
			}
			t, err := e.contractTally(chain, parent, *seg.Contract)
			if err != nil {
				return nil, err
			}
			base = t.Copy()
			e.tallies.Add(hash, base.Copy())
			break
		}
		if n == 0 || n%e.cfg(n).EpochLength == 0 {
			vals, err := e.Validators(h)
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
		n := h.Number.Uint64()
		extra, err := e.format(n).DecodeExtra(h.Extra)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		if extra.Vote != nil {
			base.AddVote(h.Coinbase, extra.Vote.Recipient, extra.Vote.Add)
		}
		if next := e.Segment(n + 1); next.From == n+1 && next.Validators != nil {
			base = bft.NewTally(next.Validators)
		}
		e.tallies.Add(e.Hash(h), base.Copy())
	}
	return base, nil
}

// contractTally is the tally after parent under contract selection: the
// contract's validators at parent's state, no votes. It is cached by
// parent's hash like every tally.
func (e *Engine) contractTally(chain consensus.ChainReader, parent *types.Header, contract common.Address) (*bft.Tally, error) {
	hash := e.Hash(parent)
	if t, ok := e.tallies.Get(hash); ok {
		return t.Copy(), nil
	}
	vals, err := contractValidators(chain, parent, contract)
	if err != nil {
		return nil, err
	}
	t := bft.NewTally(vals)
	e.tallies.Add(hash, t.Copy())
	return t, nil
}

// ValidatorsOf returns the validators of header's block: its extraData's,
// or under contract selection the contract's at its parent's state.
func (e *Engine) ValidatorsOf(chain consensus.ChainReader, header *types.Header) ([]common.Address, error) {
	n := headerNumber(header)
	if seg := e.Segment(n); n > 0 && seg.Contract != nil {
		parent := chain.GetHeader(header.ParentHash, n-1)
		if parent == nil {
			return nil, consensus.ErrUnknownAncestor
		}
		return e.ValidatorsAfter(chain, parent)
	}
	return e.Validators(header)
}

// ValidatorsForBlock is what qbft_getValidatorsByBlockNumber and
// ...ByBlockHash answer for header's block, as Besu's
// ValidatorProvider.getValidatorsForBlock: under block-header selection
// the block's own validators (its extraData); under contract selection
// (the mode of header's block) getValidators() at the block's own state,
// which are the validators of the next block — one block later than
// ValidatorsOf. Users compare the two clients' answers, so Basalt gives
// Besu's.
func (e *Engine) ValidatorsForBlock(chain consensus.ChainReader, header *types.Header) ([]common.Address, error) {
	n := headerNumber(header)
	seg := e.Segment(n)
	if seg.Contract == nil {
		return e.Validators(header)
	}
	if next := e.Segment(n + 1); next.Contract != nil && *next.Contract == *seg.Contract {
		return e.ValidatorsAfter(chain, header) // the same call, cached
	}
	// The last block of a contract segment: the next block's validators
	// come from elsewhere, the answer is still the contract's.
	return contractValidators(chain, header, *seg.Contract)
}

// ValidatorsAfter returns the validators of the block after header.
func (e *Engine) ValidatorsAfter(chain consensus.ChainReader, header *types.Header) ([]common.Address, error) {
	t, err := e.tallyAfter(chain, header)
	if err != nil {
		return nil, err
	}
	return t.Validators(), nil
}

// RequestTimeout is the round-0 timer of block number
// (requesttimeoutseconds).
func (e *Engine) RequestTimeout(number uint64) time.Duration {
	return time.Duration(e.cfg(number).RequestTimeoutSeconds) * time.Second
}
