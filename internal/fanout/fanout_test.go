package fanout

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestEach(t *testing.T) {
	got, err := Each(context.Background(), nil, 100, 4, func(_ context.Context, i int) (int, error) { return i * i, nil })
	if err != nil || len(got) != 100 || got[7] != 49 || got[99] != 99*99 {
		t.Fatalf("answers %v, %v", got, err)
	}
	// The first error stops the rest and is what Each returns.
	boom := errors.New("boom")
	var calls atomic.Int64
	_, err = Each(context.Background(), nil, 1000, 2, func(ctx context.Context, i int) (int, error) {
		calls.Add(1)
		if i == 3 {
			return 0, boom
		}
		return i, ctx.Err()
	})
	if !errors.Is(err, boom) || calls.Load() == 1000 {
		t.Fatalf("err %v after %d calls, want boom before all 1000", err, calls.Load())
	}
	// A stop closed midway is an error, never a partial answer.
	stop := make(chan struct{})
	_, err = Each(context.Background(), stop, 1000, 1, func(ctx context.Context, i int) (int, error) {
		if i == 5 {
			close(stop)
			<-ctx.Done()
		}
		return i, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped: err %v, want context.Canceled", err)
	}
}
