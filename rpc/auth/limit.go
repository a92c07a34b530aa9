package auth

import (
	"context"
	"runtime"
	"time"
)

// Defaults of NewLoginLimiter.
const (
	DefaultLoginQueue   = 32
	DefaultLoginMaxWait = 2 * time.Second
)

// LoginLimiter bounds the password checks running at once. bcrypt is meant
// to be slow (about 50-100 ms of CPU at cost 10), so without a bound a
// client could keep every core busy just by posting logins. A login takes
// one of a few slots for its check; up to a queue of others wait for a
// slot, for at most a maximum wait; any more are refused at once (429). So
// at most `concurrent` cores ever run bcrypt, and the rest of the node is
// unaffected by a login flood. One limiter may serve several endpoints
// (the node shares one between HTTP and WebSocket).
type LoginLimiter struct {
	slots   chan struct{}
	queue   chan struct{}
	maxWait time.Duration
}

// NewLoginLimiter returns a limiter with concurrent slots (0: a quarter of
// GOMAXPROCS, at least 1), room for queue waiting logins (0:
// DefaultLoginQueue; negative: none) each waiting at most maxWait (0:
// DefaultLoginMaxWait).
func NewLoginLimiter(concurrent, queue int, maxWait time.Duration) *LoginLimiter {
	if concurrent <= 0 {
		concurrent = max(1, runtime.GOMAXPROCS(0)/4)
	}
	switch {
	case queue == 0:
		queue = DefaultLoginQueue
	case queue < 0:
		queue = 0
	}
	if maxWait <= 0 {
		maxWait = DefaultLoginMaxWait
	}
	return &LoginLimiter{
		slots:   make(chan struct{}, concurrent),
		queue:   make(chan struct{}, concurrent+queue),
		maxWait: maxWait,
	}
}

// acquire takes a slot, waiting in the queue if there is room; it returns
// false, having taken nothing, when the queue is full, the wait is over or
// ctx ends. A successful acquire must be followed by release.
func (l *LoginLimiter) acquire(ctx context.Context) bool {
	select {
	case l.queue <- struct{}{}: // admitted (running or waiting)
	default:
		return false
	}
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(l.maxWait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	<-l.queue
	return false
}

func (l *LoginLimiter) release() {
	<-l.slots
	<-l.queue
}
