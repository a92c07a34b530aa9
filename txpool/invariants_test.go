package txpool

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// checkInvariants verifies the pool's bookkeeping (see account's doc).
func checkInvariants(t *testing.T, p *Pool) {
	t.Helper()
	p.mu.RLock()
	defer p.mu.RUnlock()
	if len(p.all) > p.cfg.MaxSize {
		t.Fatalf("%d txs above max size %d", len(p.all), p.cfg.MaxSize)
	}
	seen, locals := 0, 0
	for addr, acct := range p.accounts {
		if acct.addr != addr || len(acct.txs) == 0 {
			t.Fatalf("account %s: addr %s, %d txs", addr, acct.addr, len(acct.txs))
		}
		if acct.heapIdx < 0 || acct.heapIdx >= len(p.evict.accts) || p.evict.accts[acct.heapIdx] != acct {
			t.Fatalf("account %s: bad heap index %d", addr, acct.heapIdx)
		}
		pending := 0
		for i, e := range acct.txs {
			if e.from != addr || e.nonce < acct.nonce || (i > 0 && acct.txs[i-1].nonce >= e.nonce) {
				t.Fatalf("account %s: tx %d (nonce %d) out of order or below account nonce %d", addr, i, e.nonce, acct.nonce)
			}
			if p.all[e.hash] != e {
				t.Fatalf("account %s: tx %d not indexed by hash", addr, i)
			}
			if pending == i && e.nonce == acct.nonce+uint64(i) {
				pending++
			}
			if e.local {
				locals++
			}
			seen++
		}
		if pending != acct.pending {
			t.Fatalf("account %s: pending %d, want %d", addr, acct.pending, pending)
		}
	}
	if seen != len(p.all) || locals != p.locals || len(p.evict.accts) != len(p.accounts) {
		t.Fatalf("counts: %d in accounts, %d indexed, locals %d vs %d, heap %d vs %d accounts",
			seen, len(p.all), locals, p.locals, len(p.evict.accts), len(p.accounts))
	}
	for i := 1; i < len(p.evict.accts); i++ {
		if p.evict.Less(i, (i-1)/2) {
			t.Fatalf("eviction heap out of order at %d", i)
		}
	}
}

// TestRandomOperations drives the pool with random adds, resets, removals
// and expiry on a small max size and checks the invariants after each step.
func TestRandomOperations(t *testing.T) {
	const (
		senders = 5
		nonces  = 12
		prices  = 3
	)
	accts := make([]account256, senders)
	txs := make([][][]*types.Transaction, senders) // sender, nonce, price level
	for s := range accts {
		accts[s] = newAccount(t)
		txs[s] = make([][]*types.Transaction, nonces)
		for n := range txs[s] {
			for l := range prices {
				price := int64(1000 + 200*l + 10*s)
				if l == 1 {
					txs[s][n] = append(txs[s][n], dynamic(t, accts[s], uint64(n), price/2, price+100))
				} else {
					txs[s][n] = append(txs[s][n], legacy(t, accts[s], uint64(n), price))
				}
			}
		}
	}
	reasons := make(map[Reason]int)
	record := func(err error) {
		if err == nil {
			reasons["accepted"]++
		} else {
			reasons[ReasonOf(err)]++
		}
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		cfg := DefaultConfig()
		cfg.MaxSize = 8
		cfg.MaxFutureNonceGap = 6
		env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
		p := env.pool
		stateNonce := make([]uint64, senders)
		for step := range 300 {
			switch op := rng.IntN(10); {
			case op < 6:
				s := rng.IntN(senders)
				tx := txs[s][rng.IntN(nonces)][rng.IntN(prices)]
				if rng.IntN(3) == 0 {
					record(p.AddLocal(tx))
				} else {
					record(p.AddRemotes([]*types.Transaction{tx})[0])
				}
			case op < 8:
				s := rng.IntN(senders)
				if stateNonce[s] < nonces {
					stateNonce[s] += uint64(rng.IntN(3))
				}
				bal := uint256.NewInt(1 << 40)
				if rng.IntN(10) == 0 {
					bal = uint256.NewInt(21000 * 1100) // some txs become unaffordable
				}
				env.state.set(accts[s].addr, stateNonce[s], bal)
				var reinject []*types.Transaction
				if rng.IntN(3) == 0 {
					reinject = append(reinject, txs[s][rng.IntN(nonces)][0])
				}
				p.Reset(testHead(uint64(step+2), testGasLimit, int64(50+rng.IntN(200))), env.state, reinject)
			case op < 9:
				s := rng.IntN(senders)
				p.Remove(txs[s][rng.IntN(nonces)][rng.IntN(prices)].Hash())
			default:
				env.clock.Advance(time.Hour)
				p.EvictExpired()
			}
			checkInvariants(t, p)
		}
	}
	t.Log(reasons)
	for _, r := range []Reason{"accepted", TxPoolFull, TransactionReplacementUnderpriced, NonceTooLow, NonceTooFarInFutureForSender, TransactionAlreadyKnown} {
		if reasons[r] == 0 {
			t.Errorf("random operations never hit %s", r)
		}
	}
}
