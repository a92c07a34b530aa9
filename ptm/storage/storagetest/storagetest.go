// Package storagetest is the conformance suite every storage.KV passes: the
// memory, Pebble and PostgreSQL stores run the same tests.
package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/basaltchain/basalt/ptm/storage"
)

// Opener opens a store for a test. Called twice in one test it must return
// handles on the same data (a reopen, or for a shared store, a second
// instance); Persistent says whether data survives Close.
type Opener struct {
	Open       func(t *testing.T) storage.KV
	Persistent bool
	// Shared says two handles may be open at once on the same data (a
	// shared PostgreSQL store); then Update atomicity is checked across them.
	Shared bool
}

// Run runs the suite.
func Run(t *testing.T, o Opener) {
	t.Run("GetMissing", func(t *testing.T) { testGetMissing(t, o) })
	t.Run("PutGetDelete", func(t *testing.T) { testPutGetDelete(t, o) })
	t.Run("Update", func(t *testing.T) { testUpdate(t, o) })
	t.Run("ConcurrentUpdate", func(t *testing.T) { testConcurrentUpdate(t, o) })
	t.Run("ForEach", func(t *testing.T) { testForEach(t, o) })
	t.Run("LargeValue", func(t *testing.T) { testLargeValue(t, o) })
	if o.Persistent {
		t.Run("Reopen", func(t *testing.T) { testReopen(t, o) })
	}
	if o.Shared {
		t.Run("SharedUpdate", func(t *testing.T) { testSharedUpdate(t, o) })
	}
}

var ctx = context.Background()

// key returns a key of the sizes the privacy manager uses: 32-byte public
// keys (node table) and 44-byte Base64 ids (payloads, groups).
func key(size int, tag string) []byte {
	k := make([]byte, size)
	copy(k, tag)
	return k
}

func open(t *testing.T, o Opener) storage.KV {
	kv := o.Open(t)
	t.Cleanup(func() { kv.Close() })
	return kv
}

func testGetMissing(t *testing.T, o Opener) {
	kv := open(t, o)
	if _, err := kv.Get(ctx, key(44, "missing")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if err := kv.Delete(ctx, key(44, "missing")); err != nil {
		t.Fatalf("Delete missing: %v", err)
	}
}

func testPutGetDelete(t *testing.T, o Opener) {
	kv := open(t, o)
	for _, size := range []int{1, 32, 44, 45} {
		k := key(size, "pgd")
		k[size-1] = 0xff // binary, not text
		if err := kv.Put(ctx, k, []byte("v1")); err != nil {
			t.Fatalf("Put %d-byte key: %v", size, err)
		}
		if err := kv.Put(ctx, k, []byte("v2")); err != nil {
			t.Fatal(err)
		}
		got, err := kv.Get(ctx, k)
		if err != nil || string(got) != "v2" {
			t.Fatalf("Get %d-byte key: %q %v", size, got, err)
		}
		got[0] = 'x' // the caller owns the returned slice
		if again, _ := kv.Get(ctx, k); string(again) != "v2" {
			t.Fatal("Get returned the store's own buffer")
		}
		if err := kv.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
		if _, err := kv.Get(ctx, k); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("Get after Delete: %v", err)
		}
	}
	// An empty value is a value, not a missing key.
	k := key(44, "empty")
	if err := kv.Put(ctx, k, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := kv.Get(ctx, k); err != nil || len(got) != 0 {
		t.Fatalf("empty value: %q %v", got, err)
	}
	// Keys differing only in trailing zero bytes are distinct.
	a, b := key(32, "z"), key(33, "z")
	kv.Put(ctx, a, []byte("a"))
	kv.Put(ctx, b, []byte("b"))
	if ga, _ := kv.Get(ctx, a); string(ga) != "a" {
		t.Fatalf("prefix keys collide: %q", ga)
	}
}

func testUpdate(t *testing.T, o Opener) {
	kv := open(t, o)
	k := key(44, "upd")
	err := kv.Update(ctx, k, func(old []byte, found bool) ([]byte, bool, error) {
		if found || old != nil {
			t.Errorf("absent key: found=%v old=%q", found, old)
		}
		return []byte("first"), true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = kv.Update(ctx, k, func(old []byte, found bool) ([]byte, bool, error) {
		if !found || string(old) != "first" {
			t.Errorf("present key: found=%v old=%q", found, old)
		}
		return append(old, "+second"...), true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// write=false and an error both leave the value alone.
	kv.Update(ctx, k, func([]byte, bool) ([]byte, bool, error) { return []byte("no"), false, nil })
	boom := errors.New("boom")
	if err := kv.Update(ctx, k, func([]byte, bool) ([]byte, bool, error) { return []byte("no"), true, boom }); !errors.Is(err, boom) {
		t.Fatalf("Update error: %v", err)
	}
	if got, _ := kv.Get(ctx, k); string(got) != "first+second" {
		t.Fatalf("after Update: %q", got)
	}
}

// increment adds 1 to the 8-byte counter under k.
func increment(kv storage.KV, k []byte) error {
	return kv.Update(ctx, k, func(old []byte, found bool) ([]byte, bool, error) {
		var n uint64
		if found {
			if len(old) != 8 {
				return nil, false, fmt.Errorf("counter is %d bytes", len(old))
			}
			n = binary.BigEndian.Uint64(old)
		}
		return binary.BigEndian.AppendUint64(nil, n+1), true, nil
	})
}

func counter(t *testing.T, kv storage.KV, k []byte) uint64 {
	t.Helper()
	v, err := kv.Get(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint64(v)
}

func hammer(t *testing.T, handles []storage.KV, k []byte, workers, each int) {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func(kv storage.KV) {
			defer wg.Done()
			for range each {
				if err := increment(kv, k); err != nil {
					errs <- err
					return
				}
			}
		}(handles[w%len(handles)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func testConcurrentUpdate(t *testing.T, o Opener) {
	kv := open(t, o)
	k := key(44, "counter")
	hammer(t, []storage.KV{kv}, k, 8, 25)
	if n := counter(t, kv, k); n != 200 {
		t.Fatalf("counter = %d after 200 concurrent increments", n)
	}
}

func testSharedUpdate(t *testing.T, o Opener) {
	a, b := open(t, o), open(t, o)
	k := key(44, "shared")
	hammer(t, []storage.KV{a, b}, k, 8, 20)
	if n := counter(t, b, k); n != 160 {
		t.Fatalf("counter = %d after 160 increments through two handles", n)
	}
	if err := a.Put(ctx, key(32, "from-a"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, key(32, "from-a")); err != nil || string(got) != "x" {
		t.Fatalf("write through one handle not seen by the other: %q %v", got, err)
	}
}

func testForEach(t *testing.T, o Opener) {
	kv := open(t, o)
	want := map[string]string{}
	for i := range 20 {
		k := key(32+i%13, fmt.Sprintf("fe%d", i))
		v := fmt.Sprintf("value %d", i)
		want[string(k)] = v
		if err := kv.Put(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	err := kv.ForEach(ctx, func(k, v []byte) error {
		if _, ok := want[string(k)]; ok {
			got[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("ForEach saw %d of %d entries", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("ForEach %x = %q, want %q", k, got[k], v)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := kv.ForEach(ctx, func(k, v []byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("ForEach did not stop: %v after %d", err, n)
	}
}

func testLargeValue(t *testing.T, o Opener) {
	kv := open(t, o)
	v := make([]byte, 4<<20)
	rand.Read(v)
	k := key(44, "large")
	if err := kv.Put(ctx, k, v); err != nil {
		t.Fatal(err)
	}
	got, err := kv.Get(ctx, k)
	if err != nil || !bytes.Equal(got, v) {
		t.Fatalf("large value: %d bytes, %v", len(got), err)
	}
}

func testReopen(t *testing.T, o Opener) {
	kv := o.Open(t)
	k := key(44, "persist")
	if err := kv.Put(ctx, k, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if err := increment(kv, key(44, "persist-counter")); err != nil {
		t.Fatal(err)
	}
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
	kv = open(t, o)
	if got, err := kv.Get(ctx, k); err != nil || string(got) != "kept" {
		t.Fatalf("after reopen: %q %v", got, err)
	}
	if n := counter(t, kv, key(44, "persist-counter")); n != 1 {
		t.Fatalf("counter after reopen = %d", n)
	}
}
