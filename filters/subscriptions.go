package filters

import (
	"strconv"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Event is one notification for a subscription: a new canonical block
// (KindBlocks), a log (KindLogs; Log.Removed after a reorg) or a
// transaction the pool accepted (KindPendingTxs).
//
// One Event goes to every subscription it matches. Deliver functions run
// one at a time on the system's event goroutine, so they may use Encoded
// to encode an event once for all subscribers.
type Event struct {
	Kind   Kind
	Hash   common.Hash        // block hash (KindBlocks), transaction hash (KindPendingTxs)
	Header *types.Header      // KindBlocks
	Block  *types.Block       // KindBlocks
	Log    *types.Log         // KindLogs
	Tx     *types.Transaction // KindPendingTxs

	encoded [2][]byte
}

// Encoded returns enc(e), calling enc only the first time for each variant
// (0 or 1, e.g. with and without full transactions). It must be called from
// a deliver function.
func (e *Event) Encoded(variant int, enc func(*Event) []byte) []byte {
	if e.encoded[variant] == nil {
		e.encoded[variant] = enc(e)
	}
	return e.encoded[variant]
}

// Subscription is a push subscription (eth_subscribe). It receives nothing
// until activated, so that the response carrying its id can be sent first.
type Subscription struct {
	id      string
	kind    Kind
	crit    *Criteria
	deliver func(*Event) bool
	active  atomic.Bool
}

// ID is the subscription id: a quantity from a per-node counter, as Besu
// numbers them (0x1, 0x2, …).
func (s *Subscription) ID() string { return s.id }

// Activate starts delivery.
func (s *Subscription) Activate() { s.active.Store(true) }

// Subscribe registers a subscription of kind; crit selects the logs of a
// KindLogs subscription (nil: all). deliver is called for each event on the
// system's event goroutine and must not block; returning false ends the
// subscription (its connection is gone or too slow).
func (s *System) Subscribe(kind Kind, crit *Criteria, deliver func(*Event) bool) *Subscription {
	if crit == nil {
		crit = &Criteria{}
	}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.subSeq++
	sub := &Subscription{id: "0x" + strconv.FormatUint(s.subSeq, 16), kind: kind, crit: crit, deliver: deliver}
	s.subByID[sub.id] = sub
	list := *s.subs[kind].Load()
	next := make([]*Subscription, len(list), len(list)+1)
	copy(next, list)
	next = append(next, sub)
	s.subs[kind].Store(&next)
	return sub
}

// Unsubscribe ends the subscription with the id; false when there is none.
func (s *System) Unsubscribe(id string) bool {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	sub := s.subByID[id]
	if sub == nil {
		return false
	}
	delete(s.subByID, id)
	sub.active.Store(false)
	list := *s.subs[sub.kind].Load()
	next := make([]*Subscription, 0, len(list))
	for _, x := range list {
		if x != sub {
			next = append(next, x)
		}
	}
	s.subs[sub.kind].Store(&next)
	return true
}

// SubscriptionCount returns the number of live subscriptions.
func (s *System) SubscriptionCount() int {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	return len(s.subByID)
}
