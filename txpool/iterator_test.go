package txpool

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

type picked struct {
	from  common.Address
	nonce uint64
}

// drain runs the miner's loop; fail says which senders' transactions fail
// (then the sender is dropped).
func drain(it *Iterator, fail map[common.Address]bool) []picked {
	var out []picked
	for tx, from := it.Peek(); tx != nil; tx, from = it.Peek() {
		out = append(out, picked{from, tx.Nonce()})
		if fail[from] {
			it.Pop()
		} else {
			it.Shift()
		}
	}
	return out
}

func TestIteratorOrder(t *testing.T) {
	a, b, c, d, l := newAccount(t), newAccount(t), newAccount(t), newAccount(t), newAccount(t)
	setup := func(t *testing.T, cfg Config) *Pool {
		env := newTestEnv(t, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee))
		p := env.pool
		txs := []*types.Transaction{
			legacy(t, a, 0, 3000),
			legacy(t, a, 1, 5000), // dearer than b's, but behind a's nonce 0
			legacy(t, a, 2, 1000),
			legacy(t, b, 0, 4000),
			dynamic(t, c, 0, 950, 10000), // effective price 1050 at base fee 100, 2950 at 2000
			dynamic(t, d, 0, 1100, 1500), // 1200 at base fee 100; cannot pay a base fee of 2000
			legacy(t, d, 1, 90000),
			legacy(t, a, 5, 90000), // queued: never offered
		}
		for i, err := range p.AddRemotes(txs) {
			if err != nil {
				t.Fatalf("tx %d: %v", i, err)
			}
		}
		mustAdd(t, p, legacy(t, l, 0, 1000), true)
		return p
	}

	t.Run("price then nonce, local first", func(t *testing.T) {
		p := setup(t, DefaultConfig())
		got := drain(p.Pending(big.NewInt(testBaseFee)), nil)
		want := []picked{{l.addr, 0}, {b.addr, 0}, {a.addr, 0}, {a.addr, 1}, {d.addr, 0}, {d.addr, 1}, {c.addr, 0}, {a.addr, 2}}
		// Once a's nonce 1 is out, d's nonce 0 (1200) opens the way for
		// d's nonce 1 (90000), before c (1050) and a's nonce 2 (1000).
		checkOrder(t, got, want)
	})
	t.Run("no local priority", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.NoLocalPriority = true
		p := setup(t, cfg)
		got := drain(p.Pending(big.NewInt(testBaseFee)), nil)
		want := []picked{{b.addr, 0}, {a.addr, 0}, {a.addr, 1}, {d.addr, 0}, {d.addr, 1}, {c.addr, 0}, {a.addr, 2}, {l.addr, 0}}
		checkOrder(t, got, want)
	})
	t.Run("higher base fee reorders and drops senders that cannot pay", func(t *testing.T) {
		p := setup(t, DefaultConfig())
		// At 2000, c pays min(10000, 2950) = 2950; a's nonce 2 (1000) and
		// d's nonce 0 (maxFee 1500) cannot pay and block their senders.
		got := drain(p.Pending(big.NewInt(2000)), nil)
		want := []picked{{b.addr, 0}, {a.addr, 0}, {a.addr, 1}, {c.addr, 0}}
		checkOrder(t, got, want)
	})
	t.Run("a failed tx drops the rest of its sender", func(t *testing.T) {
		p := setup(t, DefaultConfig())
		got := drain(p.Pending(big.NewInt(testBaseFee)), map[common.Address]bool{a.addr: true})
		want := []picked{{l.addr, 0}, {b.addr, 0}, {a.addr, 0}, {d.addr, 0}, {d.addr, 1}, {c.addr, 0}}
		checkOrder(t, got, want)
	})
	t.Run("pre-London (nil base fee) orders by gas price", func(t *testing.T) {
		env := newTestEnv(t, DefaultConfig(), istanbulConfig(), testHead(1, testGasLimit, -1))
		txs := []*types.Transaction{legacy(t, a, 0, 1000), legacy(t, b, 0, 2000), legacy(t, a, 1, 3000)}
		env.pool.AddRemotes(txs)
		got := drain(env.pool.Pending(nil), nil)
		checkOrder(t, got, []picked{{b.addr, 0}, {a.addr, 0}, {a.addr, 1}})
	})
	t.Run("snapshot is independent of later pool changes", func(t *testing.T) {
		p := setup(t, DefaultConfig())
		it := p.Pending(big.NewInt(testBaseFee))
		p.Reset(testHead(2, testGasLimit, testBaseFee), newTestState(), nil)
		p.Remove(legacy(t, b, 0, 4000).Hash())
		if n := countIter(it); n != 8 {
			t.Fatalf("iterator yielded %d txs, want 8", n)
		}
		it.Pop() // on an exhausted iterator: no panic
		it.Shift()
	})
}

func checkOrder(t *testing.T, got, want []picked) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d txs %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("position %d: got %v nonce %d, want %v nonce %d", i, got[i].from, got[i].nonce, want[i].from, want[i].nonce)
		}
	}
}
