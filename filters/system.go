package filters

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/internal/defaults"
	"github.com/basaltchain/basalt/txpool"
)

// Defaults of Config.
const (
	DefaultFilterTimeout  = 10 * time.Minute // Besu's Filter.DEFAULT_EXPIRE_DURATION
	DefaultMaxFilters     = 4096
	DefaultMaxLogResults  = 100_000
	DefaultBlockHistory   = 4096
	DefaultPendingHistory = 16384

	// expiryInterval is how often expired filters are swept (Besu: 10 s).
	expiryInterval = 10 * time.Second
)

// Config configures a System. Zero values mean the defaults.
type Config struct {
	// MaxLogsRange is --rpc-max-logs-range: the most blocks (to - from) a
	// log query may span; 0 means no limit.
	MaxLogsRange int64
	// MaxLogResults caps the logs one query returns (ErrTooManyResults
	// past it), bounding the memory a query can take; -1 means no limit.
	MaxLogResults int
	// FilterTimeout is how long a filter lives without being polled.
	FilterTimeout time.Duration
	// MaxFilters caps the installed polling filters (ErrTooManyFilters).
	MaxFilters int
	// BlockHistory is how many head changes (block added or removed) are
	// kept for polling filters; a filter polled less often than that loses
	// the oldest.
	BlockHistory int
	// PendingHistory is the same for pending transaction hashes.
	PendingHistory int
	// Now is the clock filter expiry reads; nil means time.Now.
	Now func() time.Time
	// Logger receives the system's warnings; nil means slog.Default().
	Logger *slog.Logger
}

// TxSource is what the system needs from the transaction pool.
type TxSource interface {
	SubscribeNewTxs(ch chan<- txpool.NewTxsEvent) event.Subscription
}

// Errors of the system; each front end maps them to its own errors.
var (
	ErrFilterNotFound = errors.New("filter not found")
	// ErrLogFilterNotFound is an id that names no log filter, where only
	// a log filter will do (FilterLogs); it is also an ErrFilterNotFound.
	ErrLogFilterNotFound = fmt.Errorf("log %w", ErrFilterNotFound)
	ErrTooManyFilters    = errors.New("too many filters")
	ErrRangeTooLarge     = errors.New("block range exceeds the maximum")
	ErrBlockNotFound     = errors.New("block not found")
	ErrTooManyResults    = errors.New("too many logs")
)

// Kind is the kind of a filter or subscription.
type Kind int

// Kinds of filters and subscriptions.
const (
	KindLogs       Kind = iota // log objects
	KindBlocks                 // new canonical blocks
	KindPendingTxs             // transactions accepted by the pool
	KindSyncing                // sync status changes (subscriptions only)
	numKinds
)

// System is the node's log and event service: eth_getLogs queries, the
// polling filters (eth_newFilter and friends) and the push subscriptions of
// eth_subscribe. It follows the chain's head events (with reorgs) and the
// pool's new transactions on one goroutine, started by Start.
//
// Polling filters do not buffer events of their own: the system keeps one
// bounded history of head changes and one of pending transaction hashes,
// and a filter holds only its position in them, so many filters cost
// little memory and a forgotten one costs nothing but its entry until it
// expires. Log filters read the receipts of the blocks in their share of
// the history when polled, after a bloom check.
type System struct {
	chain *chain.Chain
	txs   TxSource
	cfg   Config
	log   *slog.Logger

	mu      sync.Mutex
	filters map[string]*filter
	blocks  ring[blockEvent]
	pending ring[common.Hash]

	subMu   sync.Mutex
	subs    [numKinds]atomic.Pointer[[]*Subscription] // copy on write, read by the event goroutine
	subByID map[string]*Subscription
	subSeq  uint64

	// private gives a GoQuorum party's private logs (SetPrivateLogs); nil:
	// none.
	private PrivateLogs

	barrier chan chan struct{} // tests: wait until queued events are processed
	quit    chan struct{}
	done    chan struct{}
}

// blockEvent is one head change kept for polling filters.
type blockEvent struct {
	hash    common.Hash
	header  *types.Header
	removed bool // left the canonical chain in a reorg
}

// New returns a system over the chain and, if txs is not nil, the pool.
func New(c *chain.Chain, txs TxSource, cfg Config) *System {
	cfg.MaxLogResults = cmp.Or(cfg.MaxLogResults, DefaultMaxLogResults)
	cfg.FilterTimeout = defaults.Positive(cfg.FilterTimeout, DefaultFilterTimeout)
	cfg.MaxFilters = defaults.Positive(cfg.MaxFilters, DefaultMaxFilters)
	cfg.BlockHistory = defaults.Positive(cfg.BlockHistory, DefaultBlockHistory)
	cfg.PendingHistory = defaults.Positive(cfg.PendingHistory, DefaultPendingHistory)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &System{
		chain:   c,
		txs:     txs,
		cfg:     cfg,
		log:     log,
		filters: make(map[string]*filter),
		blocks:  newRing[blockEvent](cfg.BlockHistory),
		pending: newRing[common.Hash](cfg.PendingHistory),
		subByID: make(map[string]*Subscription),
		barrier: make(chan chan struct{}),
	}
	for k := range s.subs {
		s.subs[k].Store(new([]*Subscription))
	}
	return s
}

// PrivateLogs gives the private logs of a stored block: a GoQuorum
// party's, whose queries and subscriptions see them beside the public
// logs, as GoQuorum's do. The header's bloom leaves them out.
type PrivateLogs interface {
	PrivateLogs(hash common.Hash, number uint64) []*types.Log
}

// SetPrivateLogs makes every log query, filter and subscription see p's
// private logs too. It must be called before Start.
func (s *System) SetPrivateLogs(p PrivateLogs) { s.private = p }

// mayMatch reports whether a block whose header has bloom may hold logs
// matching crit: always, with private logs, which the bloom leaves out.
func (s *System) mayMatch(crit *Criteria, bloom *types.Bloom) bool {
	return s.private != nil || crit == nil || crit.MayMatch(bloom)
}

// logsAt returns the logs of a stored block that match crit (all when
// nil): the public ones, read only if the header's bloom may match, and
// the private ones (SetPrivateLogs), in transaction order.
func (s *System) logsAt(hash common.Hash, bloom *types.Bloom, number uint64, crit *Criteria, removed bool) []*types.Log {
	var logs []*types.Log
	if crit == nil || crit.MayMatch(bloom) {
		logs = s.blockLogs(hash, number, crit, removed)
	}
	if s.private == nil {
		return logs
	}
	priv := s.private.PrivateLogs(hash, number)
	if len(priv) == 0 {
		return logs
	}
	out := make([]*types.Log, 0, len(logs)+len(priv))
	out = append(out, logs...)
	for _, l := range priv {
		if crit != nil && !crit.Wildcard() && !crit.Matches(l) {
			continue
		}
		if removed {
			cp := *l
			cp.Removed = true
			l = &cp
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *types.Log) int { return cmp.Compare(a.TxIndex, b.TxIndex) })
	return out
}

// Start follows the chain and the pool until Stop.
func (s *System) Start() {
	if s.quit != nil {
		return
	}
	s.quit, s.done = make(chan struct{}), make(chan struct{})
	// Buffered so that a burst of blocks or transactions does not hold up
	// the chain or the pool (their feeds block until every subscriber has
	// taken the event); the loop itself never waits on a client.
	heads := make(chan chain.HeadEvent, 256)
	headSub := s.chain.SubscribeHead(heads)
	var (
		txs   chan txpool.NewTxsEvent
		txSub event.Subscription
	)
	if s.txs != nil {
		txs = make(chan txpool.NewTxsEvent, 1024)
		txSub = s.txs.SubscribeNewTxs(txs)
	}
	go func() {
		defer close(s.done)
		defer headSub.Unsubscribe()
		if txSub != nil {
			defer txSub.Unsubscribe()
		}
		s.loop(heads, txs)
	}()
}

// Stop ends the event goroutine. Filters and subscriptions stay (they just
// receive nothing more).
func (s *System) Stop() {
	if s.quit == nil {
		return
	}
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

func (s *System) loop(heads <-chan chain.HeadEvent, txs <-chan txpool.NewTxsEvent) {
	tick := time.NewTicker(expiryInterval)
	defer tick.Stop()
	for {
		select {
		case ev := <-heads:
			s.onHead(ev)
		case ev := <-txs:
			s.onTxs(ev)
		case <-tick.C:
			s.expire()
		case done := <-s.barrier:
			// Take everything already queued, then report.
			for drained := false; !drained; {
				select {
				case ev := <-heads:
					s.onHead(ev)
				case ev := <-txs:
					s.onTxs(ev)
				default:
					drained = true
				}
			}
			close(done)
		case <-s.quit:
			return
		}
	}
}

// sync waits until the events queued so far have been processed (tests).
func (s *System) sync() {
	done := make(chan struct{})
	select {
	case s.barrier <- done:
		<-done
	case <-s.done:
	}
}

// onHead records a head change for the polling filters and notifies the
// subscriptions: removed blocks (newest first) then added ones (oldest
// first).
func (s *System) onHead(ev chain.HeadEvent) {
	changes := make([]blockEvent, 0, len(ev.Removed)+len(ev.Added))
	for _, b := range ev.Removed {
		h := b.Header()
		changes = append(changes, blockEvent{hash: s.chain.Hash(h), header: h, removed: true})
	}
	for _, b := range ev.Added {
		h := b.Header()
		changes = append(changes, blockEvent{hash: s.chain.Hash(h), header: h})
	}
	s.mu.Lock()
	for _, c := range changes {
		s.blocks.push(c)
	}
	s.mu.Unlock()

	if heads := *s.subs[KindBlocks].Load(); len(heads) > 0 {
		for i, c := range changes[len(ev.Removed):] {
			s.deliver(heads, &Event{Kind: KindBlocks, Hash: c.hash, Header: c.header, Block: ev.Added[i]})
		}
	}
	if logSubs := *s.subs[KindLogs].Load(); len(logSubs) > 0 {
		for _, c := range changes {
			s.deliverLogs(logSubs, c)
		}
	}
}

// deliverLogs sends the logs of one head change to the log subscriptions
// they match, reading the block's receipts only if some bloom matches.
func (s *System) deliverLogs(subs []*Subscription, c blockEvent) {
	var (
		logs   []*types.Log
		loaded bool
		events []*Event
		broken []*Subscription
	)
	for _, sub := range subs {
		if !sub.active.Load() || !s.mayMatch(sub.crit, &c.header.Bloom) {
			continue
		}
		if !loaded {
			logs, loaded = s.logsAt(c.hash, &c.header.Bloom, c.header.Number.Uint64(), nil, c.removed), true
			events = make([]*Event, len(logs))
		}
		for i, l := range logs {
			if !sub.crit.Matches(l) {
				continue
			}
			if events[i] == nil {
				events[i] = &Event{Kind: KindLogs, Log: l}
			}
			if !sub.deliver(events[i]) {
				broken = append(broken, sub)
				break
			}
		}
	}
	for _, sub := range broken {
		s.Unsubscribe(sub.id)
	}
}

// onTxs records new pending transactions and notifies the subscriptions.
func (s *System) onTxs(ev txpool.NewTxsEvent) {
	hashes := make([]common.Hash, len(ev.Txs))
	for i, tx := range ev.Txs {
		hashes[i] = tx.Hash()
	}
	s.mu.Lock()
	for _, h := range hashes {
		s.pending.push(h)
	}
	s.mu.Unlock()
	if subs := *s.subs[KindPendingTxs].Load(); len(subs) > 0 {
		for i, tx := range ev.Txs {
			s.deliver(subs, &Event{Kind: KindPendingTxs, Hash: hashes[i], Tx: tx})
		}
	}
}

// deliver hands ev to every active subscription of subs, dropping those
// whose connection refused it.
func (s *System) deliver(subs []*Subscription, ev *Event) {
	var broken []*Subscription
	for _, sub := range subs {
		if sub.active.Load() && !sub.deliver(ev) {
			broken = append(broken, sub)
		}
	}
	for _, sub := range broken {
		s.Unsubscribe(sub.id)
	}
}

// blockLogs returns the logs of a stored block that match crit (all when
// crit is nil); removed marks them as reverted by a reorg (copies, the
// receipts are shared).
func (s *System) blockLogs(hash common.Hash, number uint64, crit *Criteria, removed bool) []*types.Log {
	var match func(*types.Log) bool
	if crit != nil && !crit.Wildcard() {
		match = crit.Matches
	}
	logs, err := s.chain.BlockLogs(hash, number, match)
	if err != nil {
		s.log.Error("Cannot read the logs of a block", "number", number, "hash", hash, "err", err)
		return nil
	}
	if removed {
		for i, l := range logs {
			cp := *l
			cp.Removed = true
			logs[i] = &cp
		}
	}
	return logs
}

// ring is a bounded history with sequence numbers: entry seq lives at
// buf[seq % len(buf)] until len(buf) newer entries have been pushed.
type ring[T any] struct {
	buf  []T
	next uint64 // sequence number of the next entry
}

func newRing[T any](n int) ring[T] { return ring[T]{buf: make([]T, n)} }

func (r *ring[T]) push(v T) {
	r.buf[r.next%uint64(len(r.buf))] = v
	r.next++
}

// since appends the entries from sequence number seq on (or from the
// oldest kept, if seq is older) to dst and returns the next position.
func (r *ring[T]) since(seq uint64, dst []T) ([]T, uint64) {
	if n := uint64(len(r.buf)); r.next > n && seq < r.next-n {
		seq = r.next - n
	}
	for ; seq < r.next; seq++ {
		dst = append(dst, r.buf[seq%uint64(len(r.buf))])
	}
	return dst, r.next
}

// tooManyResults is the error for a query over the result cap.
func (s *System) tooManyResults() error {
	return fmt.Errorf("%w: more than %d", ErrTooManyResults, s.cfg.MaxLogResults)
}
