package privacy

import (
	"crypto/ecdsa"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// The node's private nonce rule. Besu reads a private nonce at the chain
// head only, so a sender who sends a second private transaction to a group
// before the first is mined reuses its nonce and one of the two fails at
// execution (reference/signer.md §6, EthSigner issue #257). Basalt counts,
// per sender and group, the private transactions whose markers this node
// pooled and that are not yet mined, as the pool does for public nonces:
//
//   - the pending private nonce is the head's private nonce plus the
//     unbroken run of pooled markers from it (a marker that left the pool
//     unmined, dropped or evicted, opens a gap that the next transaction
//     fills);
//   - eea_sendRawTransaction takes exactly the pending private nonce:
//     below it is Nonce too low (a mined or a pooled transaction has it),
//     above it Nonce too high;
//   - priv_getTransactionCount and priv_getEeaTransactionCount answer it.
//
// The private transactions of a group then run in nonce order only if
// their markers are mined in that order. Submissions of one lane (sender
// and group) are serialized from the nonce check to the pooled marker, so
// markers are pooled in private nonce order, and consecutive markers of a
// lane are signed by one key at consecutive public nonces (the configured
// marker key, or else one fresh key per lane kept while the lane has
// markers pooled): every validator's block builder then keeps their order,
// whatever order gossip brings them in.

// sweepEvery is how many recorded markers pass between sweeps of the lanes
// no submission touched, so that lanes of senders who stopped sending do
// not stay in memory.
const sweepEvery = 256

// minedRetention is how long a mined marker stays recorded. A reorg puts
// the markers of the blocks it removes back in the pool (unless the new
// blocks have them); while their private transactions wait there again
// they must count in the pending nonce, or the next submission would take
// a nonce one of them holds. Clique and ethash reorgs are seconds deep.
const minedRetention = time.Minute

// laneKey names a lane: one sender's private transactions in one group.
type laneKey struct {
	group  common.Hash
	sender common.Address
}

// pendingTx is a private transaction whose marker this node pooled.
type pendingTx struct {
	nonce  uint64
	marker common.Hash
	// mined is when the marker was first found out of the pool at a nonce
	// below the head's (mined); zero while it is pooled.
	mined time.Time
}

// lane is the pending private transactions of one sender in one group.
type lane struct {
	// submit is held by the submission under way, from its nonce check
	// until its marker is pooled.
	submit sync.Mutex

	// Guarded by lanes.mu.
	users int         // submissions holding or waiting for submit
	txs   []pendingTx // ascending nonces
	// key signs the lane's markers without a configured marker key, kept
	// while one of them is pooled; nil: the next marker gets a fresh key.
	key *ecdsa.PrivateKey
}

// lanes tracks the lanes with pooled markers or submissions under way.
type lanes struct {
	mu     sync.Mutex
	m      map[laneKey]*lane
	pooled func(common.Hash) bool // whether a marker is still in the pool
	adds   int                    // markers recorded since the last sweep
	now    func() time.Time       // time.Now; tests replace it
}

func newLanes(pooled func(common.Hash) bool) *lanes {
	return &lanes{m: map[laneKey]*lane{}, pooled: pooled, now: time.Now}
}

// acquire returns k's lane with its submit lock held; release it with
// release.
func (ls *lanes) acquire(k laneKey) *lane {
	ls.mu.Lock()
	l := ls.m[k]
	if l == nil {
		l = &lane{}
		ls.m[k] = l
	}
	l.users++
	ls.mu.Unlock()
	l.submit.Lock()
	return l
}

// release ends a submission on k's lane l; a lane with nothing recorded
// and no submission is forgotten.
func (ls *lanes) release(k laneKey, l *lane) {
	l.submit.Unlock()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l.users--
	ls.pruneLocked(l, unknownHead)
	if l.users == 0 && len(l.txs) == 0 && ls.m[k] == l {
		delete(ls.m, k)
	}
}

// unknownHead is pruneLocked's head when the caller does not know it: a
// marker that left the pool then counts as mined.
const unknownHead = math.MaxUint64

// pruneLocked drops l's transactions whose markers left the pool unmined
// (at or above head, the sender's private nonce at the chain head) and the
// mined ones found out of the pool more than minedRetention ago, and
// returns whether any marker of l is pooled.
func (ls *lanes) pruneLocked(l *lane, head uint64) bool {
	now := ls.now()
	keep := l.txs[:0]
	live := false
	for _, p := range l.txs {
		switch {
		case ls.pooled(p.marker):
			p.mined = time.Time{} // pooled again after a reorg
			live = true
		case p.nonce >= head && p.mined.IsZero():
			continue // dropped or evicted: its nonce is free again
		case p.mined.IsZero():
			p.mined = now
		case now.Sub(p.mined) > minedRetention:
			continue
		}
		keep = append(keep, p)
	}
	clear(l.txs[len(keep):])
	l.txs = keep
	if !live {
		l.key = nil // nothing pooled to keep in order with: a fresh key
	}
	return live
}

// next is k's pending private nonce given head, its private nonce at the
// chain head: head plus the unbroken run of k's pooled markers from it.
func (ls *lanes) next(k laneKey, head uint64) uint64 {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.m[k]
	if l == nil {
		return head
	}
	ls.pruneLocked(l, head)
	n := head
	for _, p := range l.txs {
		switch {
		case p.nonce < n:
		case p.nonce == n && p.mined.IsZero():
			n++
		default:
			return n
		}
	}
	return n
}

// markerKey is the key to sign l's next marker with when there is no
// configured marker key: the lane's while it has markers pooled, else
// fresh (from gen, which the lane then keeps).
func (ls *lanes) markerKey(l *lane, gen func() (*ecdsa.PrivateKey, error)) (*ecdsa.PrivateKey, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l.key != nil {
		return l.key, nil
	}
	k, err := gen()
	if err != nil {
		return nil, err
	}
	l.key = k
	return k, nil
}

// record notes that the marker of k's private transaction with nonce was
// pooled. l is k's lane when the caller holds it, else nil.
func (ls *lanes) record(k laneKey, l *lane, nonce uint64, marker common.Hash) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l == nil {
		if l = ls.m[k]; l == nil {
			l = &lane{}
			ls.m[k] = l
		}
	}
	i, _ := slices.BinarySearchFunc(l.txs, nonce, func(p pendingTx, n uint64) int {
		switch {
		case p.nonce < n:
			return -1
		case p.nonce > n:
			return 1
		}
		return 0
	})
	if i < len(l.txs) && l.txs[i].nonce == nonce {
		l.txs[i] = pendingTx{nonce: nonce, marker: marker} // the earlier one left the pool
	} else {
		l.txs = slices.Insert(l.txs, i, pendingTx{nonce: nonce, marker: marker})
	}
	if ls.adds++; ls.adds >= sweepEvery {
		ls.adds = 0
		ls.sweepLocked()
	}
}

// sweepLocked forgets the idle lanes with nothing recorded any more.
func (ls *lanes) sweepLocked() {
	for k, l := range ls.m {
		if l.users != 0 {
			continue
		}
		ls.pruneLocked(l, unknownHead)
		if len(l.txs) == 0 {
			delete(ls.m, k)
		}
	}
}

// len is the number of lanes tracked.
func (ls *lanes) len() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.m)
}
