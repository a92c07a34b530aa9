package miner

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
)

// setWork makes pb the block being sealed (and, with proof of work, the
// work eth_getWork hands out); cancel aborts its seal. It reports false,
// doing nothing, while production is paused.
func (m *Miner) setWork(pb *pendingBlock, cancel context.CancelFunc) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paused {
		return false
	}
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
	return true
}

// dropWork withdraws pb, which the engine refused to seal, so that
// eth_getWork does not hand it out.
func (m *Miner) dropWork(pb *pendingBlock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == pb {
		m.current, m.sealing = nil, nil
	}
	for h, w := range m.works {
		if w == pb {
			delete(m.works, h)
		}
	}
}

// insert stores a sealed block; each pending block is inserted at most once.
func (m *Miner) insert(ctx context.Context, pb *pendingBlock, sealed *types.Header) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if pb.ex == nil {
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
	// The block is inserted even if ctx ended meanwhile: it is sealed, and
	// the chain keeps its store consistent either way.
	res, err := m.chain.InsertBlock(context.WithoutCancel(ctx), block, chain.InsertOptions{
		Executed: pb.ex,
	})
	pb.ex = nil
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
	if pb == nil || pb.ex == nil {
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
	if err := m.insert(context.Background(), pb, header); err != nil {
		m.log.Warn("Submitted work rejected", "powHash", powHash.Hex(), "err", err)
		return false
	}
	return true
}
