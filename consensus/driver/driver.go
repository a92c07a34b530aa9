// Package driver runs the pure BFT core (package bft) in a node: it
// feeds the core new heads from the chain, messages from the devp2p
// sub-protocol and timer expiries from the clock, and carries out what the
// core asks — broadcasting, building a block with the node's shared
// builder, importing the committed block. It is the only place the core
// meets goroutines, time and the network (STYLE.md §1).
package driver

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
)

// Protocol is what the adapter needs from a BFT protocol (IBFT 2.0, QBFT):
// the core's pure Backend functions except Verify, which the adapter
// supplies by executing blocks on the host, and the two chain-facing
// pieces.
type Protocol interface {
	Digest(block *types.Block) (common.Hash, error)
	BlockRound(block *types.Block) (uint32, error)
	WithRound(block *types.Block, round uint32) (*types.Block, error)
	Sign(m *bft.Message) error
	SealHash(block *types.Block, round uint32) (common.Hash, error)
	CommitSeal(digest common.Hash) ([]byte, error)
	SealSigner(digest common.Hash, seal []byte) (common.Address, error)

	// Hash is the engine hash of header.
	Hash(header *types.Header) common.Hash
	// Height describes consensus on the block after head.
	Height(chain consensus.ChainReader, head *types.Header) (bft.Height, error)
	// Seal returns header carrying the commit round and seals.
	Seal(header *types.Header, round uint32, seals [][]byte) (*types.Header, error)
}

// Inbound is a decoded message received from a peer.
type Inbound struct {
	From enode.ID
	Msg  *bft.Message
	// Hash identifies the message for gossip (keccak256 of its wire form).
	Hash common.Hash
	// Done, when set, is called when the driver takes the message off
	// the queue (the network counts each peer's queued messages).
	Done func()
}

// Network sends messages to the peers of the protocol's sub-protocol.
type Network interface {
	// Gossip sends msg (hash identifies it) to every peer but except,
	// unless it was gossiped already; it reports whether it sent.
	Gossip(msg *bft.Message, hash common.Hash, except enode.ID) bool
	// NewHeight tells the network the height the core runs now (on every
	// new head, whether or not the node validates it), so that it checks
	// the authors of what peers send before queueing it.
	NewHeight(h bft.Height)
}

// Config configures Run.
type Config struct {
	Core     bft.Config
	Protocol Protocol
	Network  Network
	// Inbox delivers the messages peers sent.
	Inbox <-chan Inbound
	Log   *slog.Logger
	// EmptyBlockPeriod, when above the block period, is the minimum number
	// of seconds between a block and an empty child (Besu's
	// emptyblockperiodseconds): when the block period is over and the block
	// would be empty, the height does not start until transactions arrive
	// or this period is over too.
	EmptyBlockPeriod uint64
	// EmptyBlockPeriodAt, when set, gives EmptyBlockPeriod by block number
	// (a QBFT transition changes it from a block on).
	EmptyBlockPeriodAt func(number uint64) uint64
	// Metrics receives the consensus metrics (NewMetrics); the zero value
	// records nothing.
	Metrics Metrics
	// MetricsAt, when set, gives the metrics by block number instead, from
	// the first height on (each protocol of a migration under its name).
	MetricsAt func(number uint64) Metrics
}

// Run runs a validator until ctx ends. It returns a
// *consensus.CannotSealError when the local node is not a validator of the
// next block (the miner calls it again on a new head).
func Run(ctx context.Context, host consensus.Host, cfg Config) error {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	heads := make(chan consensus.Head, 1)
	unsubscribe := host.SubscribeHeads(heads)
	defer unsubscribe()

	r := &runner{ctx: ctx, host: host, cfg: cfg, log: log, clock: host.Clock(),
		cands: map[common.Hash]consensus.Candidate{}, m: cfg.Metrics.orNop()}
	if cfg.MetricsAt != nil {
		r.m = cfg.MetricsAt(host.Chain().CurrentHeader().Number.Uint64() + 1).orNop()
	}
	r.core = bft.New(cfg.Core, (*backend)(r))
	defer r.stopTimers()

	if err := r.newHead(host.Chain().CurrentHeader()); err != nil {
		return err
	}
	for {
		r.observe() // what the last event did to the view
		select {
		case <-ctx.Done():
			return ctx.Err()
		case h := <-heads:
			if err := r.newHead(h.Header); err != nil {
				return err
			}
		case in := <-cfg.Inbox:
			if in.Done != nil {
				in.Done()
			}
			acts, err := r.core.Step(in.Msg)
			if err != nil {
				if !errors.Is(err, bft.ErrOldMessage) && !errors.Is(err, bft.ErrDuplicate) {
					r.m.Rejected.Inc()
					log.Debug("Rejected BFT message", "kind", in.Msg.Kind, "view", in.Msg.View, "author", in.Msg.Author, "err", err)
				}
				continue
			}
			// The core relays what it accepted (bft.Relay); the peer
			// that sent it is not sent it back.
			r.in = in
			r.do(acts)
			r.in = Inbound{}
		case <-r.timerC(bft.BlockTimer):
			r.blockTimer()
		case <-r.timerC(bft.RoundTimer):
			r.fire(bft.RoundTimer)
		}
	}
}

type runner struct {
	ctx   context.Context
	host  consensus.Host
	cfg   Config
	log   *slog.Logger
	clock consensus.Clock
	core  *bft.Core

	head     *types.Header
	headHash common.Hash
	// prebuilt is the block built to see whether it would be empty (see
	// Config.EmptyBlockPeriod), for the proposer to propose.
	prebuilt     consensus.Candidate
	prebuiltView bft.View
	cands        map[common.Hash]consensus.Candidate // executed blocks of this height, by digest
	timers       [2]consensus.Timer
	timerIDs     [2]bft.Timer

	// period is the block period of the current height when the protocol
	// sets one per height (bft.Height.BlockPeriod), else 0.
	period time.Duration
	// timeout is the round-0 timer of the current height when the
	// protocol sets one per height (bft.Height.RequestTimeout), else 0.
	timeout time.Duration

	m    Metrics  // no-ops where Config.Metrics left them out
	seen bft.View // the view observe last recorded

	in Inbound // the message being stepped, while its actions are done
}

// newHead starts the height after head (if it is new).
func (r *runner) newHead(head *types.Header) error {
	if r.head != nil && head.Number.Uint64() <= r.head.Number.Uint64() {
		return nil
	}
	h, err := r.cfg.Protocol.Height(r.host.Chain(), head)
	if err != nil {
		return err
	}
	r.head, r.headHash, r.period, r.timeout = head, r.cfg.Protocol.Hash(head), h.BlockPeriod, h.RequestTimeout
	clear(r.cands)
	r.prebuilt = nil
	r.cfg.Network.NewHeight(h)
	acts := r.core.NewHeight(h)
	if !r.core.IsValidator() {
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	r.do(acts)
	return nil
}

func (r *runner) do(acts []bft.Action) {
	for len(acts) > 0 {
		a := acts[0]
		acts = acts[1:]
		switch a := a.(type) {
		case bft.Broadcast:
			r.cfg.Network.Gossip(a.Msg, MessageHash(a.Msg), enode.ID{})
		case bft.Relay:
			if a.Msg == r.in.Msg {
				r.cfg.Network.Gossip(a.Msg, r.in.Hash, r.in.From)
			} else { // replayed from the core's buffer
				r.cfg.Network.Gossip(a.Msg, MessageHash(a.Msg), enode.ID{})
			}
		case bft.StartTimer:
			r.startTimer(a)
		case bft.BuildBlock:
			acts = append(acts, r.build(a)...)
		case bft.CommitBlock:
			r.commit(a)
		}
	}
}

func (r *runner) build(a bft.BuildBlock) []bft.Action {
	var (
		cand consensus.Candidate
		err  error
	)
	if r.prebuilt != nil && r.prebuiltView == a.View {
		cand = r.prebuilt
	} else {
		ts := max(a.MinTime, uint64(r.clock.Now().Unix()))
		cand, err = r.host.Build(r.buildCtx(), r.head, r.headHash, ts)
	}
	r.prebuilt = nil
	if err != nil {
		r.log.Warn("Cannot build a block proposal", "number", a.View.Sequence, "round", a.View.Round, "err", err)
		return nil
	}
	block, err := r.cfg.Protocol.WithRound(cand.Block(), a.View.Round)
	if err != nil {
		r.log.Warn("Cannot build a block proposal", "number", a.View.Sequence, "err", err)
		return nil
	}
	if d, err := r.cfg.Protocol.Digest(block); err == nil {
		r.cands[d] = cand
	}
	return r.core.Proposed(a.View, block)
}

// Bounds of the time a proposer spends adding transactions to a block.
const (
	minBuildBudget = 50 * time.Millisecond
	// timeoutShare is the part of the round-0 timer the proposer's
	// execution may take: the other validators execute the block again
	// (on a shared machine, after it), and prepares and commits follow,
	// all before the timer ends.
	timeoutShare = 4
)

// buildCtx is the context of a proposal's build: its transactions take
// at most three quarters of the block period (at least minBuildBudget) and
// a quarter of the round timer. A full pool then makes a block the network
// agrees on in round 0, not one whose execution outlasts the round timer
// on every validator, is lost to a round change and comes back larger.
func (r *runner) buildCtx() context.Context {
	period, timeout := r.cfg.Core.BlockPeriod, r.cfg.Core.RequestTimeout
	if r.period != 0 {
		period = r.period
	}
	if r.timeout != 0 {
		timeout = r.timeout
	}
	budget := max(period*3/4, minBuildBudget)
	if timeout > 0 {
		budget = min(budget, timeout/timeoutShare)
	}
	return consensus.WithBuildBudget(r.ctx, budget)
}

func (r *runner) commit(a bft.CommitBlock) {
	p := r.cfg.Protocol
	sealed, err := p.Seal(a.Block.Header(), a.Round, a.Seals)
	if err != nil {
		r.log.Error("Cannot seal a committed block", "number", a.Block.Number(), "err", err)
		return
	}
	d, _ := p.Digest(a.Block)
	if cand, ok := r.cands[d]; ok {
		delete(r.cands, d)
		err = cand.Insert(r.ctx, sealed)
	} else {
		err = r.host.Import(r.ctx, a.Block.WithSeal(sealed))
	}
	if err != nil && !errors.Is(err, chain.ErrKnownBlock) {
		r.log.Error("Cannot import a committed block", "number", a.Block.Number(), "round", a.Round, "err", err)
		return
	}
	r.m.Committed.Inc()
	// Besu logs each committed block with its round: a round above 0
	// means a proposer was late or down.
	r.log.Info("Committed block", "number", a.Block.Number(), "round", a.Round, "txs", len(a.Block.Transactions()),
		"seals", len(a.Seals))
}

func (r *runner) startTimer(a bft.StartTimer) {
	k := a.Timer.Kind
	if t := r.timers[k]; t != nil {
		t.Stop()
	}
	d := a.Delay
	if a.AtUnix != 0 {
		d = time.Unix(int64(a.AtUnix), 0).Sub(r.clock.Now())
	}
	r.timers[k], r.timerIDs[k] = r.clock.NewTimer(d), a.Timer
}

// timerC is the channel of the running timer of kind k (nil, never ready,
// when none runs).
func (r *runner) timerC(k bft.TimerKind) <-chan time.Time {
	if t := r.timers[k]; t != nil {
		return t.C()
	}
	return nil
}

func (r *runner) fire(k bft.TimerKind) {
	id := r.timerIDs[k]
	r.timers[k] = nil
	r.do(r.core.Timeout(id))
}

// blockTimer handles the end of the block period: the height starts,
// unless the block would be empty and the empty-block period is not over;
// then the timer is set again, a block period later at most (Besu's
// resetTimerForEmptyBlock).
func (r *runner) blockTimer() {
	id := r.timerIDs[bft.BlockTimer]
	r.timers[bft.BlockTimer] = nil
	period, empty := r.cfg.Core.BlockPeriod, r.cfg.EmptyBlockPeriod
	if r.period != 0 {
		period = r.period
	}
	if r.cfg.EmptyBlockPeriodAt != nil {
		empty = r.cfg.EmptyBlockPeriodAt(id.View.Sequence)
	}
	if time.Duration(empty)*time.Second > period && id.View == r.core.View() && id.View.Round == 0 {
		deadline := time.Unix(int64(r.head.Time+empty), 0)
		if now := r.clock.Now(); now.Before(deadline) {
			ts := max(uint64(now.Unix()), r.head.Time+uint64(period/time.Second))
			cand, err := r.host.Build(r.buildCtx(), r.head, r.headHash, ts)
			if err == nil && len(cand.Block().Transactions()) == 0 {
				// Look again a block period later (a sub-second period
				// looks often: building on an empty pool is cheap).
				r.startTimer(bft.StartTimer{Timer: id, Delay: min(period, deadline.Sub(now))})
				return
			}
			if err == nil {
				r.prebuilt, r.prebuiltView = cand, id.View
			}
		}
	}
	r.do(r.core.Timeout(id))
}

func (r *runner) stopTimers() {
	for _, t := range r.timers {
		if t != nil {
			t.Stop()
		}
	}
}

// backend is the core's Backend: the protocol's pure functions, and Verify
// by executing the block on the host (the candidate is kept, so the block
// is not executed again when it is committed).
type backend runner

func (b *backend) Digest(block *types.Block) (common.Hash, error) {
	return b.cfg.Protocol.Digest(block)
}
func (b *backend) BlockRound(block *types.Block) (uint32, error) {
	return b.cfg.Protocol.BlockRound(block)
}
func (b *backend) WithRound(block *types.Block, round uint32) (*types.Block, error) {
	return b.cfg.Protocol.WithRound(block, round)
}
func (b *backend) Sign(m *bft.Message) error { return b.cfg.Protocol.Sign(m) }
func (b *backend) SealHash(block *types.Block, round uint32) (common.Hash, error) {
	return b.cfg.Protocol.SealHash(block, round)
}
func (b *backend) CommitSeal(d common.Hash) ([]byte, error) { return b.cfg.Protocol.CommitSeal(d) }
func (b *backend) SealSigner(d common.Hash, s []byte) (common.Address, error) {
	return b.cfg.Protocol.SealSigner(d, s)
}

func (b *backend) Verify(block *types.Block) error {
	if block.ParentHash() != b.headHash {
		return errors.New("proposal is not on the local head")
	}
	cand, err := b.host.Execute(b.ctx, block)
	if err != nil {
		return err
	}
	if d, err := b.cfg.Protocol.Digest(block); err == nil {
		b.cands[d] = cand
	}
	return nil
}

// MessageHash identifies a message for duplicate suppression and gossip:
// keccak256 of its code and wire form.
func MessageHash(m *bft.Message) common.Hash {
	return crypto.Keccak256Hash([]byte{byte(m.Kind)}, m.Wire)
}
