package miner

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/ethash"
)

var testCoinbase = common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")

// testEngine is ethash without proof of work: it checks every header rule
// but the seal, and seals with the function the test gives.
type testEngine struct {
	*ethash.Ethash
	seal func(ctx context.Context, h *types.Header) (*types.Header, error)
}

func (e *testEngine) VerifyHeader(c consensus.ChainReader, h, parent *types.Header, _ bool) error {
	return e.Ethash.VerifyHeader(c, h, parent, false)
}

func (e *testEngine) Seal(ctx context.Context, h *types.Header) (*types.Header, error) {
	if e.seal == nil {
		return types.CopyHeader(h), nil
	}
	return e.seal(ctx, h)
}

// sealCounter is a seal function that counts its calls and answers err.
type sealCounter struct {
	calls atomic.Int32
	err   error
}

func (s *sealCounter) seal(context.Context, *types.Header) (*types.Header, error) {
	s.calls.Add(1)
	return nil, s.err
}

func newTestChain(t *testing.T, seal func(context.Context, *types.Header) (*types.Header, error)) *chain.Chain {
	t.Helper()
	g := config.DevGenesis()
	e := &testEngine{Ethash: ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty, Threads: 1}), seal: seal}
	c, err := chain.Open(chain.NewMemoryDatabase(), g.Core, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// extend inserts a block on the head from outside the miner (a peer's).
func extend(t *testing.T, c *chain.Chain, coinbase common.Address) {
	t.Helper()
	parent := c.CurrentHeader()
	block, exec, err := Build(context.Background(), c, parent, c.CurrentHash(), parent.Time+1, nil, coinbase, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertBlock(context.Background(), block, chain.InsertOptions{Executed: exec}); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a logger's text output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stays checks that cond holds for a while: the loop, free to run, does
// not do what cond rules out (a spinning loop would within milliseconds).
func stays(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 30 {
		if !cond() {
			t.Fatalf("%s changed", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An engine that cannot seal makes the loop wait for a new head: one seal
// attempt per head, no work handed out, the reason logged once.
func TestCannotSealWaitsForHead(t *testing.T) {
	s := &sealCounter{err: &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}}
	c := newTestChain(t, s.seal)
	var logs logBuffer
	m := New(c, nil, Config{Coinbase: &testCoinbase, PoW: ethash.New(ethash.Config{})}, logs.logger())
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	eventually(t, "a seal attempt", func() bool { return s.calls.Load() == 1 })
	stays(t, "the number of seal attempts", func() bool { return s.calls.Load() == 1 })
	if _, _, _, err := m.GetWork(); err != ErrNoWork {
		t.Fatalf("work offered for a block the engine refused: %v", err)
	}
	extend(t, c, common.Address{1})
	eventually(t, "a seal attempt on the new head", func() bool { return s.calls.Load() == 2 })
	stays(t, "the number of seal attempts", func() bool { return s.calls.Load() == 2 })
	if n := strings.Count(logs.String(), `msg="Mining paused" reason="not authorised"`); n != 1 {
		t.Fatalf("pause logged %d times:\n%s", n, logs.String())
	}
	if !m.Mining() {
		t.Fatal("a waiting miner is still mining")
	}
}

// A CannotSealError with Retry makes the loop try again after Retry on its
// clock, not before, even without a new head.
func TestCannotSealRetriesOnClock(t *testing.T) {
	s := &sealCounter{err: &consensus.CannotSealError{Reason: consensus.ReasonNotMyTurn, Retry: 4 * time.Second}}
	c := newTestChain(t, s.seal)
	clock := consensus.NewManualClock(time.Now())
	m := New(c, nil, Config{Coinbase: &testCoinbase, Clock: clock}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	eventually(t, "a seal attempt and the retry timer", func() bool { return s.calls.Load() == 1 && clock.Timers() == 1 })
	clock.Advance(3 * time.Second)
	stays(t, "the number of seal attempts", func() bool { return s.calls.Load() == 1 })
	clock.Advance(time.Second)
	eventually(t, "the retry", func() bool { return s.calls.Load() == 2 })
}

// flipScheduler refuses to seal (as beacon does on a post-merge head) until
// allowed, then allows sealing from a set time.
type flipScheduler struct {
	allowed atomic.Pointer[time.Time]
	asked   atomic.Int32
}

func (f *flipScheduler) NextSeal(_ consensus.ChainReader, _ *types.Header, _ time.Time) (time.Time, error) {
	f.asked.Add(1)
	at := f.allowed.Load()
	if at == nil {
		return time.Time{}, &consensus.CannotSealError{Reason: consensus.ReasonPostMerge}
	}
	return *at, nil
}

// The Scheduler is asked before anything is built: a refusal means no
// block, no work and no seal until a new head; a time means waiting for it.
func TestSchedulerRefusesAndDelays(t *testing.T) {
	var sealed atomic.Int32
	c := newTestChain(t, func(_ context.Context, h *types.Header) (*types.Header, error) {
		sealed.Add(1)
		return types.CopyHeader(h), nil
	})
	sched := &flipScheduler{}
	clock := consensus.NewManualClock(time.Now())
	var logs logBuffer
	m := New(c, nil, Config{Coinbase: &testCoinbase, PoW: ethash.New(ethash.Config{}), Scheduler: sched, Clock: clock}, logs.logger())
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	eventually(t, "the scheduler to be asked", func() bool { return sched.asked.Load() == 1 })
	stays(t, "the scheduler's answer", func() bool { return sched.asked.Load() == 1 && sealed.Load() == 0 })
	if _, _, _, err := m.GetWork(); err != ErrNoWork {
		t.Fatalf("work offered while the engine refuses: %v", err)
	}

	// Allowed after a new head, but only 10 s later.
	at := clock.Now().Add(10 * time.Second)
	sched.allowed.Store(&at)
	extend(t, c, common.Address{1})
	eventually(t, "the wait for the scheduled time", func() bool { return clock.Timers() == 1 })
	stays(t, "the seal count", func() bool { return sealed.Load() == 0 })
	clock.Advance(10 * time.Second)
	eventually(t, "a produced block", func() bool { return c.CurrentHeader().Number.Uint64() == 2 })
	if h := c.CurrentHeader(); h.Coinbase != testCoinbase {
		t.Fatalf("head %d by %s", h.Number, h.Coinbase)
	}
	out := logs.String()
	if strings.Count(out, `msg="Mining paused" reason="post-merge head"`) != 1 || !strings.Contains(out, `msg="Mining resumed"`) {
		t.Fatalf("logs:\n%s", out)
	}
}

// notSigner is a Scheduler refusing to seal because the node's key is not
// authorised (a Clique node that is no signer), until allowed.
type notSigner struct{ allowed atomic.Bool }

func (n *notSigner) NextSeal(_ consensus.ChainReader, _ *types.Header, now time.Time) (time.Time, error) {
	if !n.allowed.Load() {
		return time.Time{}, &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	return now, nil
}

// While the Scheduler says the node is not authorised to seal at all, the
// running loop is not mining (eth_mining false); once it may, it is.
func TestNotAuthorisedIsNotMining(t *testing.T) {
	c := newTestChain(t, func(_ context.Context, h *types.Header) (*types.Header, error) {
		return types.CopyHeader(h), nil
	})
	sched := &notSigner{}
	m := New(c, nil, Config{Coinbase: &testCoinbase, Scheduler: sched}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	eventually(t, "eth_mining false", func() bool { return !m.Mining() })
	sched.allowed.Store(true)
	extend(t, c, common.Address{1}) // a new head: ask again
	eventually(t, "a produced block", func() bool { return c.CurrentHeader().Number.Uint64() >= 2 })
	if !m.Mining() {
		t.Fatal("not mining once authorised")
	}
}

// An error that is not a CannotSealError is retried after a back-off, not
// at once.
func TestSealErrorBacksOff(t *testing.T) {
	s := &sealCounter{err: errors.New("disk on fire")}
	c := newTestChain(t, s.seal)
	clock := consensus.NewManualClock(time.Now())
	var logs logBuffer
	m := New(c, nil, Config{Coinbase: &testCoinbase, Clock: clock}, logs.logger())
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	eventually(t, "a seal attempt and the back-off timer", func() bool { return s.calls.Load() == 1 && clock.Timers() == 1 })
	stays(t, "the number of seal attempts", func() bool { return s.calls.Load() == 1 })
	clock.Advance(minBackoff)
	eventually(t, "the second attempt and a longer back-off", func() bool { return s.calls.Load() == 2 && clock.Timers() == 1 })
	clock.Advance(minBackoff)
	stays(t, "the number of seal attempts", func() bool { return s.calls.Load() == 2 })
	clock.Advance(minBackoff)
	eventually(t, "the third attempt", func() bool { return s.calls.Load() == 3 })
	if !strings.Contains(logs.String(), "disk on fire") {
		t.Fatalf("error not logged:\n%s", logs.String())
	}
}

// testProducer is a BFT-like producer: it proposes one block on the head
// through the host, waits to see it become the head, then imports a block
// "another validator" built, and idles until stopped.
type testProducer struct {
	t        *testing.T
	c        *chain.Chain
	clock    consensus.Clock
	runs     atomic.Int32
	produced chan common.Hash // heads the producer saw after its inserts
}

func (p *testProducer) Produce(ctx context.Context, h consensus.Host) error {
	p.runs.Add(1)
	if h.Clock() != p.clock {
		p.t.Error("host clock is not the miner's")
	}
	heads := make(chan consensus.Head)
	defer h.SubscribeHeads(heads)()

	parent := h.Chain().CurrentHeader()
	cand, err := h.Build(ctx, parent, p.c.Hash(parent), parent.Time+1)
	if err != nil {
		return err
	}
	if err := cand.Insert(ctx, cand.Block().Header()); err != nil {
		return err
	}
	if err := cand.Insert(ctx, cand.Block().Header()); err == nil {
		p.t.Error("a candidate was inserted twice")
	}
	head := <-heads
	p.produced <- head.Hash

	// A block from elsewhere, executed on import.
	other, _, err := Build(ctx, p.c, head.Header, head.Hash, head.Header.Time+1, nil, common.Address{7}, nil, nil)
	if err != nil {
		return err
	}
	if err := h.Import(ctx, other); err != nil {
		return err
	}
	head = <-heads
	p.produced <- head.Hash
	<-ctx.Done()
	return ctx.Err()
}

// A Producer replaces the sealing loop: it runs while mining is on, builds
// and imports through the host, is stopped by a pause and started again on
// resume.
func TestProducer(t *testing.T) {
	var sealed atomic.Int32
	c := newTestChain(t, func(_ context.Context, h *types.Header) (*types.Header, error) {
		sealed.Add(1)
		return types.CopyHeader(h), nil
	})
	clock := consensus.NewManualClock(time.Now())
	p := &testProducer{t: t, c: c, clock: clock, produced: make(chan common.Hash, 4)}
	m := New(c, nil, Config{Coinbase: &testCoinbase, Producer: p, Clock: clock}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	for i, coinbase := range []common.Address{testCoinbase, {7}} {
		select {
		case h := <-p.produced:
			if h != c.CurrentHash() || c.CurrentHeader().Coinbase != coinbase {
				t.Fatalf("block %d: head %s by %s", i+1, c.CurrentHash(), c.CurrentHeader().Coinbase)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("block %d not produced", i+1)
		}
	}
	if sealed.Load() != 0 {
		t.Fatal("the sealing loop ran beside the producer")
	}
	m.SetPaused(true)
	if m.Mining() {
		t.Fatal("paused producer reported mining")
	}
	m.SetPaused(false)
	eventually(t, "the producer to run again", func() bool { return p.runs.Load() == 2 })
	// Its proposal (block 3) and the import (block 4) again.
	eventually(t, "its blocks", func() bool { return c.CurrentHeader().Number.Uint64() == 4 })
}

// A producer whose Build is refused (beacon at the merge, through the
// Scheduler) is run again on a new head, not in a loop.
func TestProducerRefusedWaitsForHead(t *testing.T) {
	c := newTestChain(t, nil)
	sched := &flipScheduler{}
	p := &testProducer{t: t, c: c, clock: consensus.SystemClock, produced: make(chan common.Hash, 4)}
	m := New(c, nil, Config{Coinbase: &testCoinbase, Producer: p, Scheduler: sched}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	eventually(t, "a refused run", func() bool { return p.runs.Load() == 1 && sched.asked.Load() == 1 })
	stays(t, "the number of runs", func() bool { return p.runs.Load() == 1 })
	extend(t, c, common.Address{1})
	eventually(t, "a run on the new head", func() bool { return p.runs.Load() == 2 })
}
