package txpool

import (
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

func TestReplacement(t *testing.T) {
	// Head base fee is testBaseFee (100).
	cases := []struct {
		name     string
		old, new func(t *testing.T, a account256) *types.Transaction
		ok       bool
	}{
		{
			name: "legacy +9%",
			old:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1090) },
		},
		{
			name: "legacy +10%",
			old:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1100) },
			ok:   true,
		},
		{
			name: "legacy threshold rounds down (Besu): 1015 -> 1116",
			old:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1015) },
			new:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1116) },
			ok:   true,
		},
		{
			name: "legacy same price",
			old:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			new: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo, Value: big.NewInt(2)})
			},
		},
		{
			// Capped by maxFeePerGas: the effective price is maxFeePerGas.
			name: "1559 maxFee and tip +9%",
			old:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 2000, 2000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 2180, 2180) },
		},
		{
			name: "1559 maxFee and tip +10%",
			old:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 2000, 2000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 2200, 2200) },
			ok:   true,
		},
		{
			// Besu's rule compares effective prices at the base fee: here
			// 100+1000=1100 -> 100+1100=1200 is +9.1%, so +10% on both caps
			// is not enough (go-ethereum would accept it).
			name: "1559 both caps +10% but effective price +9.1%",
			old:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 10000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1100, 11000) },
		},
		{
			name: "1559 effective price +10% with maxFee unchanged",
			old:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 10000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1110, 10000) },
			ok:   true,
		},
		{
			name: "legacy replaced by 1559 at +10% effective price",
			old:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 1100) },
			ok:   true,
		},
		{
			name: "1559 replaced by legacy at +5%",
			old:  func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 2000) },
			new:  func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1155) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := defaultEnv(t)
			a := newAccount(t)
			old, repl := tc.old(t, a), tc.new(t, a)
			mustAdd(t, env.pool, old, true)
			err := env.pool.AddRemotes([]*types.Transaction{repl})[0]
			if !tc.ok {
				wantReason(t, err, TransactionReplacementUnderpriced)
				if !env.pool.Has(old.Hash()) || env.pool.Has(repl.Hash()) {
					t.Fatal("refused replacement changed the pool")
				}
				return
			}
			if err != nil {
				t.Fatalf("replacement refused: %v", err)
			}
			if env.pool.Has(old.Hash()) || !env.pool.Has(repl.Hash()) {
				t.Fatal("replacement did not replace")
			}
			// The local tx was replaced by a remote one.
			if s := env.pool.Stats(); s.LocalCount != 0 || s.RemoteCount != 1 || s.Pending != 1 {
				t.Fatalf("stats after replacement: %+v", s)
			}
		})
	}
}

func TestReplacementPriceBumpConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PriceBump = 25
	env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
	a := newAccount(t)
	mustAdd(t, env.pool, legacy(t, a, 0, 1000), false)
	wantReason(t, env.pool.AddRemotes([]*types.Transaction{legacy(t, a, 0, 1249)})[0], TransactionReplacementUnderpriced)
	mustAdd(t, env.pool, legacy(t, a, 0, 1250), false)
}

func TestNonceGapsQueuedThenPromoted(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	a := newAccount(t)
	env.state.set(a.addr, 5, nil)

	mustAdd(t, p, legacy(t, a, 5, 1000), false)
	mustAdd(t, p, legacy(t, a, 7, 1000), false)
	mustAdd(t, p, legacy(t, a, 8, 1000), false)
	pending, queued := p.ContentFrom(a.addr)
	if !slices.Equal(nonces(pending), []uint64{5}) || !slices.Equal(nonces(queued), []uint64{7, 8}) {
		t.Fatalf("pending %v queued %v, want [5] [7 8]", nonces(pending), nonces(queued))
	}
	if n := p.PendingNonce(a.addr); n != 6 {
		t.Fatalf("PendingNonce = %d, want 6", n)
	}
	if s := p.Stats(); s.Pending != 1 || s.Queued != 2 {
		t.Fatalf("stats %+v", s)
	}
	if it := p.Pending(big.NewInt(testBaseFee)); countIter(it) != 1 {
		t.Fatal("miner sees queued transactions")
	}

	// Filling the gap promotes 7 and 8.
	mustAdd(t, p, legacy(t, a, 6, 1000), false)
	pending, queued = p.ContentFrom(a.addr)
	if !slices.Equal(nonces(pending), []uint64{5, 6, 7, 8}) || len(queued) != 0 {
		t.Fatalf("pending %v queued %v, want [5 6 7 8] []", nonces(pending), nonces(queued))
	}
	if n := p.PendingNonce(a.addr); n != 9 {
		t.Fatalf("PendingNonce = %d, want 9", n)
	}

	// Removing a pending tx in the middle queues the ones after it.
	p.Remove(pending[1].Hash())
	pending, queued = p.ContentFrom(a.addr)
	if !slices.Equal(nonces(pending), []uint64{5}) || !slices.Equal(nonces(queued), []uint64{7, 8}) {
		t.Fatalf("after Remove: pending %v queued %v", nonces(pending), nonces(queued))
	}

	// An unknown sender's pending nonce is its account nonce.
	b := newAccount(t)
	env.state.set(b.addr, 42, nil)
	if n := p.PendingNonce(b.addr); n != 42 {
		t.Fatalf("PendingNonce(unknown) = %d, want 42", n)
	}
}

func TestOutOfOrderBatch(t *testing.T) {
	env := defaultEnv(t)
	a := newAccount(t)
	txs := []*types.Transaction{legacy(t, a, 2, 1000), legacy(t, a, 0, 1000), legacy(t, a, 1, 1000)}
	for i, err := range env.pool.AddRemotes(txs) {
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
	}
	if s := env.pool.Stats(); s.Pending != 3 || s.Queued != 0 {
		t.Fatalf("stats %+v", s)
	}
	// Duplicates within one batch: the second is already known.
	b := newAccount(t)
	tx := legacy(t, b, 0, 1000)
	errs := env.pool.AddRemotes([]*types.Transaction{tx, tx})
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	wantReason(t, errs[1], TransactionAlreadyKnown)
}

func TestReset(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	var (
		miner   = newAccount(t) // txs 0..2; 0 and 1 get mined
		broke   = newAccount(t) // loses its balance
		old     = newAccount(t) // its tx expires
		reorged = newAccount(t) // its tx was in a block that left the chain
		gapped  = newAccount(t) // queued 2, 3; 0 and 1 mined elsewhere
		loc     = newAccount(t) // local sender whose tx comes back after a reorg
		greedy  = newAccount(t) // gas above the new block gas limit
	)
	mustAdd(t, p, legacy(t, old, 0, 1000), false)
	env.clock.Advance(12 * time.Hour)
	for n := range uint64(3) {
		mustAdd(t, p, legacy(t, miner, n, 1000), false)
	}
	mustAdd(t, p, legacy(t, broke, 0, 1000), false)
	mustAdd(t, p, legacy(t, gapped, 2, 1000), false)
	mustAdd(t, p, legacy(t, gapped, 3, 1000), false)
	locTx := legacy(t, loc, 0, 1000)
	mustAdd(t, p, locTx, true)
	greedyTx := sign(t, greedy.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 16_000_000, To: &testTo})
	mustAdd(t, p, greedyTx, false)
	reorgedTx := legacy(t, reorged, 0, 1000)
	minedTx1 := legacy(t, miner, 1, 1000) // also reinjected, but mined again in the new chain

	if s := p.Stats(); s.Pending != 7 || s.Queued != 2 || s.LocalCount != 1 {
		t.Fatalf("stats before reset %+v", s)
	}

	// Block 2 mines miner's 0 and 1 and loc's 0; gapped's 0 and 1 are mined
	// by another node; broke spends its balance; the gas limit drops.
	env.clock.Advance(2 * time.Hour) // old is now 14 h old
	env.state.set(miner.addr, 2, nil)
	env.state.set(loc.addr, 1, nil)
	env.state.set(gapped.addr, 2, nil)
	env.state.set(broke.addr, 0, uint256.NewInt(1000))
	p.Reset(testHead(2, 15_000_000, 200), env.state, nil)

	check := func(addr common.Address, wantPending, wantQueued []uint64) {
		t.Helper()
		pending, queued := p.ContentFrom(addr)
		if !slices.Equal(nonces(pending), wantPending) || !slices.Equal(nonces(queued), wantQueued) {
			t.Fatalf("%s: pending %v queued %v, want %v %v", addr, nonces(pending), nonces(queued), wantPending, wantQueued)
		}
	}
	check(miner.addr, []uint64{2}, []uint64{})
	check(broke.addr, []uint64{}, []uint64{})
	check(old.addr, []uint64{}, []uint64{})
	check(gapped.addr, []uint64{2, 3}, []uint64{})
	check(loc.addr, []uint64{}, []uint64{})
	check(greedy.addr, []uint64{}, []uint64{})
	if s := p.Stats(); s.Pending != 3 || s.Queued != 0 || s.LocalCount != 0 || s.RemoteCount != 3 {
		t.Fatalf("stats after reset %+v", s)
	}

	// Reorg: block 2 leaves the chain; its replacement at height 2 does not
	// include loc's tx, and an orphaned block carried reorged's tx.
	env.state.set(loc.addr, 0, nil)
	p.Reset(testHead(2, 15_000_000, 200), env.state, []*types.Transaction{reorgedTx, locTx, minedTx1})
	check(reorged.addr, []uint64{0}, []uint64{})
	check(loc.addr, []uint64{0}, []uint64{})
	if p.Has(minedTx1.Hash()) {
		t.Fatal("reinjected tx below the account nonce came back")
	}
	var locInfo *TxInfo
	for _, info := range p.Transactions() {
		if info.Tx.Hash() == locTx.Hash() {
			locInfo = &info
		}
	}
	if locInfo == nil || !locInfo.Local {
		t.Fatalf("reinjected local tx: %+v, want it back as local", locInfo)
	}
	if s := p.Stats(); s.LocalCount != 1 || s.RemoteCount != 4 {
		t.Fatalf("stats after reorg %+v", s)
	}
	checkInvariants(t, p)
}

func TestResetRepricesForEviction(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSize = 2
	env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, 100))
	a, b, c := newAccount(t), newAccount(t), newAccount(t)
	// At base fee 100: a pays 1100, b pays 1500 (legacy).
	mustAdd(t, env.pool, dynamic(t, a, 0, 1000, 5000), false)
	mustAdd(t, env.pool, legacy(t, b, 0, 1500), false)
	// At base fee 3000: a pays 4000, b still 1500, so b is the cheapest.
	env.pool.Reset(testHead(2, testGasLimit, 3000), env.state, nil)
	mustAdd(t, env.pool, legacy(t, c, 0, 2000), false)
	if env.pool.Has(legacy(t, b, 0, 1500).Hash()) || env.pool.Len() != 2 {
		t.Fatal("eviction did not use prices at the new base fee")
	}
}

func TestRetention(t *testing.T) {
	env := defaultEnv(t)
	a := newAccount(t)
	mustAdd(t, env.pool, legacy(t, a, 0, 1000), false)
	env.clock.Advance(time.Hour)
	mustAdd(t, env.pool, legacy(t, a, 1, 1000), false)
	env.clock.Advance(12*time.Hour + time.Second)
	if n := env.pool.EvictExpired(); n != 1 {
		t.Fatalf("EvictExpired = %d, want 1", n)
	}
	if _, queued := env.pool.ContentFrom(a.addr); len(queued) != 1 {
		t.Fatal("the tx after an expired one should be queued")
	}
}

func TestEvictionOrder(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSize = 4
	env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
	p := env.pool
	acct := make([]account256, 12)
	for i := range acct {
		acct[i] = newAccount(t)
	}
	var (
		r1 = legacy(t, acct[0], 0, 2000)
		r2 = legacy(t, acct[1], 0, 1500)
		l1 = legacy(t, acct[2], 0, 1000)
		r3 = legacy(t, acct[3], 1, 5000) // queued: nonce 0 missing
	)
	mustAdd(t, p, r1, false)
	mustAdd(t, p, r2, false)
	mustAdd(t, p, l1, true)
	mustAdd(t, p, r3, false)

	steps := []struct {
		name    string
		tx      *types.Transaction
		local   bool
		want    Reason             // "" = accepted
		evicted *types.Transaction // the tx that must have gone
	}{
		{name: "queued remote goes first, whatever it pays", tx: legacy(t, acct[4], 0, 1800), evicted: r3},
		{name: "then the cheapest pending remote", tx: legacy(t, acct[5], 0, 1600), evicted: r2},
		{name: "a remote not dearer than the cheapest remote is refused", tx: legacy(t, acct[6], 0, 1600), want: TxPoolFull},
		{name: "a cheap local evicts a remote", tx: legacy(t, acct[7], 0, 1000), local: true, evicted: legacy(t, acct[5], 0, 1600)},
		{name: "a dear remote evicts the cheapest remote, not a cheaper local", tx: legacy(t, acct[8], 0, 1_000_000), evicted: legacy(t, acct[4], 0, 1800)},
		{name: "a local evicts a remote however much it pays", tx: legacy(t, acct[9], 0, 3000), local: true, evicted: r1},
		{name: "a local evicts the last remote", tx: legacy(t, acct[10], 0, 3000), local: true, evicted: legacy(t, acct[8], 0, 1_000_000)},
		// Pool: l1 (1000), acct[7] (1000), acct[9] (3000), acct[10] (3000), all local.
		{name: "among locals the cheapest, newest goes; an equal newcomer is refused", tx: legacy(t, acct[11], 0, 1000), local: true, want: TxPoolFull},
		{name: "a dearer local evicts the newest cheapest local", tx: legacy(t, acct[11], 0, 1001), local: true, evicted: legacy(t, acct[7], 0, 1000)},
		{name: "a remote cannot evict a local", tx: legacy(t, newAccount(t), 0, 1_000_000), want: TxPoolFull},
	}
	for _, s := range steps {
		var err error
		if s.local {
			err = p.AddLocal(s.tx)
		} else {
			err = p.AddRemotes([]*types.Transaction{s.tx})[0]
		}
		if s.want != "" {
			wantReason(t, err, s.want)
		} else if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.evicted != nil && p.Has(s.evicted.Hash()) {
			t.Fatalf("%s: %x still in the pool", s.name, s.evicted.Hash())
		}
		if p.Len() != 4 {
			t.Fatalf("%s: pool has %d txs", s.name, p.Len())
		}
	}
	if s := p.Stats(); s.LocalCount != 4 || s.RemoteCount != 0 || !p.Has(l1.Hash()) {
		t.Fatalf("stats %+v", s)
	}
	checkInvariants(t, p)
}

func TestEvictionKeepsNoncesContiguous(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSize = 3
	env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
	p := env.pool
	a, b, c := newAccount(t), newAccount(t), newAccount(t)
	// a's nonce 0 is the cheapest tx, but only a's highest nonce can go.
	mustAdd(t, p, legacy(t, a, 0, 1000), false)
	mustAdd(t, p, legacy(t, a, 1, 3000), false)
	mustAdd(t, p, legacy(t, b, 0, 2000), false)
	mustAdd(t, p, legacy(t, c, 0, 2500), false) // evicts b (2000 < a's last 3000)
	pending, queued := p.ContentFrom(a.addr)
	if len(pending) != 2 || len(queued) != 0 || p.Has(legacy(t, b, 0, 2000).Hash()) {
		t.Fatalf("a: pending %v queued %v; b present %v", nonces(pending), nonces(queued), p.Has(legacy(t, b, 0, 2000).Hash()))
	}
	// A sender's own next nonce cannot evict its predecessor.
	cfg.MaxSize = 1
	env = newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
	mustAdd(t, env.pool, legacy(t, a, 0, 1000), false)
	wantReason(t, env.pool.AddRemotes([]*types.Transaction{legacy(t, a, 1, 9000)})[0], TxPoolFull)
	// But it can evict a later nonce of its own when it fills a gap.
	env.pool.Remove(legacy(t, a, 0, 1000).Hash())
	mustAdd(t, env.pool, legacy(t, a, 2, 1000), false) // queued
	mustAdd(t, env.pool, legacy(t, a, 0, 1000), false) // pending outranks queued
	if pending, _ := env.pool.ContentFrom(a.addr); !slices.Equal(nonces(pending), []uint64{0}) || env.pool.Len() != 1 {
		t.Fatalf("pending %v len %d", nonces(pending), env.pool.Len())
	}
}

func TestLocalRemoteAccounting(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	a, b := newAccount(t), newAccount(t)
	mustAdd(t, p, legacy(t, a, 0, 1000), true)
	env.clock.Advance(time.Second)
	mustAdd(t, p, legacy(t, a, 1, 1000), true)
	env.clock.Advance(time.Second)
	mustAdd(t, p, legacy(t, b, 0, 1000), false)
	want := Stats{MaxSize: 4096, LocalCount: 2, RemoteCount: 1, Pending: 3}
	if s := p.Stats(); s != want {
		t.Fatalf("Stats = %+v, want %+v", s, want)
	}
	infos := p.Transactions()
	if len(infos) != 3 {
		t.Fatalf("Transactions: %d", len(infos))
	}
	t0 := env.clock.Now().Add(-2 * time.Second)
	for i, info := range infos {
		wantLocal := i < 2
		if info.Local != wantLocal || !info.AddedAt.Equal(t0.Add(time.Duration(i)*time.Second)) || !info.Pending {
			t.Errorf("tx %d: %+v", i, info)
		}
	}
	if got := p.Get(infos[2].Tx.Hash()); got != infos[2].Tx {
		t.Error("Get does not return the pooled tx")
	}
	if p.Get(common.Hash{1}) != nil || p.Has(common.Hash{1}) {
		t.Error("unknown hash found")
	}
	if n := p.Remove(infos[0].Tx.Hash(), common.Hash{1}); n != 1 {
		t.Fatalf("Remove = %d", n)
	}
	if s := p.Stats(); s.LocalCount != 1 || s.RemoteCount != 1 || s.Queued != 1 {
		t.Fatalf("Stats after Remove = %+v", s)
	}
	pending, queued := p.Content()
	if len(pending) != 1 || len(queued) != 1 || len(pending[b.addr]) != 1 || len(queued[a.addr]) != 1 {
		t.Fatalf("Content: pending %v queued %v", pending, queued)
	}
}

func TestSubscribeNewTxs(t *testing.T) {
	env := defaultEnv(t)
	ch := make(chan NewTxsEvent, 4)
	sub := env.pool.SubscribeNewTxs(ch)
	defer sub.Unsubscribe()
	a := newAccount(t)
	txs := []*types.Transaction{legacy(t, a, 0, 1000), legacy(t, a, 1, 1000), legacy(t, a, 1, 999)}
	env.pool.AddRemotes(txs)
	select {
	case ev := <-ch:
		if len(ev.Txs) != 2 || ev.Txs[0] != txs[0] || ev.Txs[1] != txs[1] {
			t.Fatalf("event %v", ev.Txs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	env.pool.AddRemotes(txs[:1]) // already known: no event
	select {
	case ev := <-ch:
		t.Fatalf("unexpected event %v", ev.Txs)
	default:
	}
	env.pool.Close()
	if _, ok := <-sub.Err(); ok {
		t.Fatal("subscription still open after Close")
	}
	late := env.pool.SubscribeNewTxs(ch)
	if _, ok := <-late.Err(); ok {
		t.Fatal("subscription after Close is open")
	}
	late.Unsubscribe()
	env.pool.AddRemotes([]*types.Transaction{legacy(t, a, 2, 1000)}) // no subscriber, must not block
}

// TestConcurrency adds from many goroutines while others reset and read.
// Run with -race.
func TestConcurrency(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	const (
		writers   = 8
		perWriter = 4 // senders per writer
		perSender = 8
	)
	// Sign outside the timed part, in parallel.
	batches := make([][]*types.Transaction, writers)
	var wg sync.WaitGroup
	for w := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perWriter {
				a := newAccount(t)
				for n := range uint64(perSender) {
					batches[w] = append(batches[w], legacy(t, a, n, 1000+int64(w)))
				}
			}
		}()
	}
	wg.Wait()

	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				it := p.Pending(big.NewInt(testBaseFee))
				for tx, _ := it.Peek(); tx != nil; tx, _ = it.Peek() {
					it.Shift()
				}
				p.Content()
				p.Stats()
				p.Transactions()
				p.Reset(testHead(1, testGasLimit, testBaseFee), env.state, nil)
			}
		}()
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			txs := batches[w]
			if w%2 == 0 {
				for _, err := range p.AddRemotes(txs) {
					if err != nil {
						t.Error(err)
					}
				}
				return
			}
			for _, tx := range txs {
				if err := p.AddLocal(tx); err != nil {
					t.Error(err)
				}
				p.PendingNonce(common.Address{})
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()
	want := writers * perWriter * perSender
	if s := p.Stats(); s.Pending != want || s.LocalCount+s.RemoteCount != want || s.LocalCount != want/2 {
		t.Fatalf("stats %+v, want %d pending, half local", s, want)
	}
	checkInvariants(t, p)
}

func countIter(it *Iterator) int {
	n := 0
	for !it.Empty() {
		n++
		it.Shift()
	}
	return n
}

// TestStaleAccountRead covers a head change between a worker's state read
// and the insertion: the pool must use the new head's account.
func TestStaleAccountRead(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	a := newAccount(t)
	tx := legacy(t, a, 0, 1000)
	c, err := p.prepare(p.view.Load(), tx, srcRemote)
	if err != nil {
		t.Fatal(err)
	}
	env.state.set(a.addr, 1, nil) // nonce 0 mined meanwhile
	p.Reset(testHead(2, testGasLimit, testBaseFee), env.state, nil)
	p.mu.Lock()
	_, ierr := p.insertLocked(&c, 0)
	p.mu.Unlock()
	wantReason(t, ierr, NonceTooLow)
}

// TestMixedBatch sends a large batch with known, invalid and new
// transactions through the parallel path.
func TestMixedBatch(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	var batch []*types.Transaction
	for range 16 {
		a := newAccount(t)
		known := legacy(t, a, 0, 1000)
		mustAdd(t, p, known, false)
		batch = append(batch, known, legacy(t, a, 1, 1000), legacy(t, a, 2, 999))
	}
	errs := p.AddRemotes(batch)
	for i, err := range errs {
		want := []Reason{TransactionAlreadyKnown, "", GasPriceTooLow}[i%3]
		if ReasonOf(err) != want || (want == "" && err != nil) {
			t.Fatalf("tx %d: %v, want %q", i, err, want)
		}
	}
	if s := p.Stats(); s.Pending != 32 {
		t.Fatalf("stats %+v", s)
	}
	checkInvariants(t, p)
}
