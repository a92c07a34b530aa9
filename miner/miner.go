// Package miner produces blocks: the shared block builder (Build, also used
// by the test chain generator), the sealing loop behind --miner-enabled and
// miner_start/miner_stop for engines that seal a built block on their own
// (proof of work, and the room Clique's turn and delays need through
// consensus.Scheduler), the remote work of eth_getWork/eth_submitWork, and
// the host a consensus.Producer (a BFT controller) runs on instead of the
// sealing loop.
//
// The miner never asks which engine it runs on: the node hands it the
// engine's capabilities (consensus.PoW, consensus.Scheduler,
// consensus.Producer) in Config.
package miner

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
)

// ErrCoinbaseNotSet is returned by Start when no coinbase was configured.
var ErrCoinbaseNotSet = errors.New("coinbase not set")

// ErrNoWork is returned by GetWork when no block is being mined.
var ErrNoWork = errors.New("no mining work available yet")

// Config is the miner's configuration.
type Config struct {
	Coinbase  *common.Address
	ExtraData []byte
	// GasTarget is --target-gas-limit: mined blocks move their gas limit
	// toward it (see NextGasLimit); 0 keeps the parent's.
	GasTarget uint64
	// PoW enables remote mining (eth_getWork/eth_submitWork): the engine's
	// proof-of-work capability; nil for engines without proof of work.
	PoW consensus.PoW
	// Scheduler, when set, is asked before every block whether and when
	// the engine may seal on the head (see consensus.Scheduler).
	Scheduler consensus.Scheduler
	// Producer, when set, produces the blocks instead of the sealing loop
	// (see consensus.Producer).
	Producer consensus.Producer
	// Clock is the time production waits on; nil means the wall clock.
	Clock consensus.Clock
}

// Miner produces blocks. It is safe for concurrent use.
type Miner struct {
	chain *chain.Chain
	txs   TxSource
	cfg   Config
	log   *slog.Logger
	clock consensus.Clock
	// wake is signalled (without blocking; capacity 1) when the production
	// loop may have something new to do: a new head, or a resume after a
	// pause. The loop waits on it instead of polling.
	wake chan struct{}
	// lastTx is when (UnixNano on the miner's clock) the pool last took
	// transactions, as TransactionsArrived reports; 0 before.
	lastTx atomic.Int64

	mu      sync.Mutex
	cancel  context.CancelFunc // stops the running loop; nil when stopped
	done    chan struct{}      // closed when the loop has exited
	sealing context.CancelFunc // aborts the current seal or producer run
	works   map[common.Hash]*pendingBlock
	current *pendingBlock
	paused  bool
	// refused is the reason the engine's Scheduler last gave for not
	// sealing on the head, "" once it agreed to: a node whose key is not
	// an authorised signer is not mining (eth_mining false) though its
	// loop runs. A refusal of Seal itself (a loop still trying) does not
	// count.
	refused string
}

// New returns a stopped miner.
func New(c *chain.Chain, txs TxSource, cfg Config, log *slog.Logger) *Miner {
	if log == nil {
		log = slog.Default()
	}
	clock := cfg.Clock
	if clock == nil {
		clock = consensus.SystemClock
	}
	return &Miner{chain: c, txs: txs, cfg: cfg, log: log, clock: clock,
		wake: make(chan struct{}, 1), works: make(map[common.Hash]*pendingBlock)}
}

// Coinbase returns the configured coinbase, if any.
func (m *Miner) Coinbase() (common.Address, bool) {
	if m.cfg.Coinbase == nil {
		return common.Address{}, false
	}
	return *m.cfg.Coinbase, true
}

// Mining reports whether block production is running, not paused, and
// not refused by the engine's Scheduler because the node may not seal at
// all (a Clique node whose key is not a signer).
func (m *Miner) Mining() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancel != nil && !m.paused && m.refused != consensus.ReasonNotAuthorised
}

// setRefused records why the engine refuses to seal on the head ("" when
// it agreed).
func (m *Miner) setRefused(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refused = reason
}

// SetPaused pauses or resumes block production (while syncing) without
// forgetting whether mining was requested.
func (m *Miner) SetPaused(p bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paused = p
	if p && m.sealing != nil {
		m.sealing()
	}
	if !p {
		m.notify()
	}
}

// Start starts block production. Starting a running miner is a no-op.
func (m *Miner) Start() error {
	if m.cfg.Coinbase == nil {
		return ErrCoinbaseNotSet
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cancel != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.done = cancel, make(chan struct{})
	go m.run(ctx, m.done)
	return nil
}

// Stop stops block production and waits for it to end.
func (m *Miner) Stop() {
	m.mu.Lock()
	cancel, done := m.cancel, m.done
	m.cancel, m.done = nil, nil
	m.current = nil
	m.refused = ""
	clear(m.works)
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// notify wakes the production loop if it waits. Never blocks.
func (m *Miner) notify() {
	select {
	case m.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// run is the production goroutine: it follows the head and runs the
// engine's producer, or the sealing loop for engines without one.
func (m *Miner) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	heads := make(chan chain.HeadEvent, 16)
	sub := m.chain.SubscribeHead(heads)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer sub.Unsubscribe()
	runCtx, stop := context.WithCancel(ctx)
	defer stop() // ends the head follower before wg.Wait

	// A new head wakes the loop and aborts a seal on an older parent
	// (remote work or a peer's block got there first).
	wg.Go(func() {
		for {
			select {
			case ev := <-heads:
				m.mu.Lock()
				if m.sealing != nil && m.current != nil && m.current.block.ParentHash() != ev.Hash {
					m.sealing()
				}
				m.mu.Unlock()
				m.notify()
			case <-runCtx.Done():
				return
			case <-sub.Err():
				return
			}
		}
	})

	if m.cfg.Producer != nil {
		m.produceLoop(runCtx, m.cfg.Producer)
		return
	}
	m.sealLoop(runCtx)
}

func (m *Miner) isPaused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}
