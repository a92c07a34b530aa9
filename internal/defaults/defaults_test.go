package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	for _, c := range []struct{ v, want int }{{0, 7}, {-1, 7}, {1, 1}, {9, 9}} {
		if got := Positive(c.v, 7); got != c.want {
			t.Errorf("Positive(%d, 7) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := Positive(time.Duration(0), time.Second); got != time.Second {
		t.Errorf("Positive(0s, 1s) = %v", got)
	}
	if got := Positive(-time.Second, time.Minute); got != time.Minute {
		t.Errorf("Positive(-1s, 1m) = %v", got)
	}
	if got := Positive(time.Millisecond, time.Minute); got != time.Millisecond {
		t.Errorf("Positive(1ms, 1m) = %v", got)
	}
}
