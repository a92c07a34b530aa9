// Package fanout runs one call per item of a list on a few goroutines and
// collects the answers in order: the privacy block hooks fetch a block's
// payloads from the privacy manager this way, before the chain's insert
// lock is taken.
package fanout

import (
	"context"
	"sync"
	"sync/atomic"
)

// Each calls get for i in [0, n) on up to workers goroutines and returns the
// answers by index. The first error stops the other calls (their ctx is
// cancelled) and is returned. When ctx ends or stop is closed first, Each
// returns ctx's error or context.Canceled: never a partial answer, which a
// caller could take for items that have none.
func Each[T any](ctx context.Context, stop <-chan struct{}, n, workers int, get func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	if n == 0 {
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		errOnce sync.Once
		first   error
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				got, err := get(ctx, i)
				if err != nil {
					errOnce.Do(func() { first = err; cancel() })
					return
				}
				out[i] = got
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
