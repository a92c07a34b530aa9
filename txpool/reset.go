package txpool

import (
	"container/heap"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reset moves the pool to a new chain head; the chain calls it after every
// head change. It re-reads each tracked sender's nonce and balance from st
// and drops transactions whose nonce is below the account nonce (mined, or
// replaced in a block), that the sender can no longer afford, whose gas limit
// is above the new block gas limit, or that are older than the retention
// period. Queued transactions whose gap was closed become pending and are
// sent to SubscribePromotedTxs subscribers. Then
// reinject (the transactions of blocks that left the canonical chain in a
// reorg) is added again, as local if the sender ever sent a local
// transaction; refusals there are silent (most are in the new chain too).
func (p *Pool) Reset(head *types.Header, st State, reinject []*types.Transaction) {
	p.mu.Lock()
	view := newView(p.chainCfg, head, st, p.view.Load().gen+1)
	p.view.Store(view)
	cutoff := p.expiryCutoff()
	var promoted []*types.Transaction
	for _, acct := range p.accounts {
		// Nonces from here on were queued before this head.
		queuedFrom := acct.nonce + uint64(acct.pending)
		acct.nonce = st.Nonce(acct.addr)
		if bal := st.Balance(acct.addr); bal != nil {
			acct.balance.Set(bal)
		} else {
			acct.balance.Clear()
		}
		kept := acct.txs[:0]
		for _, e := range acct.txs {
			if op := dropReason(e, acct, view, cutoff); op != "" {
				p.metrics.remove(e, op)
				delete(p.all, e.hash)
				if e.local {
					p.locals--
				}
				continue
			}
			effectivePrice(&e.price, &e.feeCap, &e.tipCap, view.baseFee)
			kept = append(kept, e)
		}
		clear(acct.txs[len(kept):])
		acct.txs = kept
		acct.recount()
		for _, e := range kept[:acct.pending] {
			if e.nonce >= queuedFrom {
				promoted = append(promoted, e.tx)
			}
		}
		if len(kept) == 0 {
			delete(p.accounts, acct.addr)
		}
	}
	p.rebuildHeapLocked()
	p.mu.Unlock()
	p.sendPromoted(promoted)

	if len(reinject) > 0 {
		p.add(reinject, srcReorg)
	}
}

// expiryCutoff returns the addedAt below which transactions are expired
// (math.MinInt64 when retention is off).
func (p *Pool) expiryCutoff() int64 {
	if p.cfg.Retention <= 0 {
		return -1 << 63
	}
	return p.now().Add(-p.cfg.Retention).UnixNano()
}

func (p *Pool) rebuildHeapLocked() {
	p.evict.accts = p.evict.accts[:0]
	for _, acct := range p.accounts {
		acct.heapIdx = len(p.evict.accts)
		p.evict.accts = append(p.evict.accts, acct)
	}
	heap.Init(&p.evict)
}

// EvictExpired drops transactions older than the retention period and
// returns how many it dropped. The pool calls it every minute and on Reset.
func (p *Pool) EvictExpired() int {
	cutoff := p.expiryCutoff()
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, acct := range p.accounts {
		for i := len(acct.txs) - 1; i >= 0; i-- {
			if acct.txs[i].addedAt < cutoff {
				p.removeLocked(acct, i, opExpired)
				n++
			}
		}
	}
	return n
}

// Remove drops the transactions with the given hashes (for example ones the
// miner found invalid) and returns how many were in the pool. Later nonces
// of the same sender become queued.
func (p *Pool) Remove(hashes ...common.Hash) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range hashes {
		e, ok := p.all[h]
		if !ok {
			continue
		}
		acct := p.accounts[e.from]
		if i, found := acct.find(e.nonce); found && acct.txs[i] == e {
			p.removeLocked(acct, i, opInvalidated)
			n++
		}
	}
	return n
}

// dropReason says why Reset drops e from acct on the new head, "" to keep
// it.
func dropReason(e *entry, acct *account, view *headView, cutoff int64) string {
	switch {
	case e.nonce < acct.nonce:
		return opConfirmed
	case e.cost.Gt(&acct.balance) || e.tx.Gas() > view.gasLimit:
		return opInvalidated
	case e.addedAt < cutoff:
		return opExpired
	}
	return ""
}
