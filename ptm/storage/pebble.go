package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"

	cpebble "github.com/cockroachdb/pebble/v2"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
)

// pebbleCacheMB is the block cache of a payload store; payloads are read
// soon after they are written, mostly from the memtable.
const pebbleCacheMB = 16

// PebbleKV is a KV in an embedded Pebble database (through go-ethereum's
// ethdb wrapper). Pebble locks its directory, so one process owns it.
//
// Writes go through the database without a sync and are then made durable
// by syncing the write-ahead log (SyncKeyValue); Pebble groups concurrent
// syncs into one fsync, so concurrent writers share the cost.
type PebbleKV struct {
	db *pebble.Database
	// updateMu serializes Update's read-modify-write (and orders Puts of
	// the same process against it).
	updateMu sync.Mutex
}

// OpenPebble opens (creating if needed) the Pebble database in dir.
func OpenPebble(dir string) (*PebbleKV, error) {
	db, err := pebble.New(dir, pebbleCacheMB, 64, "", false)
	if err != nil {
		return nil, fmt.Errorf("open Pebble store %s: %w", dir, err)
	}
	return &PebbleKV{db: db}, nil
}

// Get implements KV.
func (s *PebbleKV) Get(_ context.Context, key []byte) ([]byte, error) {
	v, err := s.db.Get(key)
	if err != nil {
		if isNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return v, nil
}

// isNotFound recognizes the wrapper's missing-key error, which is Pebble's own.
func isNotFound(err error) bool { return errors.Is(err, cpebble.ErrNotFound) }

// Put implements KV.
func (s *PebbleKV) Put(_ context.Context, key, value []byte) error {
	if err := s.db.Put(key, value); err != nil {
		return err
	}
	return s.db.SyncKeyValue()
}

// Update implements KV.
func (s *PebbleKV) Update(ctx context.Context, key []byte, fn func([]byte, bool) ([]byte, bool, error)) error {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	old, err := s.Get(ctx, key)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	v, write, err := fn(old, found)
	if err != nil || !write {
		return err
	}
	return s.Put(ctx, key, v)
}

// Delete implements KV.
func (s *PebbleKV) Delete(_ context.Context, key []byte) error {
	if err := s.db.Delete(key); err != nil {
		return err
	}
	return s.db.SyncKeyValue()
}

// ForEach implements KV.
func (s *PebbleKV) ForEach(ctx context.Context, fn func(key, value []byte) error) error {
	it := s.db.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(append([]byte{}, it.Key()...), append([]byte{}, it.Value()...)); err != nil {
			return err
		}
	}
	return it.Error()
}

// Close implements KV.
func (s *PebbleKV) Close() error { return s.db.Close() }
