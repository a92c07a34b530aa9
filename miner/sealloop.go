package miner

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/basaltchain/basalt/consensus"
)

const (
	// minBackoff and maxBackoff bound the wait after a failure that is not
	// a CannotSealError (a build error, a seal error): the loop retries, but
	// never in a tight loop, and no slower than maxBackoff.
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// sealLoop produces blocks for engines that seal a built block on their
// own (ethash; Clique's turn and delays come through the Scheduler): for
// each head it asks the Scheduler whether and when it may seal, waits for
// that time and for the second after the parent's, builds a block, offers
// it as remote work, seals it and inserts it. It never spins: every path
// that does not produce a block waits for a new head, the engine's Retry,
// a back-off or the time it must wait anyway.
func (m *Miner) sealLoop(ctx context.Context) {
	pause := newPauseLog(m.log)
	var backoff time.Duration
	failed := func(msg string, err error) {
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		m.log.Warn(msg, "err", err, "retryIn", backoff)
		m.sleep(ctx, backoff)
	}
	for ctx.Err() == nil {
		if m.isPaused() {
			m.waitWake(ctx) // SetPaused(false) wakes it
			continue
		}
		parent := m.chain.CurrentHeader()
		now := m.clock.Now()
		// at is when the engine's Scheduler lets it seal; the zero time
		// when it sets no bound (ethash under the beacon wrapper, which
		// only refuses post-merge heads).
		var at time.Time
		if s := m.cfg.Scheduler; s != nil {
			t, err := s.NextSeal(m.chain, parent, now)
			m.setRefused(refusal(err))
			if err != nil {
				if !m.cannotSeal(ctx, err, pause) {
					failed("Sealing schedule failed", err)
				}
				continue
			}
			at = t
		}
		ahead := m.runsAhead() && at.IsZero()
		// Timestamps strictly increase: not before the second after the
		// parent's, and (but see buildAhead) not in the future.
		if next := time.Unix(int64(parent.Time)+1, 0); at.Before(next) {
			at = next
		}
		var pb *pendingBlock
		if wait := at.Sub(now); wait > 0 {
			if !ahead {
				m.sleep(ctx, wait) // a new head ends it early: plan again
				continue
			}
			if q := m.untilQuiet(now); q > 0 {
				// Transactions are still arriving: they go into the block
				// due at its second, or into one built once they stop.
				m.sleepClock(ctx, min(q, wait))
				continue
			}
			if pb = m.buildAhead(ctx, wait, now); pb == nil {
				// A new head, or new transactions, end it early: plan again.
				m.sleep(ctx, untilAhead(wait))
				continue
			}
		} else {
			var err error
			pb, err = build(ctx, m.chain, m.txs, *m.cfg.Coinbase, m.cfg.ExtraData, now, WithGasTarget(m.cfg.GasTarget))
			if err != nil {
				if ctx.Err() == nil {
					failed("Block building failed", err)
				}
				continue
			}
		}
		sealCtx, cancel := context.WithCancel(ctx)
		if !m.setWork(pb, cancel) {
			cancel() // paused meanwhile
			continue
		}
		sealed, err := m.chain.Engine().Seal(sealCtx, pb.block.Header())
		aborted := sealCtx.Err() != nil
		cancel()
		switch {
		case err == nil:
		case isCannotSeal(err):
			m.dropWork(pb) // before waiting: eth_getWork must not hand it out
			m.cannotSeal(ctx, err, pause)
			continue
		case aborted:
			continue // new head, pause or stop
		default:
			failed("Sealing failed", err)
			continue
		}
		if err := m.insert(ctx, pb, sealed); err != nil {
			if ctx.Err() == nil {
				failed("Mined block rejected", err)
			}
			continue
		}
		pause.resumed()
		backoff = 0
	}
}

// cannotSeal handles a *consensus.CannotSealError: it logs the reason when
// it changes and waits for a new head, or for Retry when the engine gave
// one. It reports false (and does nothing) for any other error.
func (m *Miner) cannotSeal(ctx context.Context, err error, pause *pauseLog) bool {
	var cs *consensus.CannotSealError
	if !errors.As(err, &cs) {
		return false
	}
	pause.paused(cs.Reason)
	if cs.Retry > 0 {
		m.sleep(ctx, cs.Retry)
	} else {
		m.waitWake(ctx)
	}
	return true
}

// refusal is the reason of a *consensus.CannotSealError, "" for any other
// outcome.
func refusal(err error) string {
	var cs *consensus.CannotSealError
	if errors.As(err, &cs) {
		return cs.Reason
	}
	return ""
}

func isCannotSeal(err error) bool {
	var cs *consensus.CannotSealError
	return errors.As(err, &cs)
}

// sleep waits for d on the miner's clock, a wake-up (new head, resume) or
// the end of ctx, whichever comes first.
func (m *Miner) sleep(ctx context.Context, d time.Duration) {
	t := m.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
	case <-m.wake:
	case <-ctx.Done():
	}
}

// sleepClock waits for d on the miner's clock or the end of ctx; unlike
// sleep, wake-ups do not end it (they stay pending for the next wait).
func (m *Miner) sleepClock(ctx context.Context, d time.Duration) {
	t := m.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
	case <-ctx.Done():
	}
}

// waitWake waits for a wake-up (new head, resume) or the end of ctx.
func (m *Miner) waitWake(ctx context.Context) {
	select {
	case <-m.wake:
	case <-ctx.Done():
	}
}

// maxPoWAhead is how far ahead of the clock a proof-of-work block with
// transactions may be stamped: a block's timestamp must be at least a
// second after its parent's, so a transaction arriving just after a block
// would otherwise wait for the next second. One second lets it be mined at
// once, while a burst still goes into about one block per second. Longer
// (Besu's proof-of-work scheduler allows the 10 s its header checks accept)
// splits a burst into many small blocks, each sealed at a cost: on the dev
// network (fixed difficulty 100, ~220 ms of CPU per seal) 8 s put a
// 10,000-transfer burst into 4–6 blocks at a median 4,400 tx/s, against 2–4
// blocks at 5,800 tx/s with 1 s.
const maxPoWAhead = time.Second

// buildAhead builds the next block at once, stamped the second after its
// parent's although that is still wait in the future, when wait is within
// maxPoWAhead and the block gets transactions; otherwise it returns nil and
// the loop waits for the timestamp (or for transactions: see
// TransactionsArrived). The loop asks it only for a proof-of-work engine
// whose Scheduler sets no time (Clique's turns keep to the clock). So an
// idle chain keeps to one block per second of the clock (empty blocks never
// run ahead), while transactions are mined as soon as they arrive and a
// burst block after block, as fast as sealing allows, instead of one block
// per wall-clock second. A chain that ran ahead waits for the clock to
// catch up before its next empty block.
func (m *Miner) buildAhead(ctx context.Context, wait time.Duration, now time.Time) *pendingBlock {
	if wait > maxPoWAhead {
		return nil
	}
	pb, err := build(ctx, m.chain, m.txs, *m.cfg.Coinbase, m.cfg.ExtraData, now, WithGasTarget(m.cfg.GasTarget))
	if err != nil || len(pb.block.Transactions()) == 0 {
		return nil // an error shows again when the block is built on time
	}
	return pb
}

// runsAhead reports whether blocks with transactions may be stamped ahead
// of the clock: proof of work, whose header checks accept timestamps up to
// 10 s ahead.
func (m *Miner) runsAhead() bool { return m.cfg.PoW != nil }

// quietBeforeAhead is how long the pool must have taken no transaction
// before a block is built ahead of its second: a burst still arriving goes
// into the block due at the next second, and what is left into one built
// as soon as the burst stops, rather than into many small blocks each
// costing a seal, while a lone transaction waits only this long.
const quietBeforeAhead = 50 * time.Millisecond

// TransactionsArrived tells the miner the pool took new transactions: a
// proof-of-work miner waiting for its next second plans again, and builds
// the block at once (buildAhead) once no more have come for
// quietBeforeAhead.
func (m *Miner) TransactionsArrived() {
	if m.runsAhead() {
		m.lastTx.Store(m.clock.Now().UnixNano())
		m.notify()
	}
}

// untilQuiet is how long after now the pool will have taken no transaction
// for quietBeforeAhead; 0 or less when it has.
func (m *Miner) untilQuiet(now time.Time) time.Duration {
	last := m.lastTx.Load()
	if last == 0 {
		return 0
	}
	return time.Unix(0, last).Add(quietBeforeAhead).Sub(now)
}

// untilAhead is how long a miner that runs ahead waits for a block due in
// wait: until then, or when it is more than maxPoWAhead ahead, until it may
// again.
func untilAhead(wait time.Duration) time.Duration {
	if wait > maxPoWAhead {
		return wait - maxPoWAhead
	}
	return wait
}

// pauseLog logs why production is paused when the reason changes, not on
// every check: a node whose head is post-merge logs "Mining paused" once.
// A reason that comes back (Clique's turn, block after block) is logged at
// Info the first time and at Debug after that.
type pauseLog struct {
	log    *slog.Logger
	reason string // why production is paused; "" while producing
	level  slog.Level
	seen   map[string]bool
}

func newPauseLog(log *slog.Logger) *pauseLog {
	return &pauseLog{log: log, seen: make(map[string]bool)}
}

func (p *pauseLog) paused(reason string) {
	if reason == p.reason {
		return
	}
	p.reason, p.level = reason, slog.LevelInfo
	if p.seen[reason] {
		p.level = slog.LevelDebug
	}
	p.seen[reason] = true
	p.log.Log(context.Background(), p.level, "Mining paused", "reason", reason)
}

func (p *pauseLog) resumed() {
	if p.reason == "" {
		return
	}
	p.log.Log(context.Background(), p.level, "Mining resumed", "after", p.reason)
	p.reason = ""
}
