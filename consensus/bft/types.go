// Package bft is the Byzantine fault tolerant consensus core shared by
// IBFT 2.0 and QBFT: a pure, deterministic state machine in the
// etcd-raft mould (STYLE.md §1). Its inputs are new heights (the adapter saw
// a new canonical head), decoded and signature-checked messages, timer
// expiries and blocks the adapter built on request; its outputs are Actions:
// messages to broadcast, blocks to build, timers to start and committed
// blocks to import. It never reads a clock, touches a socket, starts a
// goroutine or reads the node's block store; a Backend of pure functions
// (digests, signatures, block checks) is all it calls.
//
// A protocol (package ibft2 or qbft) supplies the Backend: its header
// codec (where the round and the commit seals live, what the digest is) and
// its message codec (what goes on the wire). Where the two message sets
// differ in what a round needs (who prepares, what certificates carry and
// how they are checked) the core asks its Rules (rules.go): IBFT2 or QBFT.
// Package driver runs a Core against the node's clock, block builder,
// importer and devp2p transport.
package bft

import (
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// View identifies a round of consensus on one block height.
type View struct {
	// Sequence is the height of the block being agreed.
	Sequence uint64
	// Round counts the attempts at Sequence, from 0.
	Round uint32
}

// Cmp orders views by sequence, then round.
func (v View) Cmp(o View) int {
	switch {
	case v.Sequence < o.Sequence:
		return -1
	case v.Sequence > o.Sequence:
		return 1
	case v.Round < o.Round:
		return -1
	case v.Round > o.Round:
		return 1
	}
	return 0
}

// Kind is a message type. The values are IBFT 2.0's IBF/1 message codes.
type Kind uint8

// The four message kinds.
const (
	KindProposal    Kind = 0
	KindPrepare     Kind = 1
	KindCommit      Kind = 2
	KindRoundChange Kind = 3
)

// String names the message kind, for logs.
func (k Kind) String() string {
	switch k {
	case KindProposal:
		return "Proposal"
	case KindPrepare:
		return "Prepare"
	case KindCommit:
		return "Commit"
	case KindRoundChange:
		return "RoundChange"
	}
	return "Unknown"
}

// Message is a signed consensus message as the core sees it: decoded by
// the protocol's codec, which recovered Author from the signature (for
// nested messages too), or created by the core and signed by
// Backend.Sign.
type Message struct {
	Kind   Kind
	View   View
	Author common.Address
	// Digest names the proposed block (Proposal, Prepare, Commit).
	Digest common.Hash
	// Block is the proposed block (Proposal) or the prepared block a
	// RoundChange carries (nil when it has none). Nested messages of
	// certificates carry no block.
	Block *types.Block
	// CommitSeal is a Commit's seal over Digest.
	CommitSeal []byte
	// Prepared is the prepared certificate of a RoundChange, nil if none.
	Prepared *PreparedCertificate
	// RoundChanges is the round-change certificate of a Proposal for a
	// round above 0.
	RoundChanges []*Message
	// Prepares justify, in a QBFT Proposal for a round above 0, the latest
	// prepared round its round changes claim (QBFT's round changes in a
	// proposal carry claims, not certificates). IBFT 2.0 ignores it.
	Prepares []*Message

	// Signed is the codec's encoding of the signed payload alone (what
	// certificates embed); Wire is the whole message as sent. The adapter
	// gossips Wire unchanged.
	Signed []byte
	Wire   []byte
}

// PreparedCertificate proves that a block was prepared in a round. IBFT
// 2.0's carries the signed proposal and quorum-1 prepares (its proposer
// does not prepare); QBFT's names the round and digest and carries a quorum
// of prepares (Proposal nil).
type PreparedCertificate struct {
	Proposal *Message
	// PreparedRound and PreparedDigest name the prepared round and block
	// when Proposal is nil (QBFT).
	PreparedRound  uint32
	PreparedDigest common.Hash
	Prepares       []*Message
}

// Round returns the round the certificate prepared in.
func (p *PreparedCertificate) Round() uint32 {
	if p.Proposal != nil {
		return p.Proposal.View.Round
	}
	return p.PreparedRound
}

// Digest returns the digest of the prepared block.
func (p *PreparedCertificate) Digest() common.Hash {
	if p.Proposal != nil {
		return p.Proposal.Digest
	}
	return p.PreparedDigest
}

// Height is what the core needs to know to run consensus on the block
// after a new canonical head.
type Height struct {
	// Sequence is the number of the block to agree (head number + 1).
	Sequence uint64
	// ParentTime is the head's timestamp, in seconds.
	ParentTime uint64
	// ParentProposer is the head's proposer (its coinbase), from which
	// proposers of the new height are chosen.
	ParentProposer common.Address
	// Validators are the validators of the new height, in ascending order.
	Validators []common.Address
	// Rules, BlockPeriod and RequestTimeout, when set, replace the
	// configured ones from this height on: a network switches protocol
	// (IBFT 2.0 to QBFT) or block period (a QBFT transition) at a block.
	Rules          Rules
	BlockPeriod    time.Duration
	RequestTimeout time.Duration
}

// Backend holds the protocol-specific pure functions the core calls.
type Backend interface {
	// Digest is the hash a proposal of block is known by, and the hash
	// commit seals sign (IBFT 2.0: the header hashed with its round and
	// without seals).
	Digest(block *types.Block) (common.Hash, error)
	// BlockRound is the round recorded in block's header.
	BlockRound(block *types.Block) (uint32, error)
	// WithRound returns block with its header's round set to round (to
	// re-propose a prepared block in a later round).
	WithRound(block *types.Block, round uint32) (*types.Block, error)
	// Verify checks that block is a valid next block: header rules
	// without commit seals, body and execution (state root).
	Verify(block *types.Block) error
	// Sign signs and encodes m, a message of the local validator, setting
	// m.Signed and m.Wire.
	Sign(m *Message) error
	// SealHash is the hash the commit seals of block, committed in round,
	// sign (IBFT 2.0: the digest, the header carrying the round; QBFT: the
	// header with round as its round and without seals).
	SealHash(block *types.Block, round uint32) (common.Hash, error)
	// CommitSeal is the local validator's commit seal over hash.
	CommitSeal(hash common.Hash) ([]byte, error)
	// SealSigner returns who made seal over hash.
	SealSigner(hash common.Hash, seal []byte) (common.Address, error)
}

// Config is the core's configuration (Besu's genesis options).
type Config struct {
	// Self is the local node's address.
	Self common.Address
	// RequestTimeout is the round timer of round 0; round r waits
	// RequestTimeout * 2^r (requesttimeoutseconds).
	RequestTimeout time.Duration
	// BlockPeriod is the minimum time between blocks (blockperiodseconds,
	// or xblockperiodmilliseconds). A whole number of seconds runs from
	// the parent's timestamp; any other period runs from the local
	// arrival of the head, since headers carry seconds only.
	BlockPeriod time.Duration
	// FutureMessagesLimit bounds the messages kept for later heights and
	// rounds (futuremessageslimit).
	FutureMessagesLimit int
	// FutureMessagesMaxDistance is how many heights ahead a message may be
	// and still be kept (futuremessagesmaxdistance).
	FutureMessagesMaxDistance uint64
	// Rules are the message set's justification rules (IBFT2 when nil).
	Rules Rules
}

// Action is an output of the core for the adapter to carry out.
type Action interface{ isAction() }

// Broadcast asks the adapter to send Msg (already signed; Msg.Wire) to the
// other validators.
type Broadcast struct{ Msg *Message }

// Relay asks the adapter to gossip Msg, a message from the network that
// passed the core's checks (its author is a validator of its height), on
// to the other peers. The adapter relays nothing else: a message the core
// rejected or kept for a later height goes no further.
type Relay struct{ Msg *Message }

// BuildBlock asks the adapter to build a block for View on the current
// head and hand it to Core.Proposed. Its timestamp must be at least
// MinTime (parent time + block period).
type BuildBlock struct {
	View    View
	MinTime uint64
}

// TimerKind tells the core's two timers apart.
type TimerKind uint8

// The timers.
const (
	// BlockTimer expires when the block period since the parent is over.
	BlockTimer TimerKind = iota
	// RoundTimer expires when a round took too long.
	RoundTimer
)

// Timer identifies a timer: its kind and the view it was started for.
type Timer struct {
	Kind TimerKind
	View View
}

// StartTimer asks the adapter to call Core.Timeout(Timer) when the timer
// expires: at the unix time AtUnix (seconds) when it is not zero, else
// Delay after now. Starting a timer of a kind replaces the running one.
type StartTimer struct {
	Timer  Timer
	Delay  time.Duration
	AtUnix uint64
}

// CommitBlock asks the adapter to import Block, committed in Round with the
// commit Seals of a quorum.
type CommitBlock struct {
	Block *types.Block
	Round uint32
	Seals [][]byte
}

func (Broadcast) isAction()   {}
func (Relay) isAction()       {}
func (BuildBlock) isAction()  {}
func (StartTimer) isAction()  {}
func (CommitBlock) isAction() {}
