package consensus

import (
	"testing"
	"time"
)

func fired(t Timer) bool {
	select {
	case <-t.C():
		return true
	default:
		return false
	}
}

func TestManualClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	c := NewManualClock(start)
	if !c.Now().Equal(start) {
		t.Fatalf("now %v", c.Now())
	}
	late := c.NewTimer(3 * time.Second)
	early := c.NewTimer(time.Second)
	stopped := c.NewTimer(2 * time.Second)
	if now := c.NewTimer(0); !fired(now) {
		t.Fatal("timer of 0 did not fire at once")
	}
	if c.Timers() != 3 {
		t.Fatalf("%d timers waiting", c.Timers())
	}
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop must report true once")
	}

	c.Advance(999 * time.Millisecond)
	if fired(early) || fired(late) {
		t.Fatal("fired early")
	}
	c.Advance(time.Millisecond)
	if !fired(early) || fired(late) {
		t.Fatal("1s timer did not fire alone at 1s")
	}
	c.Advance(5 * time.Second)
	if !fired(late) || fired(stopped) {
		t.Fatal("3s timer did not fire, or the stopped one did")
	}
	if c.Timers() != 0 || late.Stop() {
		t.Fatal("fired timers still waiting")
	}
	if want := start.Add(6 * time.Second); !c.Now().Equal(want) {
		t.Fatalf("now %v, want %v", c.Now(), want)
	}
}

func TestSystemClock(t *testing.T) {
	tm := SystemClock.NewTimer(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(10 * time.Second):
		t.Fatal("system timer did not fire")
	}
	if d := time.Since(SystemClock.Now()); d < 0 || d > time.Minute {
		t.Fatalf("system clock off by %v", d)
	}
}

func TestOffsetClock(t *testing.T) {
	if OffsetClock(0) != SystemClock {
		t.Error("a zero offset is not the system clock")
	}
	for _, off := range []time.Duration{5 * time.Second, -5 * time.Second} {
		c := OffsetClock(off)
		before := time.Now()
		got := c.Now()
		after := time.Now()
		if got.Before(before.Add(off)) || got.After(after.Add(off)) {
			t.Errorf("offset %v: Now %v not within [%v, %v]", off, got, before.Add(off), after.Add(off))
		}
		tm := c.NewTimer(time.Millisecond)
		<-tm.C() // fires on real time whatever the offset
	}
}
