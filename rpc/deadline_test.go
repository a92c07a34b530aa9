package rpc

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLazyDeadline(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")

	c := withLazyDeadline(parent, 30*time.Millisecond)
	if c.Err() != nil || c.Value(key{}) != "v" {
		t.Fatal("fresh context")
	}
	if d, ok := c.Deadline(); !ok || time.Until(d) > 30*time.Millisecond {
		t.Fatal("deadline")
	}
	time.Sleep(40 * time.Millisecond)
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Fatalf("unarmed, expired: %v", c.Err())
	}
	select {
	case <-c.Done():
	case <-time.After(time.Second):
		t.Fatal("Done not closed after the deadline")
	}
	c.release()

	// Armed before the deadline: Done closes when it passes, and a derived
	// context follows.
	c = withLazyDeadline(parent, 20*time.Millisecond)
	child, cancel := context.WithCancel(c)
	defer cancel()
	select {
	case <-child.Done():
		if !errors.Is(child.Err(), context.DeadlineExceeded) || child.Value(key{}) != "v" {
			t.Fatalf("child: %v", child.Err())
		}
	case <-time.After(time.Second):
		t.Fatal("child not cancelled")
	}
	c.release()

	// Parent cancellation shows without arming.
	pctx, pcancel := context.WithCancel(parent)
	c = withLazyDeadline(pctx, time.Hour)
	pcancel()
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("parent cancelled: %v", c.Err())
	}
	<-c.Done()
	c.release()

	// An earlier parent deadline wins.
	dctx, dcancel := context.WithTimeout(parent, time.Millisecond)
	defer dcancel()
	c = withLazyDeadline(dctx, time.Hour)
	if d, _ := c.Deadline(); time.Until(d) > time.Second {
		t.Fatal("parent deadline ignored")
	}
	c.release()
}
