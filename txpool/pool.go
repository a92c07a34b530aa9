package txpool

import (
	"cmp"
	"errors"
	"github.com/basaltchain/basalt/quorumtx"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// State is the pool's read access to the world state at the chain head. The
// pool calls it from several goroutines at once and without holding its own
// lock, so implementations must be safe for concurrent use. An account that
// does not exist has nonce 0 and balance 0.
type State interface {
	Nonce(addr common.Address) uint64
	Balance(addr common.Address) *uint256.Int
}

// NewTxsEvent is sent to subscribers for every batch of transactions the pool
// accepted (pending or queued, new or replacing an older one).
type NewTxsEvent struct {
	Txs []*types.Transaction
}

// PromotedTxsEvent is sent to subscribers for the transactions that were
// queued behind a nonce gap and became executable (pending): a transaction
// that closed the gap arrived, or the chain head moved the sender's nonce
// up to them. The transactions that close a gap are in NewTxsEvent, not
// here. Peers announce these again: a peer may have refused one while it
// was queued.
type PromotedTxsEvent struct {
	Txs []*types.Transaction
}

// TxInfo describes a pooled transaction (txpool_besuTransactions).
type TxInfo struct {
	Tx      *types.Transaction
	From    common.Address
	Local   bool      // received over JSON-RPC (isReceivedFromLocalSource)
	AddedAt time.Time // when it entered the pool (addedToPoolAt)
	Pending bool      // executable now (no nonce gap), else queued
}

// Stats are the pool's counters (txpool_besuStatistics plus pending/queued).
type Stats struct {
	MaxSize     int
	LocalCount  int
	RemoteCount int
	Pending     int
	Queued      int
}

// Pool is the transaction pool. It is safe for concurrent use.
type Pool struct {
	cfg         Config
	chainCfg    *params.ChainConfig
	chainID     *big.Int
	signer      types.Signer
	minGasPrice *big.Int
	txFeeCap    *big.Int // nil: no cap

	view         atomic.Pointer[headView]
	senderFilter atomic.Pointer[func(common.Address) bool]

	mu           sync.RWMutex
	all          map[common.Hash]*entry
	accounts     map[common.Address]*account
	evict        evictHeap
	localSenders map[common.Address]struct{} // senders that ever sent a local tx (Besu's localSenders)
	locals       int
	seq          uint64

	feed     event.Feed // NewTxsEvent
	promoted event.Feed // PromotedTxsEvent
	scope    event.SubscriptionScope

	metrics poolMetrics

	now       func() time.Time
	quit      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// New returns a pool at head with state st. It starts one goroutine that
// evicts transactions older than cfg.Retention every minute (as Besu does,
// so they also go when no blocks arrive); Close stops it.
func New(cfg Config, chainCfg *params.ChainConfig, head *types.Header, st State) (*Pool, error) {
	return newPool(cfg, chainCfg, head, st, time.Now)
}

// newPool is New with a clock (tests use a fake one).
func newPool(cfg Config, chainCfg *params.ChainConfig, head *types.Header, st State, now func() time.Time) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if chainCfg == nil || head == nil || head.Number == nil || st == nil {
		return nil, errors.New("txpool: chain config, head and state are required")
	}
	p := &Pool{
		cfg:          cfg,
		chainCfg:     chainCfg,
		signer:       poolSigner(cfg, chainCfg),
		minGasPrice:  new(big.Int),
		all:          make(map[common.Hash]*entry),
		accounts:     make(map[common.Address]*account),
		evict:        evictHeap{localFirst: !cfg.NoLocalPriority},
		localSenders: make(map[common.Address]struct{}),
		now:          now,
		quit:         make(chan struct{}),
	}
	if chainCfg.ChainID != nil && chainCfg.ChainID.Sign() > 0 {
		p.chainID = new(big.Int).Set(chainCfg.ChainID)
	}
	if cfg.MinGasPrice != nil {
		p.minGasPrice.Set(cfg.MinGasPrice)
	}
	if cfg.TxFeeCap != nil && cfg.TxFeeCap.Sign() > 0 {
		p.txFeeCap = new(big.Int).Set(cfg.TxFeeCap)
	}
	p.metrics = newPoolMetrics(cfg.Metrics, p)
	p.view.Store(newView(chainCfg, head, st, 0))
	if cfg.Retention > 0 {
		p.wg.Add(1)
		go p.expireLoop()
	}
	return p, nil
}

// Close stops the pool's goroutine and ends all subscriptions. The pool
// stays usable (without periodic expiry).
func (p *Pool) Close() {
	p.closeOnce.Do(func() {
		close(p.quit)
		p.wg.Wait()
		p.scope.Close()
	})
}

func (p *Pool) expireLoop() {
	defer p.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.EvictExpired()
		case <-p.quit:
			return
		}
	}
}

// SetSenderFilter installs the account allowlist check: transactions from
// senders for which allowed returns false are refused with
// TX_SENDER_NOT_AUTHORIZED. Nil removes the filter. allowed is called
// concurrently and must be safe for that.
func (p *Pool) SetSenderFilter(allowed func(common.Address) bool) {
	if allowed == nil {
		p.senderFilter.Store(nil)
		return
	}
	p.senderFilter.Store(&allowed)
}

// SubscribeNewTxs delivers a NewTxsEvent for every batch of accepted
// transactions. Sending blocks the adding caller until every subscriber has
// taken the event, so subscribers should use a buffered channel and keep
// reading. Close ends all subscriptions; after Close the subscription
// returned is already ended.
func (p *Pool) SubscribeNewTxs(ch chan<- NewTxsEvent) event.Subscription {
	sub := p.feed.Subscribe(ch)
	if tracked := p.scope.Track(sub); tracked != nil {
		return tracked
	}
	sub.Unsubscribe()
	return event.NewSubscription(func(<-chan struct{}) error { return nil })
}

// SubscribePromotedTxs delivers a PromotedTxsEvent whenever queued
// transactions become executable. Sending blocks the adding caller (or
// Reset) until every subscriber has taken the event, as for
// SubscribeNewTxs.
func (p *Pool) SubscribePromotedTxs(ch chan<- PromotedTxsEvent) event.Subscription {
	sub := p.promoted.Subscribe(ch)
	if tracked := p.scope.Track(sub); tracked != nil {
		return tracked
	}
	sub.Unsubscribe()
	return event.NewSubscription(func(<-chan struct{}) error { return nil })
}

// sendPromoted tells the subscribers about promoted transactions; the pool
// lock must not be held.
func (p *Pool) sendPromoted(txs []*types.Transaction) {
	if len(txs) > 0 {
		p.promoted.Send(PromotedTxsEvent{Txs: txs})
	}
}

// Get returns the pooled transaction with hash h, or nil.
func (p *Pool) Get(h common.Hash) *types.Transaction {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if e, ok := p.all[h]; ok {
		return e.tx
	}
	return nil
}

// Has reports whether the transaction with hash h is in the pool.
func (p *Pool) Has(h common.Hash) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.all[h]
	return ok
}

// PendingNonce returns the next nonce addr should use: its account nonce
// plus the number of its pending transactions (eth_getTransactionCount with
// "pending"). Queued transactions behind a gap do not count.
func (p *Pool) PendingNonce(addr common.Address) uint64 {
	p.mu.RLock()
	acct := p.accounts[addr]
	var n uint64
	if acct != nil {
		n = acct.nonce + uint64(acct.pending)
	}
	view := p.view.Load()
	p.mu.RUnlock()
	if acct == nil {
		n = view.state.Nonce(addr)
	}
	return n
}

// Content returns every sender's pending and queued transactions, each list
// in nonce order (txpool_content).
func (p *Pool) Content() (pending, queued map[common.Address][]*types.Transaction) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	pending = make(map[common.Address][]*types.Transaction)
	queued = make(map[common.Address][]*types.Transaction)
	for addr, acct := range p.accounts {
		if acct.pending > 0 {
			pending[addr] = txsOf(acct.txs[:acct.pending])
		}
		if acct.pending < len(acct.txs) {
			queued[addr] = txsOf(acct.txs[acct.pending:])
		}
	}
	return pending, queued
}

// ContentFrom returns addr's pending and queued transactions in nonce order.
func (p *Pool) ContentFrom(addr common.Address) (pending, queued []*types.Transaction) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	acct := p.accounts[addr]
	if acct == nil {
		return nil, nil
	}
	return txsOf(acct.txs[:acct.pending]), txsOf(acct.txs[acct.pending:])
}

func txsOf(es []*entry) []*types.Transaction {
	if len(es) == 0 {
		return nil
	}
	out := make([]*types.Transaction, len(es))
	for i, e := range es {
		out[i] = e.tx
	}
	return out
}

// Transactions lists every pooled transaction with its metadata, oldest
// first (txpool_besuTransactions).
func (p *Pool) Transactions() []TxInfo {
	type item struct {
		seq  uint64
		info TxInfo
	}
	p.mu.RLock()
	items := make([]item, 0, len(p.all))
	for _, acct := range p.accounts {
		for i, e := range acct.txs {
			items = append(items, item{e.seq, TxInfo{
				Tx:      e.tx,
				From:    e.from,
				Local:   e.local,
				AddedAt: time.Unix(0, e.addedAt),
				Pending: i < acct.pending,
			}})
		}
	}
	p.mu.RUnlock()
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]TxInfo, len(items))
	for i := range items {
		out[i] = items[i].info
	}
	return out
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := Stats{MaxSize: p.cfg.MaxSize, LocalCount: p.locals, RemoteCount: len(p.all) - p.locals}
	for _, acct := range p.accounts {
		s.Pending += acct.pending
		s.Queued += len(acct.txs) - acct.pending
	}
	return s
}

// Len returns the number of pooled transactions.
func (p *Pool) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.all)
}

// poolSigner is the chain's latest signer, recovering GoQuorum private
// transactions too with Config.GoQuorumPrivate.
func poolSigner(cfg Config, chainCfg *params.ChainConfig) types.Signer {
	s := types.LatestSigner(chainCfg)
	if cfg.GoQuorumPrivate {
		return quorumtx.NewSigner(s)
	}
	return s
}
