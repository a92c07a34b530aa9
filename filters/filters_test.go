package filters

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/txpool"
)

func changes(t *testing.T, s *System, id string) Changes {
	t.Helper()
	s.sync()
	ch, err := s.Changes(context.Background(), id)
	if err != nil {
		t.Fatalf("changes of %s: %v", id, err)
	}
	return ch
}

func TestBlockFilter(t *testing.T) {
	e := newEnv(t, Config{})
	e.c.Append()
	e.s.sync()
	id, err := e.s.NewBlockFilter()
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(t, e.s, id); len(got.Hashes) != 0 || got.Hashes == nil {
		t.Fatalf("fresh filter: %v", got.Hashes)
	}
	b2, b3 := e.c.Append(), e.c.Append()
	got := changes(t, e.s, id)
	if want := []common.Hash{e.c.Hash(b2.Header()), e.c.Hash(b3.Header())}; !slices.Equal(got.Hashes, want) {
		t.Fatalf("changes %v, want %v", got.Hashes, want)
	}
	if got := changes(t, e.s, id); len(got.Hashes) != 0 {
		t.Fatalf("second poll: %v", got.Hashes)
	}
	// Ids are looked up as quantities: case and leading zeros do not matter.
	b4 := e.c.Append()
	alt := "0X000" + id[2:]
	if got := changes(t, e.s, alt); !slices.Equal(got.Hashes, []common.Hash{e.c.Hash(b4.Header())}) {
		t.Fatalf("changes via %s: %v", alt, got.Hashes)
	}
	if !e.s.Uninstall(id) || e.s.Uninstall(id) {
		t.Fatal("uninstall twice")
	}
	if _, err := e.s.Changes(context.Background(), id); !errors.Is(err, ErrFilterNotFound) {
		t.Fatalf("uninstalled: %v", err)
	}
}

func TestFilterIDs(t *testing.T) {
	e := newEnv(t, Config{})
	seen := map[string]bool{}
	for range 50 {
		id, err := e.s.NewBlockFilter()
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := canonicalID(id); !ok || c != id || seen[id] || len(id) > 34 {
			t.Fatalf("id %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "0x", "61", "0xzz", "0x" + string(make([]byte, 40)), "0x1ffffffffffffffffffffffffffffffff"} {
		if _, ok := canonicalID(bad); ok {
			t.Errorf("canonicalID(%q) accepted", bad)
		}
		if e.s.Uninstall(bad) {
			t.Errorf("Uninstall(%q)", bad)
		}
		if _, err := e.s.Changes(context.Background(), bad); !errors.Is(err, ErrFilterNotFound) {
			t.Errorf("Changes(%q): %v", bad, err)
		}
	}
}

func TestLogFilterReorg(t *testing.T) {
	e := newEnv(t, Config{})
	e.c.Append([]*types.Log{lg(addrA, topic1)})
	e.s.sync()
	id, err := e.s.NewLogFilter(Head, Head, crit(t, []common.Address{addrA}))
	if err != nil {
		t.Fatal(err)
	}
	toBlock3, _ := e.s.NewLogFilter(Head, Bound{Number: 3}, nil)
	a2 := e.c.Append([]*types.Log{lg(addrA, topic1), lg(addrB)})
	e.c.Append([]*types.Log{lg(addrA, topic2)})
	if got := summary(changes(t, e.s, id).Logs); !slices.Equal(got, []string{"2:a1/0", "3:a1/0"}) {
		t.Fatalf("changes %v", got)
	}
	// A heavier branch on block 1 replaces blocks 2 and 3.
	b2, rs := e.c.Build(e.c.GetHeaderByNumber(1), 5, 'b', []*types.Log{lg(addrA, topic3)})
	e.c.Insert(b2, rs, false)
	got := changes(t, e.s, id)
	if s := summary(got.Logs); !slices.Equal(s, []string{"3:a1/0R", "2:a1/0R", "2:a1/0"}) {
		t.Fatalf("after reorg %v", s)
	}
	if got.Logs[1].BlockHash != e.c.Hash(a2.Header()) || got.Logs[2].BlockHash != e.c.Hash(b2.Header()) {
		t.Fatal("block hashes of removed/added logs")
	}
	// The removed flag is set on copies: the stored receipts are unchanged.
	for _, r := range e.c.GetReceipts(e.c.Hash(a2.Header()), 2) {
		for _, l := range r.Logs {
			if l.Removed {
				t.Fatal("stored log marked removed")
			}
		}
	}
	// A filter with a numeric toBlock ignores blocks above it.
	e.c.Append([]*types.Log{lg(addrC)})
	e.c.Append([]*types.Log{lg(addrC)})
	if s := summary(changes(t, e.s, toBlock3).Logs); !slices.Equal(s, []string{"2:a1/0", "2:b2/1", "3:a1/0", "3:a1/0R", "2:a1/0R", "2:b2/1R", "2:a1/0", "3:c3/0"}) {
		t.Fatalf("toBlock 3 filter: %v", s)
	}
	// eth_getFilterLogs runs the whole range now.
	all, err := e.s.FilterLogs(context.Background(), id)
	if err != nil || !slices.Equal(summary(all), []string{}) {
		t.Fatalf("filter logs latest..latest: %v %v", summary(all), err)
	}
	blockFilter, _ := e.s.NewBlockFilter()
	if _, err := e.s.FilterLogs(context.Background(), blockFilter); !errors.Is(err, ErrFilterNotFound) {
		t.Fatalf("filter logs of a block filter: %v", err)
	}
}

func TestPendingTxFilter(t *testing.T) {
	e := newEnv(t, Config{PendingHistory: 4})
	id, _ := e.s.NewPendingTxFilter()
	txs := make([]*types.Transaction, 6)
	for i := range txs {
		txs[i] = types.NewTx(&types.LegacyTx{Nonce: uint64(i), GasPrice: big.NewInt(1)})
	}
	e.pool.feed.Send(txpool.NewTxsEvent{Txs: txs[:2]})
	if got := changes(t, e.s, id).Hashes; !slices.Equal(got, []common.Hash{txs[0].Hash(), txs[1].Hash()}) {
		t.Fatalf("pending %v", got)
	}
	// The history keeps 4: a filter polled too late loses the oldest.
	e.pool.feed.Send(txpool.NewTxsEvent{Txs: txs})
	got := changes(t, e.s, id).Hashes
	if want := []common.Hash{txs[2].Hash(), txs[3].Hash(), txs[4].Hash(), txs[5].Hash()}; !slices.Equal(got, want) {
		t.Fatalf("after overflow %v", got)
	}
}

func TestFilterExpiryAndLimit(t *testing.T) {
	e := newEnv(t, Config{MaxFilters: 3})
	a, _ := e.s.NewBlockFilter()
	e.clock.Advance(6 * time.Minute)
	b, _ := e.s.NewBlockFilter()
	c, _ := e.s.NewPendingTxFilter()
	if _, err := e.s.NewBlockFilter(); !errors.Is(err, ErrTooManyFilters) {
		t.Fatalf("fourth filter: %v", err)
	}
	e.clock.Advance(5 * time.Minute) // a: 11 min, b and c: 5 min
	if _, err := e.s.Changes(context.Background(), a); !errors.Is(err, ErrFilterNotFound) {
		t.Fatalf("expired filter: %v", err)
	}
	changes(t, e.s, b) // resets b's timer
	e.clock.Advance(6 * time.Minute)
	e.s.expire()
	if e.s.FilterCount() != 1 {
		t.Fatalf("after sweep %d filters", e.s.FilterCount())
	}
	if _, err := e.s.Changes(context.Background(), c); !errors.Is(err, ErrFilterNotFound) {
		t.Fatalf("c: %v", err)
	}
	changes(t, e.s, b)
	// A full table is swept before an install is refused.
	e.s.NewBlockFilter()
	e.s.NewBlockFilter()
	e.clock.Advance(11 * time.Minute)
	if _, err := e.s.NewBlockFilter(); err != nil {
		t.Fatalf("install after expiry: %v", err)
	}
}

func TestBlockHistoryOverflow(t *testing.T) {
	e := newEnv(t, Config{BlockHistory: 3})
	id, _ := e.s.NewBlockFilter()
	var hashes []common.Hash
	for range 5 {
		hashes = append(hashes, e.c.Hash(e.c.Append().Header()))
	}
	if got := changes(t, e.s, id).Hashes; !slices.Equal(got, hashes[2:]) {
		t.Fatalf("got %v, want the last 3", got)
	}
}

func TestSubscriptions(t *testing.T) {
	e := newEnv(t, Config{})
	var heads, logs, pending []*Event
	hs := e.s.Subscribe(KindBlocks, nil, func(ev *Event) bool { heads = append(heads, ev); return true })
	ls := e.s.Subscribe(KindLogs, crit(t, []common.Address{addrA}), func(ev *Event) bool { logs = append(logs, ev); return true })
	ps := e.s.Subscribe(KindPendingTxs, nil, func(ev *Event) bool { pending = append(pending, ev); return true })
	if hs.ID() != "0x1" || ls.ID() != "0x2" || ps.ID() != "0x3" {
		t.Fatalf("ids %s %s %s", hs.ID(), ls.ID(), ps.ID())
	}
	// Nothing is delivered before activation.
	e.c.Append([]*types.Log{lg(addrA)})
	e.s.sync()
	if len(heads)+len(logs) != 0 {
		t.Fatal("delivered before activation")
	}
	hs.Activate()
	ls.Activate()
	ps.Activate()
	b2 := e.c.Append([]*types.Log{lg(addrB), lg(addrA, topic1)})
	tx := types.NewTx(&types.LegacyTx{Nonce: 9})
	e.pool.feed.Send(txpool.NewTxsEvent{Txs: []*types.Transaction{tx}})
	e.s.sync()
	if len(heads) != 1 || heads[0].Hash != e.c.Hash(b2.Header()) || heads[0].Block != b2 {
		t.Fatalf("heads %v", heads)
	}
	if len(logs) != 1 || logs[0].Log.Index != 1 || logs[0].Log.Removed {
		t.Fatalf("logs %v", logs)
	}
	if len(pending) != 1 || pending[0].Hash != tx.Hash() {
		t.Fatalf("pending %v", pending)
	}
	// Reorg: removed logs first, then the new branch's.
	logs = nil
	b, rs := e.c.Build(e.c.GetHeaderByNumber(1), 9, 'x', []*types.Log{lg(addrA, topic2)})
	e.c.Insert(b, rs, false)
	e.s.sync()
	if len(logs) != 2 || !logs[0].Log.Removed || logs[1].Log.Removed || logs[1].Log.BlockHash != e.c.Hash(b.Header()) {
		t.Fatalf("reorg logs %v", summary([]*types.Log{logs[0].Log, logs[1].Log}))
	}
	// A subscriber that refuses a delivery is dropped.
	drop := e.s.Subscribe(KindBlocks, nil, func(*Event) bool { return false })
	drop.Activate()
	e.c.Append()
	e.s.sync()
	if e.s.Unsubscribe(drop.ID()) {
		t.Fatal("refusing subscriber not dropped")
	}
	if !e.s.Unsubscribe(hs.ID()) || e.s.SubscriptionCount() != 2 {
		t.Fatal("unsubscribe")
	}
}

func TestEncodedOnce(t *testing.T) {
	ev := &Event{}
	calls := 0
	enc := func(*Event) []byte { calls++; return []byte("x") }
	ev.Encoded(0, enc)
	ev.Encoded(0, enc)
	ev.Encoded(1, enc)
	if calls != 2 {
		t.Fatalf("%d encodings", calls)
	}
}

func FuzzCanonicalID(f *testing.F) {
	for _, s := range []string{"0x1", "0X00ab", "0x", "", "61", "0x8000000000000000", "0x00FFFFFFFFFFFFFFFF", "0x" + strings.Repeat("f", 33)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c, ok := canonicalID(id)
		if !ok {
			return
		}
		if len(c) > 34 || !strings.HasPrefix(c, "0x") || (len(c) > 3 && c[2] == '0') || strings.ToLower(c) != c {
			t.Fatalf("canonicalID(%q) = %q", id, c)
		}
		if again, ok := canonicalID(c); !ok || again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", id, c, again)
		}
	})
}
