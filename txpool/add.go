package txpool

import (
	"bytes"
	"cmp"
	"container/heap"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// origin says where transactions come from.
type origin uint8

const (
	srcRemote origin = iota // p2p
	srcLocal                // JSON-RPC
	srcReorg                // a block left the canonical chain: local if the sender ever sent a local tx
)

// AddLocal adds a transaction received over JSON-RPC. It returns nil or an
// *Error.
func (p *Pool) AddLocal(tx *types.Transaction) error {
	return p.add([]*types.Transaction{tx}, srcLocal)[0]
}

// AddRemotes adds transactions received from peers and returns one result
// per transaction (nil or an *Error), in the order given.
func (p *Pool) AddRemotes(txs []*types.Transaction) []error {
	return p.add(txs, srcRemote)
}

// candidate is a transaction that passed validation, with the sender's
// account as read by the worker (used only if the pool does not track the
// sender and the head has not moved since).
type candidate struct {
	e       *entry
	gen     uint64
	nonce   uint64
	balance *uint256.Int
}

// minBatchPerWorker keeps tiny batches on the caller's goroutine: a
// goroutine start costs about a microsecond, a recovery about fifty.
const minBatchPerWorker = 2

func (p *Pool) add(txs []*types.Transaction, src origin) []error {
	errs := make([]error, len(txs))
	if len(txs) == 0 {
		return errs
	}
	view := p.view.Load()
	cands := make([]candidate, len(txs))

	// Workers take transactions one at a time, so a batch that mixes known
	// (cheap) and new (one ecrecover each) transactions still spreads evenly.
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(txs) {
				return
			}
			cands[i], errs[i] = p.prepare(view, txs[i], src)
		}
	}
	if workers := min(runtime.GOMAXPROCS(0), len(txs)/minBatchPerWorker); workers <= 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for range workers - 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		work()
		wg.Wait()
	}

	// Insert in sender and nonce order (as Besu does), so a batch carrying a
	// sender's nonces out of order still lands without spurious refusals.
	order := make([]int, 0, len(txs))
	for i := range cands {
		if cands[i].e != nil {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return errs
	}
	if len(order) > 1 {
		slices.SortFunc(order, func(i, j int) int {
			if c := bytes.Compare(cands[i].e.from[:], cands[j].e.from[:]); c != 0 {
				return c
			}
			if c := cmp.Compare(cands[i].e.nonce, cands[j].e.nonce); c != 0 {
				return c
			}
			return cmp.Compare(i, j)
		})
	}
	added := make([]*types.Transaction, 0, len(order))
	var promoted []*types.Transaction
	now := p.now().UnixNano()
	p.mu.Lock()
	for _, i := range order {
		c := &cands[i]
		switch src {
		case srcLocal:
			c.e.local = true
		case srcReorg:
			_, c.e.local = p.localSenders[c.e.from]
		}
		more, err := p.insertLocked(c, now)
		if err != nil {
			errs[i] = err
			continue
		}
		promoted = append(promoted, more...)
		if src == srcLocal {
			p.localSenders[c.e.from] = struct{}{}
		}
		p.metrics.add(c.e)
		added = append(added, c.e.tx)
	}
	p.mu.Unlock()
	if len(added) > 0 {
		p.feed.Send(NewTxsEvent{Txs: added})
	}
	p.sendPromoted(promoted)
	return errs
}

// prepare validates tx without the pool lock: known check under a read
// lock, stateless checks, sender recovery, and a read of the sender's account.
func (p *Pool) prepare(view *headView, tx *types.Transaction, src origin) (candidate, error) {
	h := tx.Hash()
	// Peers announce the same transactions many times: drop what we have
	// before paying for a recovery. insertLocked checks again.
	p.mu.RLock()
	_, known := p.all[h]
	p.mu.RUnlock()
	if known {
		return candidate{}, knownErr(h)
	}
	e, err := p.validate(view, tx, h, src == srcLocal)
	if err != nil {
		return candidate{}, err
	}
	return candidate{
		e:       e,
		gen:     view.gen,
		nonce:   view.state.Nonce(e.from),
		balance: view.state.Balance(e.from),
	}, nil
}

func knownErr(h common.Hash) *Error {
	return reject(TransactionAlreadyKnown, "transaction %s is already in the pool", h.Hex())
}

// insertLocked runs the checks that need the pool and the sender's account,
// then inserts c.e, replacing or evicting as needed. It returns the
// sender's transactions that c.e made executable: those queued right
// behind the gap c.e closed (c.e itself is not among them). p.mu must be
// held.
func (p *Pool) insertLocked(c *candidate, now int64) ([]*types.Transaction, *Error) {
	e := c.e
	if _, ok := p.all[e.hash]; ok {
		return nil, knownErr(e.hash)
	}
	view := p.view.Load()
	acct := p.accounts[e.from]
	var (
		nonce   uint64
		balance *uint256.Int
	)
	switch {
	case acct != nil:
		nonce, balance = acct.nonce, &acct.balance
	case c.gen == view.gen:
		nonce, balance = c.nonce, c.balance
	default: // the head moved while the worker ran
		nonce, balance = view.state.Nonce(e.from), view.state.Balance(e.from)
	}
	if balance == nil {
		balance = new(uint256.Int)
	}
	// Besu's order: balance, then nonce.
	if e.cost.Gt(balance) {
		return nil, reject(UpfrontCostExceedsBalance, "transaction up-front cost %s exceeds transaction sender account balance %s for sender %s",
			e.cost.Hex(), balance.Hex(), e.from.Hex())
	}
	if e.nonce < nonce {
		return nil, reject(NonceTooLow, "transaction nonce %d below sender account nonce %d for sender %s", e.nonce, nonce, e.from.Hex())
	}
	if gap := e.nonce - nonce; gap >= p.cfg.MaxFutureNonceGap {
		return nil, reject(NonceTooFarInFutureForSender, "transaction nonce %d is %d ahead of sender account nonce %d for sender %s (limit %d)",
			e.nonce, gap, nonce, e.from.Hex(), p.cfg.MaxFutureNonceGap)
	}
	effectivePrice(&e.price, &e.feeCap, &e.tipCap, view.baseFee)
	p.seq++
	e.seq = p.seq
	e.addedAt = now

	if acct != nil {
		if i, found := acct.find(e.nonce); found {
			old := acct.txs[i]
			if !shouldReplace(old, e, view.baseFee, p.cfg.PriceBump) {
				return nil, reject(TransactionReplacementUnderpriced,
					"transaction %s with nonce %d is in the pool; a replacement must raise the price by %d%%", old.hash.Hex(), e.nonce, p.cfg.PriceBump)
			}
			delete(p.all, old.hash)
			if old.local {
				p.locals--
			}
			p.metrics.remove(old, opReplaced)
			acct.txs[i] = e
			p.all[e.hash] = e
			if e.local {
				p.locals++
			}
			heap.Fix(&p.evict, acct.heapIdx)
			return nil, nil
		}
	}

	if len(p.all) >= p.cfg.MaxSize {
		var queued bool
		if acct != nil {
			queued = e.nonce != acct.nonce+uint64(acct.pending)
		} else {
			queued = e.nonce != nonce
		}
		if !p.makeRoomLocked(e, queued) {
			return nil, reject(TxPoolFull, "%d transactions pending, the most this node keeps (--tx-pool-max-size); "+
				"resend after the next blocks include some, or with a higher gas price to displace a cheaper one", len(p.all))
		}
		acct = p.accounts[e.from] // eviction may have emptied and dropped it
	}
	if acct == nil {
		acct = &account{addr: e.from, nonce: nonce, heapIdx: -1}
		acct.balance.Set(balance)
		p.accounts[e.from] = acct
	}
	before := acct.pending
	i, _ := acct.find(e.nonce)
	acct.insert(i, e)
	p.all[e.hash] = e
	if e.local {
		p.locals++
	}
	p.fixHeapLocked(acct)
	// A new nonce is never inside the pending run (that would be a
	// replacement), so if it extended the run it sits at txs[before] and
	// everything after it up to the new end was queued until now.
	var promoted []*types.Transaction
	if acct.pending > before+1 {
		promoted = txsOf(acct.txs[before+1 : acct.pending])
	}
	return promoted, nil
}

// makeRoomLocked evicts one transaction to make room for e, if e outranks
// the first eviction candidate: the highest-nonce transaction of some sender
// (so no gap is made), remote before local, queued before pending, cheapest
// first, newest first.
func (p *Pool) makeRoomLocked(e *entry, queued bool) bool {
	if p.evict.Len() == 0 {
		return false
	}
	victimAcct := p.evict.accts[0]
	victim := victimAcct.last()
	if !p.evict.before(victim, victimAcct.lastQueued(), e, queued) {
		return false
	}
	if victim.from == e.from && victim.nonce < e.nonce {
		// Evicting the sender's own predecessor would strand e behind a gap.
		return false
	}
	p.removeLocked(victimAcct, len(victimAcct.txs)-1, opEvicted)
	return true
}

// removeLocked drops acct.txs[i], for the reason op, and keeps the indexes
// consistent.
func (p *Pool) removeLocked(acct *account, i int, op string) {
	e := acct.removeAt(i)
	p.metrics.remove(e, op)
	delete(p.all, e.hash)
	if e.local {
		p.locals--
	}
	p.fixHeapLocked(acct)
}

// fixHeapLocked restores acct's place in the eviction heap, or drops the
// account if it has no transactions left.
func (p *Pool) fixHeapLocked(acct *account) {
	switch {
	case len(acct.txs) == 0:
		if acct.heapIdx >= 0 {
			heap.Remove(&p.evict, acct.heapIdx)
		}
		delete(p.accounts, acct.addr)
	case acct.heapIdx < 0:
		heap.Push(&p.evict, acct)
	default:
		heap.Fix(&p.evict, acct.heapIdx)
	}
}
