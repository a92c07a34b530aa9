package miner

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
)

// produceLoop runs the engine's producer while production is on and not
// paused. The producer owns timing and sealing; the loop only restarts it:
// after a pause, at once; after a CannotSealError, on a new head or its
// Retry; after any other failure, after a back-off.
func (m *Miner) produceLoop(ctx context.Context, p consensus.Producer) {
	pause := newPauseLog(m.log)
	var backoff time.Duration
	for ctx.Err() == nil {
		if m.isPaused() {
			m.waitWake(ctx)
			continue
		}
		runCtx, cancel := context.WithCancel(ctx)
		if !m.setRun(cancel) {
			cancel() // paused meanwhile
			continue
		}
		h := &host{m: m, ctx: runCtx}
		err := p.Produce(runCtx, h)
		aborted := runCtx.Err() != nil
		cancel()
		h.wg.Wait() // head subscriptions the producer left open
		m.setRun(nil)
		switch {
		case ctx.Err() != nil || aborted:
			continue // stop or pause
		case m.cannotSeal(ctx, err, pause):
			continue
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		m.log.Warn("Block producer stopped", "err", err, "retryIn", backoff)
		m.sleep(ctx, backoff)
	}
}

// setRun records (or with nil, clears) the function that stops the running
// producer, so SetPaused can stop it. It reports false, doing nothing,
// while production is paused.
func (m *Miner) setRun(cancel context.CancelFunc) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cancel != nil && m.paused {
		return false
	}
	m.sealing = cancel
	return true
}

// host is the consensus.Host of one run of a producer.
type host struct {
	m   *Miner
	ctx context.Context // the run's; ends the head subscriptions
	wg  sync.WaitGroup
}

var _ consensus.Host = (*host)(nil)

// Clock is the miner's clock.
func (h *host) Clock() consensus.Clock { return h.m.clock }

// Chain is the node's chain.
func (h *host) Chain() consensus.ChainHeadReader { return h.m.chain }

// SubscribeHeads forwards the chain's head events to ch. The chain's feed
// must never wait for a slow producer (it would stall every insert), so
// the forwarder keeps only the latest head not yet delivered: a receiver
// that falls behind misses intermediate heads, never the newest one.
func (h *host) SubscribeHeads(ch chan<- consensus.Head) func() {
	in := make(chan chain.HeadEvent, 16)
	sub := h.m.chain.SubscribeHead(in)
	done := make(chan struct{})
	h.wg.Go(func() {
		defer sub.Unsubscribe()
		var (
			pending *consensus.Head
			out     chan<- consensus.Head // ch while a head is pending
		)
		for {
			select {
			case ev := <-in:
				pending, out = &consensus.Head{Header: ev.Header, Hash: ev.Hash}, ch
			case out <- headOf(pending):
				pending, out = nil, nil
			case <-done:
				return
			case <-h.ctx.Done():
				return
			case <-sub.Err():
				return
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

func headOf(p *consensus.Head) consensus.Head {
	if p == nil {
		return consensus.Head{}
	}
	return *p
}

// Build assembles a block on parent with the shared builder, unless the
// engine (or a wrapper around it, such as beacon at the merge) refuses to
// seal on parent.
func (h *host) Build(ctx context.Context, parent *types.Header, parentHash common.Hash, ts uint64) (consensus.Candidate, error) {
	m := h.m
	if s := m.cfg.Scheduler; s != nil {
		var cs *consensus.CannotSealError
		if _, err := s.NextSeal(m.chain, parent, m.clock.Now()); errors.As(err, &cs) {
			return nil, err
		}
	}
	block, exec, err := Build(ctx, m.chain, parent, parentHash, ts, m.txs, *m.cfg.Coinbase, m.cfg.ExtraData, nil, WithGasTarget(m.cfg.GasTarget))
	if err != nil {
		return nil, err
	}
	return &candidate{m: m, pb: &pendingBlock{block: block, ex: exec, created: m.clock.Now()}}, nil
}

// Execute checks and executes a block produced elsewhere on its parent's
// state without inserting it (chain.Execute: the header without its seal,
// which the commit adds). Its transactions are the pool's copies where the
// pool has them, senders recovered already.
func (h *host) Execute(ctx context.Context, block *types.Block) (consensus.Candidate, error) {
	m := h.m
	block = withPooledTxs(m.txs, block)
	ex, err := m.chain.Execute(ctx, block, chain.ExecuteOptions{SkipSeal: true})
	if err != nil {
		return nil, err
	}
	return &candidate{m: m, pb: &pendingBlock{block: block, ex: ex, created: m.clock.Now()}}, nil
}

// Import executes and inserts a block produced elsewhere.
func (h *host) Import(ctx context.Context, block *types.Block) error {
	_, err := h.m.chain.InsertBlock(ctx, block, chain.InsertOptions{})
	return err
}

// candidate is a consensus.Candidate: a built block and its state.
type candidate struct {
	m  *Miner
	mu sync.Mutex // pb.ex, which the insert consumes
	pb *pendingBlock
}

// Block is the unsealed block.
func (c *candidate) Block() *types.Block { return c.pb.block }

// Insert inserts the block sealed with its executed state. InsertBlock
// verifies the sealed header; of a proposal chain.Execute checked, only the
// seal (consensus.SealVerifier), so a BFT commit's header is verified once.
// A BFT commit is sealed by the agreement, not by proof of work: no work
// package to keep usable, so no check ahead of InsertBlock's
// (miner/remote.go's insert).
func (c *candidate) Insert(ctx context.Context, sealed *types.Header) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pb := c.pb
	if pb.ex == nil {
		return errors.New("candidate already inserted")
	}
	block := pb.block.WithSeal(sealed)
	// Inserted even if ctx ended meanwhile: it is committed, and the chain
	// keeps its store consistent either way.
	res, err := c.m.chain.InsertBlock(context.WithoutCancel(ctx), block, chain.InsertOptions{
		Executed: pb.ex,
	})
	pb.ex = nil
	if err != nil {
		return err
	}
	c.m.log.Info("Produced block", "number", sealed.Number, "hash", res.Hash.Hex(),
		"txs", len(block.Transactions()), "gas", sealed.GasUsed)
	return nil
}

// TxLookup is a TxSource that can also hand out the transaction it holds
// with a given hash. A pooled transaction has its sender recovered already:
// executing a proposal with the pool's copies of its transactions saves a
// signature recovery per transaction, the largest cost of a BFT validator
// checking a full block.
type TxLookup interface {
	Get(hash common.Hash) *types.Transaction
}

// withPooledTxs returns block with its transactions replaced by the
// source's identical ones (same hash, so the same block) where it has them.
func withPooledTxs(txs TxSource, block *types.Block) *types.Block {
	l, ok := txs.(TxLookup)
	if !ok || len(block.Transactions()) == 0 {
		return block
	}
	out := make([]*types.Transaction, len(block.Transactions()))
	for i, tx := range block.Transactions() {
		out[i] = tx
		if p := l.Get(tx.Hash()); p != nil {
			out[i] = p
		}
	}
	return types.NewBlockWithHeader(block.Header()).WithBody(types.Body{
		Transactions: out, Uncles: block.Uncles(), Withdrawals: block.Withdrawals()})
}
