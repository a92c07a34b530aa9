package privacy

import (
	"crypto/ecdsa"
	"slices"
	"sync"

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

// laneKey names a lane: one sender's private transactions in one group.
type laneKey struct {
	group  common.Hash
	sender common.Address
}

// pendingTx is a private transaction whose marker this node pooled.
type pendingTx struct {
	nonce  uint64
	marker common.Hash
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
}

func newLanes(pooled func(common.Hash) bool) *lanes {
	return &lanes{m: map[laneKey]*lane{}, pooled: pooled}
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

// release ends a submission on k's lane l; a lane with nothing pooled and
// no submission is forgotten.
func (ls *lanes) release(k laneKey, l *lane) {
	l.submit.Unlock()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l.users--
	if l.users == 0 && len(ls.pruneLocked(l, 0)) == 0 && ls.m[k] == l {
		delete(ls.m, k)
	}
}

// pruneLocked drops l's transactions below head (mined) and those whose
// markers left the pool, and returns the rest.
func (ls *lanes) pruneLocked(l *lane, head uint64) []pendingTx {
	keep := l.txs[:0]
	for _, p := range l.txs {
		if p.nonce >= head && ls.pooled(p.marker) {
			keep = append(keep, p)
		}
	}
	clear(l.txs[len(keep):])
	l.txs = keep
	if len(keep) == 0 {
		l.key = nil // nothing pooled to keep in order with: a fresh key
	}
	return keep
}

// next is k's pending private nonce given head, its private nonce at the
// chain head.
func (ls *lanes) next(k laneKey, head uint64) uint64 {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.m[k]
	if l == nil {
		return head
	}
	n := head
	for _, p := range ls.pruneLocked(l, head) {
		if p.nonce == n {
			n++
		} else if p.nonce > n {
			break
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
		l.txs[i].marker = marker // the earlier one left the pool
	} else {
		l.txs = slices.Insert(l.txs, i, pendingTx{nonce: nonce, marker: marker})
	}
	if ls.adds++; ls.adds >= sweepEvery {
		ls.adds = 0
		ls.sweepLocked()
	}
}

// sweepLocked forgets the idle lanes whose markers all left the pool.
func (ls *lanes) sweepLocked() {
	for k, l := range ls.m {
		if l.users == 0 && len(ls.pruneLocked(l, 0)) == 0 {
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
