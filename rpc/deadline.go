package rpc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// lazyDeadline is a context with a deadline whose timer is armed only when
// someone asks for Done. Most JSON-RPC calls finish in microseconds without
// waiting on their context; for them context.WithTimeout would allocate a
// context and a runtime timer per request only to stop it again. Err still
// reports the deadline (and the parent's cancellation) without a timer.
//
// Once Done is called the context delegates to a real
// context.WithDeadline(parent, deadline), so contexts derived from it attach
// to that one directly.
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time
	mu       sync.Mutex // serialises arming
	armed    atomic.Pointer[armedDeadline]
}

type armedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func withLazyDeadline(parent context.Context, d time.Duration) *lazyDeadline {
	return &lazyDeadline{parent: parent, deadline: time.Now().Add(d)}
}

func (c *lazyDeadline) Deadline() (time.Time, bool) {
	if pd, ok := c.parent.Deadline(); ok && pd.Before(c.deadline) {
		return pd, true
	}
	return c.deadline, true
}

func (c *lazyDeadline) Done() <-chan struct{} {
	return c.arm().Done()
}

func (c *lazyDeadline) arm() context.Context {
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	ctx, cancel := context.WithDeadline(c.parent, c.deadline)
	c.armed.Store(&armedDeadline{ctx, cancel})
	return ctx
}

func (c *lazyDeadline) Err() error {
	if a := c.armed.Load(); a != nil {
		return a.ctx.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *lazyDeadline) Value(key any) any {
	if a := c.armed.Load(); a != nil {
		return a.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// release stops the timer, if one was armed.
func (c *lazyDeadline) release() {
	if a := c.armed.Load(); a != nil {
		a.cancel()
	}
}
