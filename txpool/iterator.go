package txpool

import (
	"container/heap"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Pending returns the pending transactions for building a block with base
// fee baseFee (nil before London), as an Iterator that yields the best
// transaction across senders while keeping each sender's nonce order.
//
// "Best" is Besu's order: local transactions first (unless
// --tx-pool-no-local-priority), then higher effective tip at baseFee, then
// earlier arrival. A sender whose next transaction's maxFeePerGas is below
// baseFee is left out from that nonce on. The iterator works on a snapshot
// and does not lock the pool.
func (p *Pool) Pending(baseFee *big.Int) *Iterator {
	it := &Iterator{localFirst: !p.cfg.NoLocalPriority}
	if baseFee != nil {
		it.baseFee = new(uint256.Int)
		if it.baseFee.SetFromBig(baseFee) {
			it.baseFee.SetAllOne()
		}
	}
	p.mu.RLock()
	it.heads = make([]*iterSender, 0, len(p.accounts))
	for _, acct := range p.accounts {
		if acct.pending == 0 {
			continue
		}
		s := &iterSender{txs: append([]*entry(nil), acct.txs[:acct.pending]...)}
		if it.load(s) {
			it.heads = append(it.heads, s)
		}
	}
	p.mu.RUnlock()
	heap.Init((*iterHeap)(it))
	return it
}

// Iterator yields pending transactions for block building; see Pool.Pending.
// It is not safe for concurrent use.
type Iterator struct {
	heads      []*iterSender
	baseFee    *uint256.Int
	localFirst bool
}

type iterSender struct {
	txs   []*entry    // the sender's remaining pending transactions, by nonce
	price uint256.Int // effective price of txs[0] at the iterator's base fee
}

// load prices the sender's next transaction, reporting false if it cannot
// pay the base fee (or the sender has none left).
func (it *Iterator) load(s *iterSender) bool {
	if len(s.txs) == 0 {
		return false
	}
	e := s.txs[0]
	if it.baseFee != nil && e.feeCap.Lt(it.baseFee) {
		return false
	}
	effectivePrice(&s.price, &e.feeCap, &e.tipCap, it.baseFee)
	return true
}

// Peek returns the best remaining transaction and its sender, or nil when
// the iterator is exhausted.
func (it *Iterator) Peek() (*types.Transaction, common.Address) {
	if len(it.heads) == 0 {
		return nil, common.Address{}
	}
	e := it.heads[0].txs[0]
	return e.tx, e.from
}

// Shift moves past the transaction Peek returned (it went into the block):
// the sender's next nonce becomes a candidate.
func (it *Iterator) Shift() {
	if len(it.heads) == 0 {
		return
	}
	s := it.heads[0]
	s.txs = s.txs[1:]
	if it.load(s) {
		heap.Fix((*iterHeap)(it), 0)
	} else {
		heap.Pop((*iterHeap)(it))
	}
}

// Pop drops the transaction Peek returned and all later ones of the same
// sender (it failed, so they cannot execute in this block).
func (it *Iterator) Pop() {
	if len(it.heads) == 0 {
		return
	}
	heap.Pop((*iterHeap)(it))
}

// Empty reports whether the iterator is exhausted.
func (it *Iterator) Empty() bool { return len(it.heads) == 0 }

// iterHeap is the Iterator seen as a max-heap of sender heads.
type iterHeap Iterator

func (h *iterHeap) Len() int { return len(h.heads) }

func (h *iterHeap) Less(i, j int) bool {
	a, b := h.heads[i], h.heads[j]
	x, y := a.txs[0], b.txs[0]
	if h.localFirst && x.local != y.local {
		return x.local
	}
	if c := a.price.Cmp(&b.price); c != 0 {
		return c > 0
	}
	return x.seq < y.seq
}

func (h *iterHeap) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }

func (h *iterHeap) Push(x any) { h.heads = append(h.heads, x.(*iterSender)) }

func (h *iterHeap) Pop() any {
	n := len(h.heads) - 1
	s := h.heads[n]
	h.heads[n] = nil
	h.heads = h.heads[:n]
	return s
}
