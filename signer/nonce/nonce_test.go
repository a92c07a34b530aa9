package nonce

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

var addr = Key{Account: common.Address{1}}

func TestConcurrentCallsGetDistinctNonces(t *testing.T) {
	m := New()
	var sessions []*Session
	for range 5 {
		sessions = append(sessions, m.Begin(addr))
	}
	// Every call read the same count from the node.
	for i, s := range sessions {
		if n := s.Next(10); n != uint64(10+i) {
			t.Fatalf("call %d got %d", i, n)
		}
	}
	// Accepted nonces stay taken while the burst lasts, even though the
	// node's count lags behind.
	sessions[2].Settle(Accepted)
	sessions[2].End()
	late := m.Begin(addr)
	if n := late.Next(10); n != 15 {
		t.Fatalf("late call got %d, want 15", n)
	}
	// A refused nonce is free again and is handed out first.
	sessions[1].Settle(Free)
	sessions[1].End()
	again := m.Begin(addr)
	if n := again.Next(10); n != 11 {
		t.Fatalf("freed nonce not reused: %d", n)
	}
	// A count past the taken nonces forgets them.
	again.Settle(Occupied)
	if n := again.Next(13); n != 16 {
		t.Fatalf("after Occupied with count 13: %d", n)
	}
	for _, s := range append(sessions, late, again) {
		s.End()
	}
	if len(m.accounts) != 0 {
		t.Fatal("state kept after the last session")
	}
	// With nothing under way the node's count is trusted alone: a gap left
	// by a lost transaction is filled.
	s := m.Begin(addr)
	if n := s.Next(12); n != 12 {
		t.Fatalf("quiet account got %d", n)
	}
	s.End()
	s.End() // idempotent
	if len(m.accounts) != 0 {
		t.Fatal("state kept")
	}
}

func TestUnknownIsTaken(t *testing.T) {
	m := New()
	a, b := m.Begin(addr), m.Begin(addr)
	defer b.End()
	if a.Next(0) != 0 {
		t.Fatal()
	}
	a.Settle(Unknown)
	if n := b.Next(0); n != 1 {
		t.Fatalf("got %d: a timed-out nonce must not be reused during the burst", n)
	}
	a.End()
}

func TestNextSettlesTheHeldNonce(t *testing.T) {
	m := New()
	a, b := m.Begin(addr), m.Begin(addr)
	a.Next(0)
	a.Next(0) // the first one counts as Unknown: taken
	if n := b.Next(0); n != 2 {
		t.Fatalf("got %d", n)
	}
	a.End()
	b.End()
}

func TestNilSession(t *testing.T) {
	var s *Session
	if s.Next(7) != 7 {
		t.Fatal("nil session changed the count")
	}
	s.Settle(Accepted)
	s.End()
}

func TestManyConcurrentSessions(t *testing.T) {
	m := New()
	const n = 200
	var (
		mu   sync.Mutex
		got  []uint64
		wg   sync.WaitGroup
		node uint64 // the node's pending count: the contiguous accepted prefix
		pool = map[uint64]bool{}
	)
	for range n {
		wg.Go(func() {
			s := m.Begin(addr)
			defer s.End()
			for {
				mu.Lock()
				count := node
				mu.Unlock()
				x := s.Next(count)
				mu.Lock()
				if pool[x] || x < node {
					mu.Unlock()
					s.Settle(Occupied)
					continue
				}
				pool[x] = true
				for pool[node] {
					node++
				}
				got = append(got, x)
				mu.Unlock()
				s.Settle(Accepted)
				return
			}
		})
	}
	wg.Wait()
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	for i, x := range got {
		if x != uint64(i) {
			t.Fatalf("nonces %v...: gap or duplicate at %d", got[:i+1], i)
		}
	}
}

func TestUnknownExpires(t *testing.T) {
	m := New()
	now := time.Unix(1000, 0)
	m.now = func() time.Time { return now }
	busy := m.Begin(addr) // keeps the account's state alive
	defer busy.End()
	a := m.Begin(addr)
	if a.Next(0) != 0 {
		t.Fatal()
	}
	a.Settle(Unknown) // the node never got nonce 0
	a.End()
	b := m.Begin(addr)
	if n := b.Next(0); n != 1 {
		t.Fatalf("got %d before the TTL", n)
	}
	b.Settle(Accepted) // queued behind the gap: the node's count stays 0
	b.End()
	now = now.Add(UnknownTTL + time.Second)
	c := m.Begin(addr)
	if n := c.Next(0); n != 0 {
		t.Fatalf("got %d: the lost nonce should be reused after the TTL", n)
	}
	c.Settle(Accepted)
	if n := c.Next(0); n != 2 {
		t.Fatalf("accepted nonces must not expire: got %d", n)
	}
	c.End()
}

// TestStaleCount is the race seen against a real node: call A reads the
// count (5) before B's nonce 5 reaches the node; C reads a fresher count
// (7) and so forgets 5 and 6; A must not then be given 5.
func TestStaleCount(t *testing.T) {
	m := New()
	a, b, c := m.Begin(addr), m.Begin(addr), m.Begin(addr)
	defer a.End()
	defer c.End()
	if b.Next(5) != 5 {
		t.Fatal()
	}
	b.Settle(Accepted)
	b.End()
	if n := c.Next(7); n != 7 {
		t.Fatalf("c got %d", n)
	}
	if n := a.Next(5); n != 8 {
		t.Fatalf("a, with a stale count, got %d, want 8", n)
	}
}

func TestStaleForgetsTheBurst(t *testing.T) {
	m := New()
	k := Key{Account: common.Address{1}, Group: common.Hash{2}}
	a, b := m.Begin(k), m.Begin(k)
	defer b.End()
	if n := a.Next(4); n != 4 {
		t.Fatal(n)
	}
	a.Settle(Accepted)
	a.End()
	// The node lost nonce 4 (its count is 4 again) and refuses 5.
	if n := b.Next(4); n != 5 {
		t.Fatal(n)
	}
	b.Settle(Stale)
	if n := b.Next(4); n != 4 {
		t.Fatalf("after Stale: %d, want the node's count 4", n)
	}
	// Keys of other groups and the public sequence are apart.
	c := m.Begin(Key{Account: common.Address{1}})
	defer c.End()
	if n := c.Next(0); n != 0 {
		t.Fatal(n)
	}
}

func TestLockSerializesAKey(t *testing.T) {
	m := New()
	k := Key{Account: common.Address{1}, Group: common.Hash{3}}
	var (
		mu      sync.Mutex
		holding int
		wg      sync.WaitGroup
	)
	for range 50 {
		wg.Go(func() {
			unlock := m.Lock(k)
			mu.Lock()
			holding++
			if holding != 1 {
				t.Error("two calls hold one key")
			}
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			holding--
			mu.Unlock()
			unlock()
		})
	}
	// Another key is not held up.
	other := m.Lock(Key{Account: common.Address{1}})
	other()
	wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.locks) != 0 {
		t.Fatal("locks kept after the last unlock")
	}
}
