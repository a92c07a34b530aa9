// Package miner builds blocks from the transaction pool and seals them with
// the consensus engine: the local sealing loop behind --miner-enabled,
// miner_start/miner_stop, and the remote work of eth_getWork/eth_submitWork.
package miner

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
)

// ErrCoinbaseNotSet is returned by Start when no coinbase was configured.
var ErrCoinbaseNotSet = errors.New("coinbase not set")

// ErrNoWork is returned by GetWork when no block is being mined.
var ErrNoWork = errors.New("no mining work available yet")

// Config is the miner's configuration.
type Config struct {
	Coinbase  *common.Address
	ExtraData []byte
	// PoW enables remote mining (eth_getWork/eth_submitWork); nil for
	// engines without proof of work.
	PoW *PoW
}

// PoW is what remote mining needs from a proof-of-work engine.
type PoW struct {
	SealHash func(header *types.Header) common.Hash
	SeedHash func(number uint64) []byte
}

// Miner produces blocks. It is safe for concurrent use.
type Miner struct {
	chain *chain.Chain
	txs   TxSource
	cfg   Config
	log   *slog.Logger

	mu      sync.Mutex
	cancel  context.CancelFunc // stops the running loop; nil when stopped
	done    chan struct{}      // closed when the loop has exited
	sealing context.CancelFunc // aborts the current seal
	works   map[common.Hash]*pendingBlock
	current *pendingBlock
	paused  bool
}

// New returns a stopped miner.
func New(c *chain.Chain, txs TxSource, cfg Config, log *slog.Logger) *Miner {
	if log == nil {
		log = slog.Default()
	}
	return &Miner{chain: c, txs: txs, cfg: cfg, log: log, works: make(map[common.Hash]*pendingBlock)}
}

// Coinbase returns the configured coinbase, if any.
func (m *Miner) Coinbase() (common.Address, bool) {
	if m.cfg.Coinbase == nil {
		return common.Address{}, false
	}
	return *m.cfg.Coinbase, true
}

// Mining reports whether the sealing loop is running and not paused.
func (m *Miner) Mining() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancel != nil && !m.paused
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
}

// Start starts the sealing loop. Starting a running miner is a no-op.
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
	go m.loop(ctx, m.done)
	return nil
}

// Stop stops the sealing loop and waits for it to exit.
func (m *Miner) Stop() {
	m.mu.Lock()
	cancel, done := m.cancel, m.done
	m.cancel, m.done = nil, nil
	m.current = nil
	clear(m.works)
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (m *Miner) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	heads := make(chan chain.HeadEvent, 16)
	sub := m.chain.SubscribeHead(heads)
	defer sub.Unsubscribe()

	// A new head from elsewhere (remote work, peers) aborts the current seal.
	go func() {
		for {
			select {
			case ev := <-heads:
				m.mu.Lock()
				if m.sealing != nil && (m.current == nil || m.current.block.ParentHash() != ev.Hash) {
					m.sealing()
				}
				m.mu.Unlock()
			case <-ctx.Done():
				return
			case <-sub.Err():
				return
			}
		}
	}()

	for ctx.Err() == nil {
		if m.isPaused() {
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		// Timestamps strictly increase and are never in the future: wait
		// for the second after the parent's.
		parent := m.chain.CurrentHeader()
		if wait := time.Until(time.Unix(int64(parent.Time)+1, 0)); wait > 0 {
			sleep(ctx, wait)
			continue
		}
		pb, err := build(ctx, m.chain, m.txs, *m.cfg.Coinbase, m.cfg.ExtraData, time.Now())
		if err != nil {
			if ctx.Err() == nil {
				m.log.Error("Block building failed", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		sealCtx, cancel := context.WithCancel(ctx)
		m.setWork(pb, cancel)
		sealed, err := m.chain.Engine().Seal(sealCtx, pb.block.Header())
		cancel()
		if err != nil {
			continue // new head, pause or stop
		}
		if err := m.insert(pb, sealed); err != nil && ctx.Err() == nil {
			m.log.Warn("Mined block rejected", "number", sealed.Number, "err", err)
		}
	}
}

func (m *Miner) isPaused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}

func (m *Miner) setWork(pb *pendingBlock, cancel context.CancelFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sealing = cancel
	m.current = pb
	if pow := m.cfg.PoW; pow != nil {
		// Forget work built on older parents; keep a few for late submissions.
		for h, w := range m.works {
			if w.block.ParentHash() != pb.block.ParentHash() {
				delete(m.works, h)
			}
		}
		m.works[pow.SealHash(pb.block.Header())] = pb
	}
}

// insert stores a sealed block; each pending block is inserted at most once.
func (m *Miner) insert(pb *pendingBlock, sealed *types.Header) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if pb.state == nil {
		return errors.New("work already submitted")
	}
	// Check the seal first: a bad remote solution must leave the work
	// usable, while InsertBlock consumes the block's state.
	parent := m.chain.GetHeader(sealed.ParentHash, sealed.Number.Uint64()-1)
	if parent == nil {
		return errors.New("parent of the work is gone")
	}
	if err := m.chain.Engine().VerifyHeader(m.chain, sealed, parent, true); err != nil {
		return err
	}
	block := pb.block.WithSeal(sealed)
	res, err := m.chain.InsertBlock(context.Background(), block, chain.InsertOptions{
		Executed: &chain.Executed{State: pb.state, Receipts: pb.receipts},
	})
	pb.state = nil
	if err != nil {
		return err
	}
	m.log.Info("Produced block", "number", sealed.Number, "hash", res.Hash.Hex(),
		"txs", len(block.Transactions()), "gas", sealed.GasUsed)
	return nil
}

// GetWork returns the current work package: the pow-hash of the header being
// mined, the seed hash of its epoch and the boundary 2^256/difficulty.
func (m *Miner) GetWork() (powHash common.Hash, seed common.Hash, boundary common.Hash, err error) {
	pow := m.cfg.PoW
	if pow == nil {
		return powHash, seed, boundary, ErrNoWork
	}
	m.mu.Lock()
	pb := m.current
	m.mu.Unlock()
	if pb == nil || pb.state == nil {
		return powHash, seed, boundary, ErrNoWork
	}
	h := pb.block.Header()
	powHash = pow.SealHash(h)
	seed = common.BytesToHash(pow.SeedHash(h.Number.Uint64()))
	boundary = common.BytesToHash(target(h.Difficulty).Bytes())
	return powHash, seed, boundary, nil
}

// SubmitWork accepts a solution for a work package handed out by GetWork and
// reports whether it sealed a block.
func (m *Miner) SubmitWork(nonce types.BlockNonce, powHash, mixDigest common.Hash) bool {
	m.mu.Lock()
	pb := m.works[powHash]
	m.mu.Unlock()
	if pb == nil {
		return false
	}
	header := pb.block.Header()
	header.Nonce = nonce
	header.MixDigest = mixDigest
	if err := m.insert(pb, header); err != nil {
		m.log.Warn("Submitted work rejected", "powHash", powHash.Hex(), "err", err)
		return false
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
