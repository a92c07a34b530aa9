package filters

import (
	"context"
	"crypto/rand"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// filter is an installed polling filter. It holds its position in the
// system's history (blocks or pending), not the changes themselves.
type filter struct {
	kind     Kind
	crit     *Criteria // log filters
	from, to Bound     // log filters
	cursor   uint64
	lastPoll time.Time
}

// NewLogFilter installs a log filter and returns its id. Its changes are
// the matching logs of blocks that join (or, with removed set, leave) the
// canonical chain after now, up to block to when to is a number.
func (s *System) NewLogFilter(from, to Bound, crit *Criteria) (string, error) {
	if crit == nil {
		crit = &Criteria{}
	}
	return s.install(&filter{kind: KindLogs, crit: crit, from: from, to: to})
}

// NewBlockFilter installs a filter whose changes are the hashes of new
// canonical blocks.
func (s *System) NewBlockFilter() (string, error) {
	return s.install(&filter{kind: KindBlocks})
}

// NewPendingTxFilter installs a filter whose changes are the hashes of
// transactions the pool accepts.
func (s *System) NewPendingTxFilter() (string, error) {
	return s.install(&filter{kind: KindPendingTxs})
}

func (s *System) install(f *filter) (string, error) {
	id, err := newFilterID()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.filters) >= s.cfg.MaxFilters {
		s.expireLocked(s.cfg.Now())
		if len(s.filters) >= s.cfg.MaxFilters {
			return "", ErrTooManyFilters
		}
	}
	f.lastPoll = s.cfg.Now()
	if f.kind == KindPendingTxs {
		f.cursor = s.pending.next
	} else {
		f.cursor = s.blocks.next
	}
	s.filters[id] = f
	return id, nil
}

// newFilterID returns 16 random bytes as a quantity, like Besu's
// FilterIdGenerator.
func newFilterID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "0x" + new(big.Int).SetBytes(b[:]).Text(16), nil
}

// canonicalID turns a filter id as a client sent it into the form ids are
// stored in: a quantity without leading zeros, lower case. Anything that is
// not a hex quantity of at most 16 bytes names no filter.
func canonicalID(id string) (string, bool) {
	if len(id) < 3 || (id[:2] != "0x" && id[:2] != "0X") {
		return "", false
	}
	digits := strings.TrimLeft(id[2:], "0")
	if len(digits) > 32 {
		return "", false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	if digits == "" {
		digits = "0"
	}
	return "0x" + strings.ToLower(digits), true
}

// Uninstall removes a filter; false when there is none with that id.
func (s *System) Uninstall(id string) bool {
	key, ok := canonicalID(id)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.filters[key]; !ok {
		return false
	}
	delete(s.filters, key)
	return true
}

// Changes are what a filter gathered since its last poll: block or
// transaction hashes, or logs, by the filter's kind.
type Changes struct {
	Kind   Kind
	Hashes []common.Hash
	Logs   []*types.Log
}

// Changes returns the filter's changes since the last poll and moves its
// poll point (eth_getFilterChanges); ErrFilterNotFound when there is no
// such filter or it expired.
func (s *System) Changes(ctx context.Context, id string) (Changes, error) {
	f, events, hashes, err := s.poll(id)
	if err != nil {
		return Changes{}, err
	}
	switch f.kind {
	case KindBlocks:
		out := make([]common.Hash, 0, len(events))
		for _, e := range events {
			if !e.removed {
				out = append(out, e.hash)
			}
		}
		return Changes{Kind: KindBlocks, Hashes: out}, nil
	case KindPendingTxs:
		return Changes{Kind: KindPendingTxs, Hashes: hashes}, nil
	}
	logs := []*types.Log{}
	for i, e := range events {
		if i%ctxCheckInterval == ctxCheckInterval-1 && ctx.Err() != nil {
			return Changes{}, ctx.Err()
		}
		if !f.to.Head && e.header.Number.Uint64() > f.to.Number {
			continue
		}
		if !s.mayMatch(f.crit, &e.header.Bloom) {
			continue
		}
		logs = append(logs, s.logsAt(e.hash, &e.header.Bloom, e.header.Number.Uint64(), f.crit, e.removed)...)
	}
	return Changes{Kind: KindLogs, Logs: logs}, nil
}

// poll takes the filter's share of the history and moves its cursor.
func (s *System) poll(id string) (f filter, events []blockEvent, hashes []common.Hash, err error) {
	key, ok := canonicalID(id)
	if !ok {
		return f, nil, nil, ErrFilterNotFound
	}
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	fp := s.lookupLocked(key, now)
	if fp == nil {
		return f, nil, nil, ErrFilterNotFound
	}
	fp.lastPoll = now
	if fp.kind == KindPendingTxs {
		hashes, fp.cursor = s.pending.since(fp.cursor, []common.Hash{})
	} else {
		events, fp.cursor = s.blocks.since(fp.cursor, nil)
	}
	return *fp, events, hashes, nil
}

// lookupLocked returns the live filter with the canonical id, dropping it
// if it has expired.
func (s *System) lookupLocked(key string, now time.Time) *filter {
	f := s.filters[key]
	if f == nil {
		return nil
	}
	if now.Sub(f.lastPoll) > s.cfg.FilterTimeout {
		delete(s.filters, key)
		return nil
	}
	return f
}

// FilterLogs runs a log filter's query over its whole range now
// (eth_getFilterLogs) and counts as a poll for its expiry.
// ErrLogFilterNotFound when there is no such log filter.
func (s *System) FilterLogs(ctx context.Context, id string) ([]*types.Log, error) {
	key, ok := canonicalID(id)
	if !ok {
		return nil, ErrLogFilterNotFound
	}
	now := s.cfg.Now()
	s.mu.Lock()
	f := s.lookupLocked(key, now)
	var q Query
	if f != nil && f.kind == KindLogs {
		f.lastPoll = now
		q = Query{From: f.from, To: f.to, Criteria: f.crit}
	}
	s.mu.Unlock()
	if f == nil || f.kind != KindLogs {
		return nil, ErrLogFilterNotFound
	}
	return s.Logs(ctx, q)
}

// FilterCount returns the number of installed filters.
func (s *System) FilterCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.filters)
}

// expire removes the filters not polled within the timeout.
func (s *System) expire() {
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked(now)
}

func (s *System) expireLocked(now time.Time) {
	for id, f := range s.filters {
		if now.Sub(f.lastPoll) > s.cfg.FilterTimeout {
			delete(s.filters, id)
		}
	}
}
