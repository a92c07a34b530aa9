package consensus

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// Capabilities are what an engine can do beyond Engine. Each is an optional
// interface the engine implements; the node looks them up in one place
// (node/engine.go) and hands each to the service that uses it, so no other
// package asks which engine it runs on:
//
//   - PoW: remote mining (eth_getWork, eth_submitWork) and hash rates;
//   - the engine's JSON-RPC groups (CLIQUE, IBFT, QBFT): an engine with a
//     method APIs(ChainHeadReader) []rpctypes.Group, looked up by the node
//     (node/engine.go), so that this package imports no JSON-RPC types;
//   - ProtocolProvider: devp2p sub-protocols run beside eth (IBFT's);
//   - BlockHolders: an engine that learns from its own protocol which peers
//     hold a block (BFT commits), so the p2p service sends them its hash
//     only;
//   - Scheduler: when the node may seal on a parent (Clique's turn and
//     delays, the beacon's stop at the merge);
//   - Producer: an engine that drives block production itself (BFT);
//   - KeySealer: an engine that seals with the node key (Clique), so the
//     node produces blocks without --miner-enabled;
//   - ForkChooser: an engine that breaks ties of total difficulty
//     (Clique's EIP-3436 rules);
//   - SealVerifier: an engine whose seal is checked apart from the header
//     (BFT), used by the chain itself;
//   - metrics.Instrumented: an engine exporting metrics of its own.
//
// An engine wrapping another (beacon around ethash) implements Wrapper; the
// node then finds the inner engine's capabilities too, see Wrapper. The
// seams a Producer runs on are Host (host.go), Clock (clock.go) and
// the sub-protocol Transport of p2p/subprotocol.

// SealVerifier is an engine whose seal can be checked apart from the rest
// of the header, as BFT's commit seals can. The chain then checks a block
// it executed as a proposal (its header checked without the seal,
// chain.Execute) only for the seal once the agreement has sealed it, so a
// committed header is verified once, not twice.
type SealVerifier interface {
	// VerifySeal checks header's seal against parent; the rest of header
	// has passed VerifyHeader already.
	VerifySeal(chain ChainReader, header, parent *types.Header) error
}

// Wrapper is an engine that wraps another one, as beacon wraps ethash for
// chains that went through the merge. The node looks up capabilities on the
// outer engine first and then on Inner: the outermost PoW, JSON-RPC groups,
// ProtocolProvider and Producer win, while every layer's Scheduler is
// consulted (each may refuse or delay sealing).
type Wrapper interface {
	Engine
	// Inner returns the wrapped engine.
	Inner() Engine
}

// PoW is the capability of a proof-of-work engine: what remote miners need
// (eth_getWork hands out the seal hash and the epoch's seed hash) and the
// hash rate eth_hashrate reports.
type PoW interface {
	// SealHash is the hash a proof of work for header is computed over
	// (the header without its nonce and mix digest).
	SealHash(header *types.Header) common.Hash
	// SeedHash is the seed hash of the epoch of block number.
	SeedHash(number uint64) []byte
	// Hashrate is the local plus recently reported remote hash rate, in
	// hashes per second.
	Hashrate() float64
	// SubmitHashrate records the rate a remote miner (id) reports.
	SubmitHashrate(id common.Hash, rate uint64)
}

// ChainHeadReader is the chain as an engine's JSON-RPC methods and producer
// read it: ChainReader plus the head and lookups by hash alone.
type ChainHeadReader interface {
	ChainReader
	// CurrentHeader is the head of the canonical chain.
	CurrentHeader() *types.Header
	// GetHeaderByHash returns the header with the given engine hash, or nil.
	GetHeaderByHash(hash common.Hash) *types.Header
}

// ProtocolProvider is an engine that talks to its peers over devp2p
// sub-protocols of its own (IBFT 2.0's IBF/1), run beside eth on every
// connection. p2p/subprotocol.Transport is a ready-made adapter for one
// such protocol.
type ProtocolProvider interface {
	// Protocols returns the sub-protocols; their names must differ from
	// "eth".
	Protocols() []p2p.Protocol
}

// BlockHolders is an engine whose own protocol tells which peers hold a
// block: a BFT validator that sent a commit for a block has it and commits
// it itself. Every BFT validator committing a block announced it to every
// peer lacking it, so each received about N announcements a block of a
// block it had (at N = 30 a third of a validator's messages); the p2p
// service sends the peers known to hold it only its hash, which one that
// did not commit after all fetches the block from.
type BlockHolders interface {
	// PeerHasBlock reports whether peer is known to hold the block hash.
	PeerHasBlock(peer enode.ID, hash common.Hash) bool
}

// Scheduler is an engine that decides when the node may seal a block on a
// given parent: Clique's signer turn and out-of-turn delay, the beacon's
// refusal to seal on a post-merge head. The production loop asks before it
// builds a block, so no work is built (or handed to remote miners) that
// cannot be sealed, and it waits on its clock rather than inside Seal.
type Scheduler interface {
	// NextSeal returns the earliest time a block on parent may be sealed
	// (the zero time when the engine sets no bound; the loop still keeps
	// timestamps increasing), or a *CannotSealError when the node may not
	// seal on parent at all, or not before CannotSealError.Retry. now is
	// the production loop's clock.
	NextSeal(chain ChainReader, parent *types.Header, now time.Time) (time.Time, error)
}

// Producer is an engine that drives block production itself instead of the
// node's sealing loop: a BFT validator proposes when its core says so and
// imports a block once a quorum committed it. The node runs Produce while
// mining is on (--miner-enabled, miner_start) and not paused for sync, and
// cancels ctx to stop it.
type Producer interface {
	// Produce runs production until ctx ends (then it returns ctx.Err()).
	// An early return with a *CannotSealError makes the node wait for a
	// new head or Retry before calling it again; any other error is logged
	// and retried after a back-off.
	Produce(ctx context.Context, host Host) error
}

// KeySealer is an engine that seals blocks with the node's own key, as
// Clique does: the node runs its sealing loop whether or not
// --miner-enabled is given (Besu enables Clique block production
// implicitly), miner_stop and miner_start pause and resume it, and the
// engine's Scheduler decides on every head whether the key may seal.
type KeySealer interface {
	// SealerAddress is the address of the node key the engine seals with;
	// false when the engine was given no key (it only verifies). Blocks the
	// node seals pay their fees to it, so it is the miner's coinbase when
	// none is configured.
	SealerAddress() (common.Address, bool)
}

// ForkChooser is an engine that decides between two chain heads of equal
// total difficulty, so that nodes which saw competing blocks in different
// orders still settle on one head (Clique: EIP-3436, as Besu). Without one
// the chain store keeps the head it has.
type ForkChooser interface {
	// PreferHead reports whether candidate should replace current as the
	// head. The chain store asks only for pre-merge headers whose total
	// difficulties are equal; candidate need not be stored yet, but its
	// ancestors are.
	PreferHead(chain ChainReader, candidate, current *types.Header) bool
}

// Reasons an engine gives in a CannotSealError.
const (
	ReasonPostMerge     = "post-merge head"
	ReasonNotAuthorised = "not authorised"
	ReasonNotMyTurn     = "not my turn"
)

// CannotSealError says why an engine cannot seal right now. Seal,
// Scheduler.NextSeal, Host.Build and Producer.Produce return it; the
// production loop then waits for a new head, or for Retry when it is set,
// instead of trying again at once.
type CannotSealError struct {
	// Reason is a short phrase for the log ("post-merge head",
	// "not authorised", "not my turn").
	Reason string
	// Retry, when positive, is how long to wait before trying again on the
	// same head; zero means wait for a new head.
	Retry time.Duration
}

// Error says the engine cannot seal, why, and when to retry if it said.
func (e *CannotSealError) Error() string {
	if e.Retry > 0 {
		return fmt.Sprintf("cannot seal: %s (retry in %s)", e.Reason, e.Retry)
	}
	return "cannot seal: " + e.Reason
}
