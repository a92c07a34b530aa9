package ethash

import (
	"context"
	"errors"
	"math/big"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func sealTestHeader(difficulty int64) *types.Header {
	return &types.Header{
		ParentHash: common.Hash{1},
		Number:     big.NewInt(1),
		Time:       1_700_000_000,
		Difficulty: big.NewInt(difficulty),
		GasLimit:   30_000_000,
		UncleHash:  types.EmptyUncleHash,
		Coinbase:   common.Address{0xc0},
	}
}

func TestSealVerifyRoundTrip(t *testing.T) {
	e := testEngine()
	for _, difficulty := range []int64{1, 2, 50} {
		header := sealTestHeader(difficulty)
		before := header.Hash()
		sealed, err := e.Seal(context.Background(), header)
		if err != nil {
			t.Fatalf("difficulty %d: %v", difficulty, err)
		}
		if header.Hash() != before {
			t.Fatalf("difficulty %d: Seal modified its argument", difficulty)
		}
		if SealHash(sealed) != SealHash(header) {
			t.Fatalf("difficulty %d: sealed header differs outside nonce and mix digest", difficulty)
		}
		if err := e.VerifyPoW(sealed); err != nil {
			t.Fatalf("difficulty %d: sealed header fails verification: %v", difficulty, err)
		}
		mix, _ := e.Compute(sealed.Number.Uint64(), SealHash(sealed), sealed.Nonce.Uint64())
		if mix != sealed.MixDigest {
			t.Fatalf("difficulty %d: Compute mix %x, sealed %x", difficulty, mix, sealed.MixDigest)
		}
	}
	if e.Hashrate() <= 0 {
		t.Error("hash rate is 0 right after sealing")
	}
}

func TestSealCancel(t *testing.T) {
	e := testEngine()
	// Practically unsealable: ~2^60 hashes.
	header := sealTestHeader(0)
	header.Difficulty = new(big.Int).Lsh(big.NewInt(1), 60)

	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Seal(ctx, header); !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
	t.Run("cancelled while mining", func(t *testing.T) {
		if _, err := e.cache(1); err != nil { // generate before counting goroutines
			t.Fatal(err)
		}
		base := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := e.Seal(ctx, header)
			done <- err
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Seal did not return after cancellation")
		}
		// Seal's workers must be gone (allow the runtime a moment to reap).
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > base {
			t.Fatalf("%d goroutines after Seal returned, %d before", n, base)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := e.Seal(ctx, header); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("bad header", func(t *testing.T) {
		h := sealTestHeader(0)
		if _, err := e.Seal(context.Background(), h); err == nil {
			t.Fatal("sealed a header with difficulty 0")
		}
	})
}

func TestHashrate(t *testing.T) {
	e := newTestEngine(Config{Threads: 1})
	clock := time.Unix(1_000_000, 0)
	e.now = func() time.Time { return clock }
	if r := e.Hashrate(); r != 0 {
		t.Fatalf("idle engine reports %v H/s", r)
	}

	// 100 hashes per second for 20 s converge towards 100 H/s.
	for range 20 {
		for range 10 {
			e.meter.mark(10)
			clock = clock.Add(100 * time.Millisecond)
		}
	}
	if r := e.Hashrate(); r < 95 || r > 105 {
		t.Fatalf("steady 100 H/s reads %v", r)
	}

	// Remote reports add up, replace earlier reports from the same id and
	// expire after 10 s.
	e.SubmitHashrate(common.Hash{1}, 1000)
	e.SubmitHashrate(common.Hash{2}, 500)
	e.SubmitHashrate(common.Hash{1}, 2000)
	if r := e.Hashrate(); r < 2595 || r > 2605 {
		t.Fatalf("local 100 + remote 2500 reads %v", r)
	}

	// Idle for longer than 3 s: local rate reads 0; remote expire later.
	clock = clock.Add(4 * time.Second)
	if r := e.Hashrate(); r != 2500 {
		t.Fatalf("idle local + remote 2500 reads %v", r)
	}
	clock = clock.Add(7 * time.Second)
	if r := e.Hashrate(); r != 0 {
		t.Fatalf("after remote expiry reads %v", r)
	}
}
