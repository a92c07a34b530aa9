// Package discovery keeps the node table — which instance (node URL) hosts
// which public key — and fills it the way Orion does: every instance polls
// POST /partyinfo on the URLs it knows, sending its own table and merging the
// reply; the polled instance merges the caller's table too.
//
// Merging only adds keys not yet in the table; an entry is never overwritten
// (an instance's own keys are set to its own URL at start-up). The table can
// be kept in a storage.KV (Orion's knownnodesstorage) so it survives a restart.
package discovery

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sync"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Table maps public keys to the node URL of the instance hosting them.
type Table struct {
	self string
	kv   storage.KV

	mu    sync.RWMutex
	byKey map[keys.PublicKey]string

	changed chan struct{}
}

// NewTable loads the table kept in kv (32-byte keys, URL values; other entries
// are ignored) and maps own to self, this instance's node URL.
func NewTable(ctx context.Context, kv storage.KV, self string, own []keys.PublicKey) (*Table, error) {
	t := &Table{self: self, kv: kv, byKey: map[keys.PublicKey]string{}, changed: make(chan struct{}, 1)}
	err := kv.ForEach(ctx, func(k, v []byte) error {
		if len(k) == keys.Size {
			t.byKey[keys.PublicKey(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load node table: %w", err)
	}
	for _, k := range own {
		if err := kv.Put(ctx, k[:], []byte(self)); err != nil {
			return nil, fmt.Errorf("store node table: %w", err)
		}
		t.byKey[k] = self
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

// Self returns this instance's node URL.
func (t *Table) Self() string { return t.self }

// URLFor returns the node URL hosting k.
func (t *Table) URLFor(k keys.PublicKey) (string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	u, ok := t.byKey[k]
	return u, ok
}

// Entries returns a copy of the table.
func (t *Table) Entries() map[keys.PublicKey]string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return maps.Clone(t.byKey)
}

// URLs returns the distinct node URLs in the table (this instance's included),
// sorted.
func (t *Table) URLs() []string {
	t.mu.RLock()
	set := map[string]bool{}
	for _, u := range t.byKey {
		set[u] = true
	}
	t.mu.RUnlock()
	return slices.Sorted(maps.Keys(set))
}

// Changed is signalled (without blocking, coalesced) when Merge adds entries.
func (t *Table) Changed() <-chan struct{} { return t.changed }

// Merge adds the entries of other whose keys are not in the table and reports
// how many it added. Added entries are persisted before Merge returns.
func (t *Table) Merge(ctx context.Context, other map[keys.PublicKey]string) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	added := 0
	for k, u := range other {
		if _, ok := t.byKey[k]; ok {
			continue
		}
		if err := t.kv.Put(ctx, k[:], []byte(u)); err != nil {
			return added, fmt.Errorf("store node table: %w", err)
		}
		t.byKey[k] = u
		added++
	}
	if added > 0 {
		select {
		case t.changed <- struct{}{}:
		default:
		}
	}
	return added, nil
}

// PartyInfo is Orion's party-info table (NetworkNodes) as sent on /partyinfo.
// Only URL and NodePKs are read.
type PartyInfo struct {
	URL      string            `cbor:"url,omitempty"`
	NodeURLs []string          `cbor:"nodeURLs"`
	NodePKs  map[string]string `cbor:"nodePKs"`
}

// PartyInfo returns this instance's table as sent to peers.
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

// Encode returns the CBOR of p.
func (p *PartyInfo) Encode() ([]byte, error) { return payload.Marshal(p) }

// DecodePartyInfo decodes and validates a CBOR party-info table and returns
// its key → URL entries. Every key must be a Base64 32-byte key and every URL
// an absolute http or https URL.
func DecodePartyInfo(data []byte) (*PartyInfo, map[keys.PublicKey]string, error) {
	var p PartyInfo
	if err := payload.Unmarshal(data, &p); err != nil {
		return nil, nil, err
	}
	entries := make(map[keys.PublicKey]string, len(p.NodePKs))
	for ks, u := range p.NodePKs {
		k, err := keys.ParsePublicKey(ks)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: nodePKs key %q: %v", payload.ErrMalformed, ks, err)
		}
		if err := CheckURL(u); err != nil {
			return nil, nil, fmt.Errorf("%w: nodePKs[%s]: %v", payload.ErrMalformed, ks, err)
		}
		entries[k] = u
	}
	return &p, entries, nil
}

// CheckURL accepts an absolute http or https URL with a host.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL with a host", s)
	}
	return nil
}
