// Package discovery keeps the node table — which instance (node URL) hosts
// which public key — and fills it from Orion's party-info exchange
// (POST /partyinfo), with two differences that make it safe on a network
// shared with others:
//
//   - A claim "key K is hosted at URL U", from whatever source, is only a
//     candidate. The table lists U for K (and payloads for K are pushed to U)
//     only after U has proved it holds K's private key by answering a
//     challenge encrypted to K (see proof.go). Candidates wait in a bounded
//     queue apart from the table and are never used for pushes.
//   - The table is bounded: at most Limits.MaxPeers other instances and
//     Limits.MaxKeysPerPeer keys per instance, listed or waiting. A URL whose
//     claims failed is ignored for a while (a cool-down), a listed instance
//     unreachable for longer than the eviction period is dropped.
//
// A proven entry is never overwritten by a mere claim: when another URL
// claims a listed key, that URL is challenged, and if it proves the key the
// listed URL is challenged again; the entry moves only if the listed URL no
// longer proves it. An instance's own keys map to its own URL and cannot be
// claimed by anyone else.
//
// What this instance tells others is limited too (PartyInfoFor): an
// instance that has not proved a key here gets only this instance's own
// keys, which it needs to address and challenge us; the table itself goes
// only to listed (proven) instances, and only in requests this instance
// makes to them. With discovery off (Options.Fixed) the table lists only the
// fixed peers and nothing is passed on.
//
// The table can be kept in a storage.KV (Orion's knownnodesstorage) so that
// it survives a restart; entries loaded from it are used at once and
// challenged again in the background.
package discovery

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/basaltchain/basalt/internal/defaults"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Default limits.
const (
	DefaultMaxPeers       = 128
	DefaultMaxKeysPerPeer = 256
)

// Limits bound the table. Zero values mean the defaults.
type Limits struct {
	// MaxPeers is the number of other instances (node URLs) the table
	// lists; it also bounds the URLs waiting for proof.
	MaxPeers int
	// MaxKeysPerPeer is the number of keys listed or waiting for proof per
	// instance.
	MaxKeysPerPeer int
}

func (l Limits) withDefaults() Limits {
	l.MaxPeers = defaults.Positive(l.MaxPeers, DefaultMaxPeers)
	l.MaxKeysPerPeer = defaults.Positive(l.MaxKeysPerPeer, DefaultMaxKeysPerPeer)
	return l
}

// Options configure a Table.
type Options struct {
	Limits
	// Fixed, when not nil, turns discovery off: the table lists keys of
	// these node URLs only (still proven), and passes nothing on.
	Fixed []string
}

// Table maps public keys to the node URL of the instance hosting them.
type Table struct {
	self   string
	own    map[keys.PublicKey]bool
	ownIDs []keys.PublicKey
	kv     storage.KV
	limits Limits
	fixed  map[string]bool
	now    func() time.Time

	// persist orders the writes to kv as the changes to the maps were
	// made, while mu is not held during them: a durable write takes
	// milliseconds, and URLFor is on every send's path.
	persist sync.Mutex

	mu       sync.RWMutex
	byKey    map[keys.PublicKey]string // proven entries, own keys included
	perURL   map[string]int            // proven keys per other instance
	claims   map[string]*claim         // candidates by URL
	queue    []string                  // candidate URLs, oldest first
	cooldown map[string]time.Time      // URLs whose claims are ignored until then
	settled  map[keys.PublicKey]settled

	changed chan struct{}
	ready   chan struct{}
}

// claim is what one URL claims and has not proved here.
type claim struct {
	keys    []keys.PublicKey
	has     map[keys.PublicKey]bool
	recheck bool // keys proven before, to be proven again
}

// settled remembers a competing claim that lost to the listed entry, so
// that the same claim, repeated by every poll, is not re-run each time.
type settled struct {
	url   string
	until time.Time
}

// Cool-downs of a URL whose claims failed: briefly when it could not be
// reached (it may be starting), longer when it answered and could not prove
// a key.
const (
	UnreachableCooldown = 15 * time.Second
	RefusedCooldown     = 5 * time.Minute
)

// NewTable loads the table kept in kv (32-byte keys, URL values; other
// entries are ignored), maps own to self (this instance's node URL) and
// queues the loaded entries to be proven again.
func NewTable(ctx context.Context, kv storage.KV, self string, own []keys.PublicKey, opts Options) (*Table, error) {
	cself, err := Canonical(self)
	if err != nil {
		return nil, fmt.Errorf("own node URL: %w", err)
	}
	t := &Table{
		self: cself, own: map[keys.PublicKey]bool{}, ownIDs: slices.Clone(own), kv: kv,
		limits: opts.Limits.withDefaults(), now: time.Now,
		byKey: map[keys.PublicKey]string{}, perURL: map[string]int{}, claims: map[string]*claim{},
		cooldown: map[string]time.Time{}, settled: map[keys.PublicKey]settled{},
		changed: make(chan struct{}, 1), ready: make(chan struct{}, 1),
	}
	if opts.Fixed != nil {
		t.fixed = map[string]bool{}
		for _, u := range opts.Fixed {
			c, err := Canonical(u)
			if err != nil {
				return nil, fmt.Errorf("fixed peer: %w", err)
			}
			t.fixed[c] = true
		}
	}
	for _, k := range own {
		t.own[k] = true
	}
	var loaded []keys.PublicKey
	err = kv.ForEach(ctx, func(k, v []byte) error {
		if len(k) == keys.Size {
			loaded = append(loaded, keys.PublicKey(k))
			if u, err := Canonical(string(v)); err == nil && !t.own[keys.PublicKey(k)] && u != cself && t.allowed(u) {
				t.add(keys.PublicKey(k), u)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load node table: %w", err)
	}
	// Entries of other URLs or beyond the limits are dropped from storage
	// too; own keys are written with the current URL.
	for _, k := range loaded {
		if _, ok := t.byKey[k]; !ok && !t.own[k] {
			if err := kv.Delete(ctx, k[:]); err != nil {
				return nil, fmt.Errorf("store node table: %w", err)
			}
		}
	}
	for _, k := range own {
		if err := kv.Put(ctx, k[:], []byte(cself)); err != nil {
			return nil, fmt.Errorf("store node table: %w", err)
		}
		t.byKey[k] = cself
	}
	for u := range t.perURL {
		t.recheckLocked(u)
	}
	return t, nil
}

// Clear removes the node table kept in kv (Orion's --clear-known-nodes). Only
// table entries (32-byte keys) are removed, so a store shared with payloads
// keeps them.
func Clear(ctx context.Context, kv storage.KV) error {
	var del [][]byte
	err := kv.ForEach(ctx, func(k, _ []byte) error {
		if len(k) == keys.Size {
			del = append(del, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range del {
		if err := kv.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// Self returns this instance's node URL (Canonical).
func (t *Table) Self() string { return t.self }

// Limits returns the table's limits.
func (t *Table) Limits() Limits { return t.limits }

// Fixed reports whether discovery is off (a fixed peer list).
func (t *Table) Fixed() bool { return t.fixed != nil }

// allowed reports whether URL u (Canonical) may be listed at all.
func (t *Table) allowed(u string) bool { return t.fixed == nil || t.fixed[u] }

// URLFor returns the node URL hosting k, proven.
func (t *Table) URLFor(k keys.PublicKey) (string, bool) {
	t.mu.RLock()
	u, ok := t.byKey[k]
	t.mu.RUnlock()
	return u, ok
}

// Entries returns a copy of the table (proven entries, own keys included).
func (t *Table) Entries() map[keys.PublicKey]string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return maps.Clone(t.byKey)
}

// URLs returns the distinct node URLs in the table (this instance's
// included), sorted.
func (t *Table) URLs() []string {
	t.mu.RLock()
	out := slices.Collect(maps.Keys(t.perURL))
	t.mu.RUnlock()
	return slices.Sorted(slices.Values(append(out, t.self)))
}

// Peers returns the node URLs of the other instances listed, sorted.
func (t *Table) Peers() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Sorted(maps.Keys(t.perURL))
}

// IsPeer reports whether u (Canonical) is a listed instance: one that has
// proved at least one key here.
func (t *Table) IsPeer(u string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.perURL[u] > 0
}

// KeysAt returns the keys listed at u.
func (t *Table) KeysAt(u string) []keys.PublicKey {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.keysAtLocked(u)
}

func (t *Table) keysAtLocked(u string) []keys.PublicKey {
	var out []keys.PublicKey
	for k, v := range t.byKey {
		if v == u {
			out = append(out, k)
		}
	}
	return out
}

// Pending returns the number of URLs whose claims wait for proof.
func (t *Table) Pending() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.queue)
}

// Changed is signalled (without blocking, coalesced) when the listed
// entries change.
func (t *Table) Changed() <-chan struct{} { return t.changed }

// Ready is signalled (without blocking, coalesced) when claims wait for
// proof.
func (t *Table) Ready() <-chan struct{} { return t.ready }

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// OfferStats says what Offer did with the entries it was given.
type OfferStats struct {
	Queued  int // key claims queued for proof
	Dropped int // claims over the limits
	Ignored int // claims of own keys or URL, listed already, cooling down, or outside the fixed peers
}

// Offer queues the claims of a party-info table (Canonical URLs) for proof.
// Nothing is listed by Offer itself.
func (t *Table) Offer(entries map[keys.PublicKey]string) OfferStats {
	var st OfferStats
	if len(entries) == 0 {
		return st
	}
	// Group by URL, in a fixed order, so that limits cut the same claims
	// whatever the map's iteration order.
	byURL := map[string][]keys.PublicKey{}
	for k, u := range entries {
		byURL[u] = append(byURL[u], k)
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, u := range slices.Sorted(maps.Keys(byURL)) {
		ks := byURL[u]
		slices.SortFunc(ks, func(a, b keys.PublicKey) int { return slices.Compare(a[:], b[:]) })
		if u == t.self || !t.allowed(u) || t.cooldown[u].After(now) {
			st.Ignored += len(ks)
			continue
		}
		c := t.claims[u]
		var fresh []keys.PublicKey
		for _, k := range ks {
			s, lost := t.settled[k]
			if t.own[k] || t.byKey[k] == u || (c != nil && c.has[k]) || (lost && s.url == u && s.until.After(now)) {
				st.Ignored++
				continue
			}
			fresh = append(fresh, k)
		}
		if len(fresh) == 0 {
			continue
		}
		if c == nil {
			if len(t.claims) >= t.limits.MaxPeers || t.perURL[u] >= t.limits.MaxKeysPerPeer ||
				(t.perURL[u] == 0 && len(t.perURL) >= t.limits.MaxPeers) {
				st.Dropped += len(fresh)
				continue
			}
			c = &claim{has: map[keys.PublicKey]bool{}}
			t.claims[u] = c
			t.queue = append(t.queue, u)
		}
		for _, k := range fresh {
			if t.perURL[u]+len(c.keys) >= t.limits.MaxKeysPerPeer {
				st.Dropped++
				continue
			}
			c.keys = append(c.keys, k)
			c.has[k] = true
			st.Queued++
		}
	}
	if st.Queued > 0 {
		signal(t.ready)
	}
	return st
}

// Recheck queues the keys listed at u to be proven again (when u comes back
// after being unreachable, or claims other keys than before).
func (t *Table) Recheck(u string) {
	t.mu.Lock()
	t.recheckLocked(u)
	t.mu.Unlock()
}

func (t *Table) recheckLocked(u string) {
	ks := t.keysAtLocked(u)
	if len(ks) == 0 || u == t.self {
		return
	}
	c := t.claims[u]
	if c == nil {
		c = &claim{has: map[keys.PublicKey]bool{}}
		t.claims[u] = c
		t.queue = append(t.queue, u)
	}
	c.recheck = true
	for _, k := range ks {
		if !c.has[k] {
			c.keys = append(c.keys, k)
			c.has[k] = true
		}
	}
	signal(t.ready)
}

// Claim is a URL's claims taken from the queue for proof.
type Claim struct {
	URL  string
	Keys []keys.PublicKey
	// Recheck is set when the keys were listed at URL already.
	Recheck bool
}

// Next takes the oldest claim from the queue.
func (t *Table) Next() (Claim, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 {
		return Claim{}, false
	}
	u := t.queue[0]
	t.queue = t.queue[1:]
	c := t.claims[u]
	delete(t.claims, u)
	if len(t.queue) > 0 {
		signal(t.ready) // wake another prover
	}
	return Claim{URL: u, Keys: c.keys, Recheck: c.recheck}, true
}

// Cool makes the table ignore u's claims for d.
func (t *Table) Cool(u string, d time.Duration) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	// Bound the map: claimed URLs are chosen by whoever sends party info.
	if limit := 4*t.limits.MaxPeers + 64; len(t.cooldown) >= limit {
		maps.DeleteFunc(t.cooldown, func(_ string, until time.Time) bool { return !until.After(now) })
		if len(t.cooldown) >= limit {
			clear(t.cooldown)
		}
	}
	t.cooldown[u] = now.Add(d)
}

// Settle records that u's claim of k lost to the listed entry: the same
// claim is ignored for d.
func (t *Table) Settle(k keys.PublicKey, u string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, listed := t.byKey[k]; listed {
		t.settled[k] = settled{url: u, until: t.now().Add(d)}
	}
}

// add lists k at u (mu held), within the limits.
func (t *Table) add(k keys.PublicKey, u string) bool {
	if t.perURL[u] >= t.limits.MaxKeysPerPeer || (t.perURL[u] == 0 && len(t.perURL) >= t.limits.MaxPeers) {
		return false
	}
	t.byKey[k] = u
	t.perURL[u]++
	return true
}

// remove unlists k (mu held).
func (t *Table) remove(k keys.PublicKey) {
	u, ok := t.byKey[k]
	if !ok || t.own[k] {
		return
	}
	delete(t.byKey, k)
	delete(t.settled, k)
	if t.perURL[u]--; t.perURL[u] <= 0 {
		delete(t.perURL, u)
	}
}

// write persists the entries of ks as they are in the table now (mu not
// held, persist held).
func (t *Table) write(ctx context.Context, ks []keys.PublicKey) error {
	for _, k := range ks {
		u, ok := t.URLFor(k)
		var err error
		if ok {
			err = t.kv.Put(ctx, k[:], []byte(u))
		} else {
			err = t.kv.Delete(ctx, k[:])
		}
		if err != nil {
			return fmt.Errorf("store node table: %w", err)
		}
	}
	return nil
}

// Prove lists the keys u proved that are not listed yet (within the
// limits) and returns them, and the keys of ks listed at another URL, with
// that URL: those conflicts are for the caller to settle (Replace).
func (t *Table) Prove(ctx context.Context, u string, ks []keys.PublicKey) (added []keys.PublicKey, conflicts map[keys.PublicKey]string, err error) {
	if u == t.self || !t.allowed(u) {
		return nil, nil, nil
	}
	t.persist.Lock()
	defer t.persist.Unlock()
	t.mu.Lock()
	for _, k := range ks {
		old, listed := t.byKey[k]
		switch {
		case t.own[k] || old == u:
		case listed:
			if conflicts == nil {
				conflicts = map[keys.PublicKey]string{}
			}
			conflicts[k] = old
		case t.add(k, u):
			added = append(added, k)
		}
	}
	t.mu.Unlock()
	if len(added) > 0 {
		signal(t.changed)
	}
	return added, conflicts, t.write(ctx, added)
}

// Replace moves k from old to u if it is still listed at old.
func (t *Table) Replace(ctx context.Context, k keys.PublicKey, old, u string) (bool, error) {
	t.persist.Lock()
	defer t.persist.Unlock()
	t.mu.Lock()
	ok := t.byKey[k] == old && !t.own[k]
	if ok {
		t.remove(k)
		ok = t.add(k, u)
	}
	t.mu.Unlock()
	if ok {
		signal(t.changed)
	}
	return ok, t.write(ctx, []keys.PublicKey{k})
}

// Forget unlists those of ks that are listed at u (u answered but did not
// prove them).
func (t *Table) Forget(ctx context.Context, u string, ks []keys.PublicKey) (int, error) {
	t.persist.Lock()
	defer t.persist.Unlock()
	t.mu.Lock()
	var gone []keys.PublicKey
	for _, k := range ks {
		if t.byKey[k] == u && !t.own[k] {
			t.remove(k)
			gone = append(gone, k)
		}
	}
	t.mu.Unlock()
	if len(gone) > 0 {
		signal(t.changed)
	}
	return len(gone), t.write(ctx, gone)
}

// Evict unlists every key of u (unreachable for too long) and returns how
// many there were.
func (t *Table) Evict(ctx context.Context, u string) (int, error) {
	return t.Forget(ctx, u, t.KeysAt(u))
}

// PartyInfo returns this instance's table (listed entries, own keys
// included) as sent to peers.
func (t *Table) PartyInfo() *PartyInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	p := &PartyInfo{URL: t.self, NodePKs: make(map[string]string, len(t.byKey))}
	set := map[string]bool{}
	for k, u := range t.byKey {
		p.NodePKs[k.String()] = u
		set[u] = true
	}
	p.NodeURLs = slices.Sorted(maps.Keys(set))
	return p
}

// OwnPartyInfo returns a party-info table of this instance's own keys only:
// what an instance that has proved nothing here is told.
func (t *Table) OwnPartyInfo() *PartyInfo {
	p := &PartyInfo{URL: t.self, NodeURLs: []string{t.self}, NodePKs: make(map[string]string, len(t.ownIDs))}
	for _, k := range t.ownIDs {
		p.NodePKs[k.String()] = t.self
	}
	return p
}

// PartyInfoFor returns what this instance sends when it polls u: the table
// when u is a listed instance and discovery is on, else its own keys only.
func (t *Table) PartyInfoFor(u string) *PartyInfo {
	if t.fixed == nil && t.IsPeer(u) {
		return t.PartyInfo()
	}
	return t.OwnPartyInfo()
}
