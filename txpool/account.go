package txpool

import (
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// account holds one sender's transactions.
//
// Invariants (kept under the pool lock):
//   - txs is sorted by nonce, nonces are unique and all >= nonce;
//   - txs[:pending] are exactly nonce, nonce+1, ..., nonce+pending-1 (the
//     transactions the next blocks can execute in order); txs[pending:] are
//     queued behind a gap;
//   - heapIdx is the account's index in the pool's eviction heap (-1 while
//     it has no transactions).
type account struct {
	addr    common.Address
	nonce   uint64      // account nonce at the pool's head
	balance uint256.Int // balance at the pool's head
	txs     []*entry
	pending int
	heapIdx int
}

// find returns the index of nonce in txs, or where it would be inserted.
func (a *account) find(nonce uint64) (int, bool) {
	n := len(a.txs)
	if n == 0 || a.txs[n-1].nonce < nonce { // the common case: appending
		return n, false
	}
	i := sort.Search(n, func(i int) bool { return a.txs[i].nonce >= nonce })
	return i, a.txs[i].nonce == nonce
}

// insert puts e at index i (from find) and extends the pending run if e
// closes the gap after it.
func (a *account) insert(i int, e *entry) {
	a.txs = append(a.txs, nil)
	copy(a.txs[i+1:], a.txs[i:])
	a.txs[i] = e
	if i == a.pending && e.nonce == a.nonce+uint64(a.pending) {
		a.extendPending()
	}
}

// removeAt removes txs[i]; transactions after a removed pending one become
// queued.
func (a *account) removeAt(i int) *entry {
	e := a.txs[i]
	copy(a.txs[i:], a.txs[i+1:])
	a.txs[len(a.txs)-1] = nil
	a.txs = a.txs[:len(a.txs)-1]
	if i < a.pending {
		a.pending = i
	}
	return e
}

func (a *account) extendPending() {
	for a.pending < len(a.txs) && a.txs[a.pending].nonce == a.nonce+uint64(a.pending) {
		a.pending++
	}
}

// recount recomputes pending from scratch (after the account nonce moved).
func (a *account) recount() {
	a.pending = 0
	a.extendPending()
}

// last is the account's eviction candidate: its highest nonce, so evicting
// it never opens a gap.
func (a *account) last() *entry { return a.txs[len(a.txs)-1] }

// lastQueued reports whether the highest-nonce transaction is queued.
func (a *account) lastQueued() bool { return a.pending < len(a.txs) }

// evictHeap orders accounts by their eviction candidate, the one to evict
// first at the top.
type evictHeap struct {
	accts      []*account
	localFirst bool // local transactions outrank remote ones (not --tx-pool-no-local-priority)
}

func (h *evictHeap) Len() int { return len(h.accts) }

func (h *evictHeap) Less(i, j int) bool {
	a, b := h.accts[i], h.accts[j]
	return h.before(a.last(), a.lastQueued(), b.last(), b.lastQueued())
}

// before reports whether x (queued or not) is evicted before y: remote
// before local, queued before pending, cheaper before dearer, newer before
// older (Besu keeps the oldest).
func (h *evictHeap) before(x *entry, xQueued bool, y *entry, yQueued bool) bool {
	if h.localFirst && x.local != y.local {
		return !x.local
	}
	if xQueued != yQueued {
		return xQueued
	}
	if c := x.price.Cmp(&y.price); c != 0 {
		return c < 0
	}
	return x.seq > y.seq
}

func (h *evictHeap) Swap(i, j int) {
	h.accts[i], h.accts[j] = h.accts[j], h.accts[i]
	h.accts[i].heapIdx = i
	h.accts[j].heapIdx = j
}

func (h *evictHeap) Push(x any) {
	a := x.(*account)
	a.heapIdx = len(h.accts)
	h.accts = append(h.accts, a)
}

func (h *evictHeap) Pop() any {
	n := len(h.accts) - 1
	a := h.accts[n]
	h.accts[n] = nil
	h.accts = h.accts[:n]
	a.heapIdx = -1
	return a
}
