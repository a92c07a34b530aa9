package rpc

import "sync"

// noteEntry is one notification waiting for a WebSocket client: Notify's
// message (raw) or a subscription notification whose result is shared.
type noteEntry struct {
	raw   []byte
	n     Notification
	size  int  // bytes the message takes on the wire
	spare bool // queued past the bounds (see noteQueue)
}

// latest reports whether a newer notification of the same subscription
// makes e obsolete.
func (e *noteEntry) latest() bool { return e.raw == nil && e.n.Latest }

// noteQueue is a connection's notifications in the order they are to be
// written. Within its bounds (a count and bytes) every notification is
// queued. Past them, a Latest notification (newHeads) replaces the newest
// waiting one of its subscription, which keeps its place; if that
// subscription has none waiting, it is queued as a spare, and a spare is
// always replaced by its subscription's next notification. So:
//   - the entries within the bounds hold at most maxBytes of messages;
//   - there is at most one spare per Latest subscription, and every spare
//     holds its subscription's newest result: the spares share the results
//     of the last two events at most (the event being delivered and the one
//     before), whatever the number of subscriptions;
//   - every subscription is eventually told of the newest block, in order,
//     though a slow client may not hear of every block.
//
// A notification past the bounds that cannot be replaced (a log: dropping
// it would lose it silently) is refused, and the connection closed.
type noteQueue struct {
	mu     sync.Mutex
	buf    []noteEntry // FIFO from head
	head   int
	base   int            // absolute index of buf[0]: entries keep theirs as the buffer is compacted
	latest map[string]int // Latest subscription id -> absolute index of its newest waiting entry
	ready  chan struct{}  // signalled when an entry is queued

	count, bytes       int   // entries within the bounds and their bytes
	spares, spareBytes int   // entries past the bounds
	coalesced          int64 // notifications that replaced a waiting one
}

// pushResult says what push did.
type pushResult int

const (
	queued   pushResult = iota // queued
	replaced                   // replaced a waiting one
	full                       // past the bounds and not replaceable
)

func (q *noteQueue) init() {
	q.latest = make(map[string]int)
	q.ready = make(chan struct{}, 1)
}

// push queues e within maxCount entries and maxBytes bytes (see noteQueue).
func (q *noteQueue) push(e noteEntry, maxCount int, maxBytes int64) pushResult {
	q.mu.Lock()
	over := q.count >= maxCount || int64(q.bytes+e.size) > maxBytes
	if e.latest() {
		if i, ok := q.latest[e.n.ID]; ok {
			if old := &q.buf[i-q.base]; over || old.spare {
				e.spare = old.spare
				q.account(old, -1)
				q.account(&e, +1)
				*old = e
				q.coalesced++
				q.mu.Unlock()
				return replaced
			}
		}
		e.spare = over
		q.latest[e.n.ID] = q.base + len(q.buf)
	} else if over {
		q.mu.Unlock()
		return full
	}
	q.buf = append(q.buf, e)
	q.account(&e, +1)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return queued
}

// account adds (sign 1) or removes (-1) e's share of the counters.
func (q *noteQueue) account(e *noteEntry, sign int) {
	if e.spare {
		q.spares += sign
		q.spareBytes += sign * e.size
	} else {
		q.count += sign
		q.bytes += sign * e.size
	}
}

// pop takes the oldest entry.
func (q *noteQueue) pop() (noteEntry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.buf) {
		return noteEntry{}, false
	}
	e := q.buf[q.head]
	q.buf[q.head] = noteEntry{} // let the shared result go
	if e.latest() && q.latest[e.n.ID] == q.base+q.head {
		delete(q.latest, e.n.ID)
	}
	q.account(&e, -1)
	q.head++
	if q.head == len(q.buf) {
		// Empty: start again at the front of the buffer.
		q.base += q.head
		q.buf, q.head = q.buf[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.buf) {
		// Mostly consumed: move the rest to the front.
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.base += q.head
		q.buf, q.head = q.buf[:n], 0
	}
	return e, true
}

// size returns the waiting entries and their bytes, spares included.
func (q *noteQueue) size() (int, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.count + q.spares, q.bytes + q.spareBytes
}
