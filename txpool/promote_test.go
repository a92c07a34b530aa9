package txpool

import (
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// promotedNonces reads the next promotion event, or nil if there is none.
func promotedNonces(ch chan PromotedTxsEvent) []uint64 {
	select {
	case ev := <-ch:
		return nonces(ev.Txs)
	default:
		return nil
	}
}

// TestPromotionEvent: queued transactions that become executable are
// announced once, whether a transaction closes their gap or the head moves
// the sender's nonce up to them; nothing else is.
func TestPromotionEvent(t *testing.T) {
	env := defaultEnv(t)
	p := env.pool
	ch := make(chan PromotedTxsEvent, 8)
	sub := p.SubscribePromotedTxs(ch)
	defer sub.Unsubscribe()
	newTxs := make(chan NewTxsEvent, 8)
	defer p.SubscribeNewTxs(newTxs).Unsubscribe()

	// A gap closed by a new transaction: 2, 3 and 5 queued behind 1, then
	// 1 arrives. 2 and 3 are promoted (1 is a new transaction, 5 stays
	// queued behind 4).
	a := newAccount(t)
	mustAdd(t, p, legacy(t, a, 0, 1000), false)
	for _, n := range []uint64{2, 3, 5} {
		mustAdd(t, p, legacy(t, a, n, 1000), false)
	}
	if got := promotedNonces(ch); got != nil {
		t.Fatalf("promotion before the gap closed: %v", got)
	}
	mustAdd(t, p, legacy(t, a, 1, 1000), true)
	if got := promotedNonces(ch); !slices.Equal(got, []uint64{2, 3}) {
		t.Fatalf("promoted %v, want [2 3]", got)
	}
	for len(newTxs) > 1 {
		<-newTxs
	}
	if ev := <-newTxs; !slices.Equal(nonces(ev.Txs), []uint64{1}) {
		t.Fatalf("new transactions %v, want only the gap filler [1]", nonces(ev.Txs))
	}
	// A replacement of a queued transaction promotes nothing.
	mustAdd(t, p, legacy(t, a, 5, 2000), false)
	if got := promotedNonces(ch); got != nil {
		t.Fatalf("replacement promoted %v", got)
	}

	// A gap closed by a block: b's 1 and 2 are queued until a block mines
	// its 0 (which this pool never saw); a's 4 stays missing.
	b := newAccount(t)
	mustAdd(t, p, legacy(t, b, 1, 1000), false)
	mustAdd(t, p, legacy(t, b, 2, 1000), false)
	env.state.set(b.addr, 1, nil)
	env.state.set(a.addr, 2, nil) // a's 0 and 1 mined: 2 and 3 were pending already
	p.Reset(testHead(2, testGasLimit, testBaseFee), env.state, nil)
	if got := promotedNonces(ch); !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("promoted by the head %v, want b's [1 2]", got)
	}
	if got := promotedNonces(ch); got != nil {
		t.Fatalf("a second promotion event %v", got)
	}
	// The next head changes nothing: no event.
	p.Reset(testHead(3, testGasLimit, testBaseFee), env.state, nil)
	if got := promotedNonces(ch); got != nil {
		t.Fatalf("promoted again %v", got)
	}
	// One batch with the whole run: the gap is closed inside the batch.
	c := newAccount(t)
	errs := p.AddRemotes([]*types.Transaction{legacy(t, c, 2, 1000), legacy(t, c, 0, 1000), legacy(t, c, 1, 1000)})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := promotedNonces(ch); got != nil {
		t.Fatalf("a batch in nonce order promoted %v", got)
	}
}
