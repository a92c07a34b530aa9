package storage

import (
	"context"
	"sync"
)

// MemoryKV is a KV in a map; its contents are lost on exit.
type MemoryKV struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemory returns an empty in-memory store.
func NewMemory() *MemoryKV { return &MemoryKV{m: make(map[string][]byte)} }

// Get implements KV.
func (s *MemoryKV) Get(_ context.Context, key []byte) ([]byte, error) {
	s.mu.RLock()
	v, ok := s.m[string(key)]
	s.mu.RUnlock()
	if !ok {
		return nil, ErrNotFound
	}
	return append([]byte{}, v...), nil
}

// Put implements KV.
func (s *MemoryKV) Put(_ context.Context, key, value []byte) error {
	v := append([]byte{}, value...)
	s.mu.Lock()
	s.m[string(key)] = v
	s.mu.Unlock()
	return nil
}

// Update implements KV.
func (s *MemoryKV) Update(_ context.Context, key []byte, fn func([]byte, bool) ([]byte, bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, found := s.m[string(key)]
	v, write, err := fn(append([]byte(nil), old...), found)
	if err != nil || !write {
		return err
	}
	s.m[string(key)] = append([]byte{}, v...)
	return nil
}

// Delete implements KV.
func (s *MemoryKV) Delete(_ context.Context, key []byte) error {
	s.mu.Lock()
	delete(s.m, string(key))
	s.mu.Unlock()
	return nil
}

// ForEach implements KV.
func (s *MemoryKV) ForEach(ctx context.Context, fn func(key, value []byte) error) error {
	s.mu.RLock()
	snapshot := make(map[string][]byte, len(s.m))
	for k, v := range s.m {
		snapshot[k] = v
	}
	s.mu.RUnlock()
	for k, v := range snapshot {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn([]byte(k), append([]byte{}, v...)); err != nil {
			return err
		}
	}
	return nil
}

// Close implements KV.
func (s *MemoryKV) Close() error { return nil }
