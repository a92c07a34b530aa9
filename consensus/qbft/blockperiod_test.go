package qbft

import (
	"testing"
	"time"
)

// xblockperiodmilliseconds in config.qbft and its transitions: a
// transition that sets only blockperiodseconds keeps the millisecond
// period in force (as Besu's QbftForksSchedulesFactory); 0 returns to
// seconds.
func TestScheduleBlockPeriodMilliseconds(t *testing.T) {
	g := parse(t, `"qbft": {"blockperiodseconds": 2, "xblockperiodmilliseconds": 250},
		"transitions": {"qbft": [
			{"block": 10, "blockperiodseconds": 3},
			{"block": 20, "xblockperiodmilliseconds": 0},
			{"block": 30, "xblockperiodmilliseconds": 100}]}`)
	segs, err := Schedule(g)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 3 * time.Second, 100 * time.Millisecond}
	if len(segs) != len(want) {
		t.Fatalf("%d segments", len(segs))
	}
	for i, s := range segs {
		if got := s.Config.BlockPeriod(); got != want[i] {
			t.Errorf("segment from %d: period %v, want %v", s.From, got, want[i])
		}
	}
}
