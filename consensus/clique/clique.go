package clique

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpctypes"
)

const (
	// DefaultPeriod and DefaultEpoch are Besu's defaults for
	// config.clique.blockperiodseconds and epochlength.
	DefaultPeriod = 15
	DefaultEpoch  = 30000

	// checkpointInterval is how often (in blocks) a snapshot is written to
	// the database, so that a restart replays at most this many headers.
	checkpointInterval = 1024
	// inmemorySnapshots and inmemorySigners size the LRU caches of
	// snapshots (by block hash) and recovered signers (by block hash).
	inmemorySnapshots = 128
	inmemorySigners   = 4096
	// maxPlans bounds the remembered out-of-turn seal times (one per
	// parent the node planned to seal on).
	maxPlans = 16
	// emptyBlockRetry is how long a signer waits before building again
	// when createemptyblocks is false and it had no transaction to seal
	// (Besu's CliqueBlockMiner waits 1 s between empty build attempts).
	emptyBlockRetry = time.Second
	// replayLogThreshold: rebuilding a snapshot over more headers than this
	// is logged at Info (a restart), fewer at Debug (every block).
	replayLogThreshold = 64
)

// ReasonNoTransactions is the CannotSealError reason when createemptyblocks
// is false and the built block has no transaction.
const ReasonNoTransactions = "no transactions (createemptyblocks is false)"

// Config is a genesis's config.clique.
type Config struct {
	// Period is the minimum number of seconds between a block and its
	// parent (blockperiodseconds).
	Period uint64
	// Epoch is the number of blocks between checkpoints, which reset the
	// votes and list the signers (epochlength).
	Epoch uint64
	// CreateEmptyBlocks: when false, blocks without transactions are
	// neither sealed nor accepted (current Besu's createemptyblocks).
	CreateEmptyBlocks bool
}

// Options are the engine's inputs besides its configuration: the seams
// that keep the voting and sealing rules free of storage, keys, clocks and
// randomness of their own.
type Options struct {
	// Key is the node key, with which the engine seals; nil makes an
	// engine that only verifies.
	Key *ecdsa.PrivateKey
	// DB keeps a snapshot every 1,024 blocks so a restart does not replay
	// the chain; nil keeps snapshots in memory only.
	DB ethdb.KeyValueStore
	// Clock is the time future timestamps are checked against; nil is the
	// wall clock.
	Clock consensus.Clock
	// Rand returns a number in [0, n) for the out-of-turn delay; nil is
	// math/rand.
	Rand func(n int64) int64
	// Log receives the engine's few log lines; nil is slog.Default().
	Log *slog.Logger
}

// Engine is the Clique proof-of-authority engine. It is safe for
// concurrent use.
type Engine struct {
	cfg    Config
	key    *ecdsa.PrivateKey
	signer common.Address // of key; zero without one
	db     ethdb.KeyValueStore
	clock  consensus.Clock
	rand   func(int64) int64
	log    *slog.Logger

	// snapMu serialises snapshot rebuilds, so that callers asking at once
	// (the sealing loop and a clique_getSigners after a restart) replay
	// the headers once and the later ones find the result cached.
	snapMu  sync.Mutex
	snaps   *lru.Cache[common.Hash, *Snapshot]
	signers *lru.Cache[common.Hash, common.Address]

	proposals *consensus.Proposals // clique_propose

	mu    sync.Mutex
	plans map[common.Hash]time.Time // out-of-turn seal time per parent

	metrics engineMetrics // set once by SetMetrics, before any other call
}

var (
	_ consensus.Engine    = (*Engine)(nil)
	_ consensus.Scheduler = (*Engine)(nil)
	// The node's apiProvider: the CLIQUE group.
	_ interface {
		APIs(consensus.ChainHeadReader) []rpctypes.Group
	} = (*Engine)(nil)
	_ consensus.KeySealer   = (*Engine)(nil)
	_ consensus.ForkChooser = (*Engine)(nil)
	_ metrics.Instrumented  = (*Engine)(nil)
)

// Errors of header verification.
var (
	errSignersOffEpoch   = errors.New("clique: signer list in extraData of a non-checkpoint block")
	errCheckpointSigners = errors.New("clique: checkpoint signer list differs from the snapshot's")
	errCheckpointVote    = errors.New("clique: vote (non-zero coinbase) on a checkpoint block")
	errEmptyBlock        = errors.New("clique: block without transactions while createemptyblocks is false")
	errNoKey             = errors.New("clique: the engine has no signing key")
)

// New returns a Clique engine.
func New(cfg Config, opts Options) *Engine {
	if cfg.Epoch == 0 {
		cfg.Epoch = DefaultEpoch
	}
	e := &Engine{
		cfg:       cfg,
		key:       opts.Key,
		db:        opts.DB,
		clock:     opts.Clock,
		rand:      opts.Rand,
		log:       opts.Log,
		snaps:     lru.NewCache[common.Hash, *Snapshot](inmemorySnapshots),
		signers:   lru.NewCache[common.Hash, common.Address](inmemorySigners),
		plans:     make(map[common.Hash]time.Time),
		proposals: consensus.NewProposals(),
	}
	if e.key != nil {
		e.signer = crypto.PubkeyToAddress(e.key.PublicKey)
	}
	if e.clock == nil {
		e.clock = consensus.SystemClock
	}
	if e.rand == nil {
		e.rand = rand.Int64N
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	return e
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// SealerAddress is the address of the node key (consensus.KeySealer).
func (e *Engine) SealerAddress() (common.Address, bool) { return e.signer, e.key != nil }

// Hash returns the block hash: Keccak-256 of the whole RLP header, seal
// included.
func (e *Engine) Hash(header *types.Header) common.Hash { return header.Hash() }

// Author returns the signer of header, who receives the block's fees (the
// coinbase holds the vote). A header with a zero seal is one being built:
// its author is the node's own signer, who will seal it (an engine without
// a key has no author for it).
func (e *Engine) Author(header *types.Header) (common.Address, error) {
	signer, err := e.signerOf(header)
	if errors.Is(err, ErrMissingSeal) && e.key != nil {
		return e.signer, nil
	}
	return signer, err
}

// signerOf recovers the signer of a sealed header, caching it by block
// hash.
func (e *Engine) signerOf(header *types.Header) (common.Address, error) {
	return e.signerOfHash(header, header.Hash())
}

// signerOfHash is signerOf for a header whose block hash the caller has.
func (e *Engine) signerOfHash(header *types.Header, hash common.Hash) (common.Address, error) {
	if a, ok := e.signers.Get(hash); ok {
		return a, nil
	}
	a, err := recoverSigner(header)
	if err != nil {
		return common.Address{}, err
	}
	e.signers.Add(hash, a)
	return a, nil
}

// VerifyHeader checks header against its parent and the signer state after
// the parent. seal is ignored: a Clique seal is its signer's identity, on
// which the signer set and every later vote depend, so it is always
// recovered and checked (`blocks import --skip-pow-validation-enabled`
// skips proof of work only, as in Besu).
func (e *Engine) VerifyHeader(chain consensus.ChainReader, header, parent *types.Header, _ bool) error {
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	ex, err := verifyFields(chain.Config(), e.cfg, header, parent, e.clock.Now())
	if err != nil {
		return err
	}
	hash := header.Hash()
	signer, err := e.signerOfHash(header, hash)
	if err != nil {
		return err
	}
	snap, err := e.snapshot(chain, parent.Number.Uint64(), header.ParentHash)
	if err != nil {
		return err
	}
	if err := verifySigner(e.cfg, snap, header, ex, signer); err != nil {
		return err
	}
	e.metrics.observeSigners(snap)
	// The state after header is needed next (to verify its child, or to
	// seal on it): derive it now, while the parent's is at hand, rather
	// than walk back to it later. Keyed by hash, it is harmless should the
	// block fail execution.
	e.cacheAfter(snap, header, hash, signer)
	return nil
}

// verifySigner checks the rules that need the signer state after the
// parent: the checkpoint's signer list, the signer's authorisation and
// recency, and the difficulty of its turn.
func verifySigner(cfg Config, snap *Snapshot, header *types.Header, ex Extra, signer common.Address) error {
	number := header.Number.Uint64()
	if err := snap.CanSeal(signer); err != nil {
		return fmt.Errorf("block %d by %s: %w", number, signer.Hex(), err)
	}
	if number%cfg.Epoch == 0 && !equalSigners(ex.Signers, snap.Signers) {
		return errCheckpointSigners
	}
	if want := snap.Difficulty(number, signer); header.Difficulty.Cmp(want) != 0 {
		return fmt.Errorf("clique: %w: have %v, want %v", consensus.ErrInvalidDifficulty, header.Difficulty, want)
	}
	return nil
}

func equalSigners(a, b []common.Address) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// VerifyUncles rejects any ommer: Clique blocks have none.
func (e *Engine) VerifyUncles(_ consensus.ChainReader, block *types.Block, _ bool) error {
	if len(block.Uncles()) > 0 {
		return fmt.Errorf("clique: %w", consensus.ErrUnexpectedUncles)
	}
	return nil
}

// Prepare fills the Clique fields of a header the node builds on parent
// and will seal with its key: the timestamp (at least a period after the
// parent's), a vote from the node's proposals (coinbase and nonce; none on
// a checkpoint), extraData (header.Extra as the vanity, the signer list on
// a checkpoint, a zero seal), a zero mix digest and the difficulty of the
// node's turn.
func (e *Engine) Prepare(chain consensus.ChainReader, header, parent *types.Header) error {
	if e.key == nil {
		return errNoKey
	}
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	snap, err := e.snapshot(chain, parent.Number.Uint64(), header.ParentHash)
	if err != nil {
		return err
	}
	e.metrics.observeSigners(snap)
	number := header.Number.Uint64()
	header.Time = max(header.Time, parent.Time+e.cfg.Period)
	header.MixDigest = common.Hash{}
	header.Coinbase, header.Nonce = common.Address{}, nonceDropVote
	ex := Extra{Vanity: Vanity(header.Extra)}
	if number%e.cfg.Epoch == 0 {
		ex.Signers = snap.Signers
	} else if v, ok := e.pickVote(snap); ok {
		header.Coinbase = v.Candidate
		if v.Authorize {
			header.Nonce = nonceAuthVote
		}
	}
	header.Extra = ex.Encode()
	header.Difficulty = snap.Difficulty(number, e.signer)
	return nil
}

// Finalize changes no state: Clique pays no block reward.
func (e *Engine) Finalize(consensus.ChainReader, *types.Header, vm.StateDB, []*types.Header) {}

// Seal signs header with the node key. It refuses, with a
// *consensus.CannotSealError, when the engine has no key, when the key may
// not seal on the header's parent (as far as the engine knows the parent's
// signer state) and, with createemptyblocks false, a header without
// transactions (retry in a second, as Besu). Seal does not wait: the
// Scheduler (NextSeal) has the production loop wait for the turn.
func (e *Engine) Seal(ctx context.Context, header *types.Header) (*types.Header, error) {
	if e.key == nil {
		return nil, &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !e.cfg.CreateEmptyBlocks && header.TxHash == types.EmptyTxsHash {
		return nil, &consensus.CannotSealError{Reason: ReasonNoTransactions, Retry: emptyBlockRetry}
	}
	if snap, ok := e.snaps.Get(header.ParentHash); ok {
		if err := cannotSeal(snap.CanSeal(e.signer)); err != nil {
			return nil, err
		}
	}
	sealed, err := SignHeader(header, e.key)
	if err == nil {
		e.metrics.observeSealed(sealed)
	}
	return sealed, err
}

// cannotSeal turns a signer-rule error into the production loop's
// CannotSealError: wait for a new head either way.
func cannotSeal(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrUnauthorizedSigner):
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	case errors.Is(err, ErrRecentlySigned):
		return &consensus.CannotSealError{Reason: consensus.ReasonNotMyTurn}
	}
	return err
}

// NextSeal is the engine's consensus.Scheduler: whether and when the node
// key may seal a block on parent. A key that is not a signer, or that
// sealed one of the latest blocks, may not (wait for a new head). The
// signer whose turn it is seals a period after the parent; any other waits
// a random extra 1 ms to (n/2+1)×500 ms for n signers (Besu's
// CliqueBlockScheduler), counted from the later of that time and now, so
// the in-turn block usually arrives first. The delay is drawn once per
// parent: asking again returns the same time.
func (e *Engine) NextSeal(chain consensus.ChainReader, parent *types.Header, now time.Time) (time.Time, error) {
	if e.key == nil {
		return time.Time{}, &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	hash := parent.Hash()
	snap, err := e.snapshot(chain, parent.Number.Uint64(), hash)
	if err != nil {
		return time.Time{}, err
	}
	if err := cannotSeal(snap.CanSeal(e.signer)); err != nil {
		return time.Time{}, err
	}
	base := time.Unix(int64(parent.Time+e.cfg.Period), 0)
	if snap.InTurn(parent.Number.Uint64()+1, e.signer) {
		return base, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if at, ok := e.plans[hash]; ok {
		return at, nil
	}
	at := outOfTurnTime(base, now, len(snap.Signers), e.rand)
	if len(e.plans) >= maxPlans {
		clear(e.plans)
	}
	e.plans[hash] = at
	return at, nil
}

// outOfTurnTime is when a signer out of turn may seal: after the later of
// base and now, plus 1 to (n/2+1)×500 ms (n/2 in floating point, as Besu
// computes it).
func outOfTurnTime(base, now time.Time, signers int, rnd func(int64) int64) time.Time {
	maxDelay := int64((float64(signers)/2 + 1) * 500)
	delay := time.Duration(rnd(maxDelay)+1) * time.Millisecond
	if now.After(base) {
		base = now
	}
	return base.Add(delay)
}

// PreferHead breaks a tie of total difficulty between two heads as Besu
// does (EIP-3436): the lower block wins; at equal height the block whose
// signer is nearer its in-turn slot; then the lower block hash.
func (e *Engine) PreferHead(chain consensus.ChainReader, candidate, current *types.Header) bool {
	if c := candidate.Number.Cmp(current.Number); c != 0 {
		return c < 0
	}
	dc, err1 := e.distanceFromInTurn(chain, candidate)
	dh, err2 := e.distanceFromInTurn(chain, current)
	if err1 == nil && err2 == nil && dc != dh {
		return dc < dh
	}
	ch, hh := candidate.Hash(), current.Hash()
	return bytes.Compare(ch[:], hh[:]) < 0
}

// distanceFromInTurn is Besu's measure of how far header's signer was from
// its turn: (number - index of the signer among the signers after header)
// mod n, with Java's remainder (negative for early blocks).
func (e *Engine) distanceFromInTurn(chain consensus.ChainReader, header *types.Header) (int64, error) {
	signer, err := e.signerOf(header)
	if err != nil {
		return 0, err
	}
	snap, err := e.snapshotAfter(chain, header)
	if err != nil {
		return 0, err
	}
	n := int64(len(snap.Signers))
	if n == 0 {
		return 0, errors.New("clique: no signers")
	}
	index := n
	for i, s := range snap.Signers {
		if s == signer {
			index = int64(i)
			break
		}
	}
	return (header.Number.Int64() - index) % n, nil
}

// Close releases nothing: the engine holds no goroutine or file.
func (e *Engine) Close() error { return nil }
