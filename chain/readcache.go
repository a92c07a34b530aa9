package chain

import (
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reads for the front ends (eth_call, eth_getBalance, …) come in bursts at
// the same few roots — mostly the head's. Opening a StateDB per request on a
// fresh reader walked the trie for every account again, and every contract
// code read went through go-ethereum's code cache, one LRU behind one mutex
// that 64 concurrent eth_calls queued on (the mutex profile's top entry).
// A sharedReader caches, per root, what the requests read: the state at a
// root never changes, so the cache needs no invalidation, only a bound.

const (
	// sharedRoots is how many roots keep a shared reader: the head, and
	// the few before it that clients still ask about.
	sharedRoots = 8
	// sharedEntries bounds the entries one reader caches (about 8 MB of
	// accounts, so all roots together stay under 64 MB even when clients
	// scan addresses); past it reads go to the underlying reader uncached.
	sharedEntries = 1 << 15
)

// nilAccount stands for "no such account" in sharedReader.accounts.
var nilAccount = new(types.StateAccount)

type slotKey struct {
	addr common.Address
	slot common.Hash
}

// sharedReader is a state.Reader at one root whose reads are cached for
// every StateDB opened on it. It is safe for concurrent use: sync.Map suits
// caches whose entries are written once and read many times.
type sharedReader struct {
	under    state.Reader
	accounts sync.Map // common.Address → *types.StateAccount (nilAccount: none)
	slots    sync.Map // slotKey → common.Hash
	code     sync.Map // code hash → []byte
	entries  atomic.Int64
}

func (r *sharedReader) room() bool { return r.entries.Load() < sharedEntries }

// Account returns a copy of the account, which the caller may modify.
func (r *sharedReader) Account(addr common.Address) (*types.StateAccount, error) {
	if v, ok := r.accounts.Load(addr); ok {
		if a := v.(*types.StateAccount); a != nilAccount {
			return a.Copy(), nil
		}
		return nil, nil
	}
	a, err := r.under.Account(addr)
	if err != nil {
		return nil, err
	}
	if r.room() {
		stored := nilAccount
		if a != nil {
			stored = a.Copy()
		}
		if _, loaded := r.accounts.LoadOrStore(addr, stored); !loaded {
			r.entries.Add(1)
		}
	}
	return a, nil
}

// Storage returns the slot's value.
func (r *sharedReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	k := slotKey{addr, slot}
	if v, ok := r.slots.Load(k); ok {
		return v.(common.Hash), nil
	}
	v, err := r.under.Storage(addr, slot)
	if err == nil && r.room() {
		if _, loaded := r.slots.LoadOrStore(k, v); !loaded {
			r.entries.Add(1)
		}
	}
	return v, err
}

// Code returns the code with codeHash (nil if there is none). Callers must
// not modify it, as with go-ethereum's code reader.
func (r *sharedReader) Code(addr common.Address, codeHash common.Hash) []byte {
	if v, ok := r.code.Load(codeHash); ok {
		return v.([]byte)
	}
	code := r.under.Code(addr, codeHash)
	if code != nil && r.room() {
		if _, loaded := r.code.LoadOrStore(codeHash, code); !loaded {
			r.entries.Add(1)
		}
	}
	return code
}

// CodeSize returns the size of the code with codeHash.
func (r *sharedReader) CodeSize(addr common.Address, codeHash common.Hash) int {
	if v, ok := r.code.Load(codeHash); ok {
		return len(v.([]byte))
	}
	return r.under.CodeSize(addr, codeHash)
}

// Has reports whether the code with codeHash exists.
func (r *sharedReader) Has(addr common.Address, codeHash common.Hash) bool {
	if _, ok := r.code.Load(codeHash); ok {
		return true
	}
	return r.under.Has(addr, codeHash)
}

// readerCache holds the shared readers of the most recently read roots.
// Lookups take no lock (every JSON-RPC read does one): the set is an
// immutable slice swapped whole under mu when a root is added.
type readerCache struct {
	mu   sync.Mutex // serialises additions
	set  atomic.Pointer[[]*rootReader]
	tick atomic.Uint64
}

type rootReader struct {
	root common.Hash
	r    *sharedReader
	used atomic.Uint64 // tick of the last lookup, for eviction
}

// get returns root's shared reader, opening it with open if it has none
// (replacing the least recently used one).
func (rc *readerCache) get(root common.Hash, open func(common.Hash) (state.Reader, error)) (*sharedReader, error) {
	if r := rc.lookup(root); r != nil {
		return r, nil
	}
	under, err := open(root)
	if err != nil {
		return nil, err
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r := rc.lookup(root); r != nil { // opened meanwhile
		return r, nil
	}
	var cur []*rootReader
	if p := rc.set.Load(); p != nil {
		cur = *p
	}
	next := make([]*rootReader, 0, sharedRoots)
	next = append(next, cur...)
	e := &rootReader{root: root, r: &sharedReader{under: under}}
	e.used.Store(rc.tick.Add(1))
	if len(next) < sharedRoots {
		next = append(next, e)
	} else {
		oldest := 0
		for i := range next {
			if next[i].used.Load() < next[oldest].used.Load() {
				oldest = i
			}
		}
		next[oldest] = e
	}
	rc.set.Store(&next)
	return e.r, nil
}

func (rc *readerCache) lookup(root common.Hash) *sharedReader {
	p := rc.set.Load()
	if p == nil {
		return nil
	}
	for _, e := range *p {
		if e.root == root {
			// Racy by design: an approximate recency is enough to evict.
			if t := rc.tick.Load(); e.used.Load() != t {
				e.used.Store(rc.tick.Add(1))
			}
			return e.r
		}
	}
	return nil
}

// ReadState opens a StateDB at root for reading (eth_call, gas estimation,
// tracing): private to the caller, who may modify it, but reading through
// the root's shared, cached reader. Never commit it.
func (c *Chain) ReadState(root common.Hash) (*state.StateDB, error) {
	r, err := c.readers.get(root, c.stateDB.Reader)
	if err != nil {
		return nil, err
	}
	return state.NewWithReader(root, c.stateDB, r)
}
