// Package nonce hands out nonces to concurrent eth_sendTransaction calls
// from one account, so that each gets its own nonce and together they leave
// no gap; and, for eea_sendTransaction, private nonces per account and
// privacy group (a Key names the sequence).
//
// EthSigner asks the node for the sender's pending transaction count for
// every call and retries when the node refuses the nonce. Under load that
// alone does not work: every concurrent call reads the same count, one
// wins, the others are refused and read the same (or a barely newer) count
// again, and ten retries run out long before two hundred concurrent calls
// are through. The Manager keeps the node as the authority (every
// allocation starts from a count just read from it) and remembers, per
// account and only while calls for the account are under way, which nonces
// those calls hold:
//
//   - in flight: allocated to a call whose transaction the node has not
//     answered yet;
//   - taken: accepted by the node, or found occupied by another transaction
//     (Known transaction, Replacement transaction underpriced), or sent
//     without an answer (a timeout: the node may have it).
//
// An allocation is the smallest nonce at or above the node's count that is
// neither. The count used is the highest one any call of the burst has
// read: calls read it concurrently, and a count read before another call's
// transaction reached the node must not bring back a nonce that call's
// fresher count already let the manager forget. A nonce the node refused for another reason (gas price too low,
// balance too low, ...) is free again, so the next call fills the gap.
// Taken nonces below the node's count are forgotten (the node counts them),
// and when the last call of an account ends its state is dropped: the next
// call trusts the node's count alone, which also fills any gap a lost
// transaction left. Under unbroken load an account's calls may never all
// end, so a nonce taken without an answer (Unknown) is also forgotten after
// UnknownTTL: if the node never got that transaction, its count stays
// below it and every later transaction waits behind the gap until a call
// fills it.
package nonce

import (
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// UnknownTTL is how long a nonce sent without an answer stays taken.
const UnknownTTL = 10 * time.Second

// Outcome is what became of an allocated nonce.
type Outcome int

const (
	// Accepted: the node took the transaction.
	Accepted Outcome = iota
	// Occupied: the node has another transaction with this nonce.
	Occupied
	// Free: the node refused the transaction; the nonce is unused.
	Free
	// Unknown: no answer (timeout, connection lost); the node may have the
	// transaction.
	Unknown
	// Stale: the node refused the nonce as above its count; the nonce is
	// unused and the nonces the Key's burst holds as taken may be too.
	Stale
)

// Key names a nonce sequence: an account's public nonces (Group zero), or
// its private nonces in one privacy group.
type Key struct {
	Account common.Address
	Group   common.Hash
}

// Manager tracks the nonces of calls under way, per account. The zero value
// is not usable; use New.
type Manager struct {
	mu       sync.Mutex
	accounts map[Key]*account
	locks    map[Key]*keyLock
	now      func() time.Time // time.Now; tests replace it
}

type account struct {
	active int
	// floor is the highest node count seen during the burst.
	floor    uint64
	inflight map[uint64]struct{}
	// taken maps a nonce to when it stops being taken (zero: not before
	// the node counts it).
	taken map[uint64]time.Time
}

// New returns an empty Manager.
func New() *Manager {
	return &Manager{accounts: map[Key]*account{}, locks: map[Key]*keyLock{}, now: time.Now}
}

type keyLock struct {
	mu    sync.Mutex
	users int // guarded by Manager.mu
}

// Lock waits until no other call holds k, then holds it until the
// returned function is called. A private send holds its Key from reading
// the node's count until the node's answer, so that the node gets the
// Key's transactions one at a time, in nonce order.
func (m *Manager) Lock(k Key) (unlock func()) {
	m.mu.Lock()
	l := m.locks[k]
	if l == nil {
		l = &keyLock{}
		m.locks[k] = l
	}
	l.users++
	m.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		m.mu.Lock()
		if l.users--; l.users == 0 {
			delete(m.locks, k)
		}
		m.mu.Unlock()
	}
}

// Begin starts a call for addr (a Key). Call it before reading the node's
// count, so that nonces other calls settle meanwhile are remembered until
// this call allocates, and End the session when the call is over.
func (m *Manager) Begin(addr Key) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.accounts[addr]
	if a == nil {
		a = &account{inflight: map[uint64]struct{}{}, taken: map[uint64]time.Time{}}
		m.accounts[addr] = a
	}
	a.active++
	return &Session{m: m, addr: addr, a: a}
}

// Session is one call's use of the Manager. It is not safe for concurrent
// use; different sessions are. A nil *Session is valid: Next returns the
// node's count as is and Settle and End do nothing, for calls whose nonces
// are not managed.
type Session struct {
	m     *Manager
	addr  Key
	a     *account
	nonce uint64
	held  bool
	ended bool
}

// Next allocates a nonce given the node's pending transaction count. A
// nonce this session allocated before and did not settle counts as Unknown.
func (s *Session) Next(pending uint64) uint64 {
	if s == nil {
		return pending
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.settleLocked(Unknown)
	a := s.a
	pending = max(pending, a.floor)
	a.floor = pending
	now := s.m.now()
	for n, until := range a.taken {
		if n < pending || (!until.IsZero() && now.After(until)) {
			delete(a.taken, n)
		}
	}
	n := pending
	for {
		_, busy := a.inflight[n]
		_, took := a.taken[n]
		if !busy && !took {
			break
		}
		n++
	}
	a.inflight[n] = struct{}{}
	s.nonce, s.held = n, true
	return n
}

// Settle records what became of the nonce Next returned.
func (s *Session) Settle(o Outcome) {
	if s == nil {
		return
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.settleLocked(o)
}

func (s *Session) settleLocked(o Outcome) {
	if !s.held {
		return
	}
	delete(s.a.inflight, s.nonce)
	switch o {
	case Accepted, Occupied:
		s.a.taken[s.nonce] = time.Time{}
	case Unknown:
		s.a.taken[s.nonce] = s.m.now().Add(UnknownTTL)
	case Stale:
		s.a.floor = 0
		clear(s.a.taken)
	}
	s.held = false
}

// End finishes the session. An unsettled nonce is treated as Unknown. When
// no session of the account remains, its state is dropped.
func (s *Session) End() {
	if s == nil || s.ended {
		return
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.settleLocked(Unknown)
	s.ended = true
	s.a.active--
	if s.a.active == 0 && s.m.accounts[s.addr] == s.a {
		delete(s.m.accounts, s.addr)
	}
}
