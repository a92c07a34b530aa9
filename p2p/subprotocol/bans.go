package subprotocol

import (
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/consensus"
)

// ErrMisbehaved marks a MessageHandler error for which the Transport bans
// the peer as well as disconnecting it: a consensus message with a bad
// signature, or signed by a key that is not a validator's.
var ErrMisbehaved = errors.New("peer misbehaved")

// BanList remembers peers that misbehaved, each for a while, so that a
// banned peer that reconnects is dropped before it sends anything. It is
// bounded: when full, the ban that ends first gives way. It is safe for
// concurrent use.
type BanList struct {
	clock consensus.Clock
	ttl   time.Duration
	max   int

	mu    sync.Mutex
	until map[enode.ID]time.Time
}

// NewBanList returns a list whose bans last ttl on clock, holding at most
// max peers.
func NewBanList(clock consensus.Clock, ttl time.Duration, max int) *BanList {
	return &BanList{clock: clock, ttl: ttl, max: max, until: map[enode.ID]time.Time{}}
}

// Ban bans id for the list's ttl from now.
func (b *BanList) Ban(id enode.ID) {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.until[id]; !ok && len(b.until) >= b.max {
		b.evict(now)
	}
	b.until[id] = now.Add(b.ttl)
}

// evict drops the expired bans, or else the one that ends first. The list
// is small (max), and a ban is rare: a scan is enough.
func (b *BanList) evict(now time.Time) {
	var (
		first   enode.ID
		firstAt time.Time
	)
	for id, t := range b.until {
		if !now.Before(t) {
			delete(b.until, id)
			continue
		}
		if firstAt.IsZero() || t.Before(firstAt) {
			first, firstAt = id, t
		}
	}
	if len(b.until) >= b.max {
		delete(b.until, first)
	}
}

// Banned reports whether id is banned now.
func (b *BanList) Banned(id enode.ID) bool {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.until[id]
	if ok && !now.Before(t) {
		delete(b.until, id)
		ok = false
	}
	return ok
}

// Len is how many bans the list holds (expired ones included until they
// are looked up or evicted).
func (b *BanList) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.until)
}
