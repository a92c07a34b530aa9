package driver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/metrics"
)

// value reads a gauge or counter of r (-1 when absent).
func value(t *testing.T, r *metrics.Registry, name string) float64 {
	t.Helper()
	fams, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name || len(f.GetMetric()) == 0 {
			continue
		}
		m := f.GetMetric()[0]
		if m.Counter != nil {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	return -1
}

// waitValue waits until name reads want.
func waitValue(t *testing.T, r *metrics.Registry, name string, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for value(t, r, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", name, value(t, r, name), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// The driver records the view and the commits: a lone validator commits
// at round 0; with a second validator that stays silent, the round timer
// moves the height to round 1.
func TestDriverMetrics(t *testing.T) {
	run := func(validators []common.Address, reg *metrics.Registry) (*fakeHost, func()) {
		host := newFakeHost(time.Unix(1000, 0))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, host, Config{
				Core:     bft.Config{Self: validators[0], RequestTimeout: time.Second, BlockPeriod: time.Second},
				Protocol: fakeProtocol{self: validators[0], validators: validators},
				Network:  &fakeNetwork{},
				Inbox:    make(chan Inbound),
				Metrics:  NewMetrics(reg, "test"),
			})
		}()
		return host, func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v", err)
			}
		}
	}

	reg := metrics.New(metrics.Config{Categories: []metrics.Category{metrics.Consensus}})
	host, stop := run([]common.Address{{0x01}}, reg)
	for range 2 {
		waitTimers(t, host.clock, 1)
		host.clock.Advance(time.Second)
		<-host.inserted
	}
	waitValue(t, reg, "besu_consensus_test_committed_blocks_total", 2)
	waitValue(t, reg, "besu_consensus_test_height", 3)
	if v := value(t, reg, "besu_consensus_test_round_changes_total"); v != 0 {
		t.Errorf("round changes %v with a lone validator", v)
	}
	stop()

	reg = metrics.New(metrics.Config{Categories: []metrics.Category{metrics.Consensus}})
	host, stop = run([]common.Address{{0x01}, {0x02}}, reg)
	waitTimers(t, host.clock, 1) // block timer
	host.clock.Advance(time.Second)
	waitTimers(t, host.clock, 1) // round timer of round 0
	host.clock.Advance(time.Second)
	waitValue(t, reg, "besu_consensus_test_round_changes_total", 1)
	waitValue(t, reg, "besu_consensus_test_round", 1)
	if v := value(t, reg, "besu_consensus_test_height"); v != 1 {
		t.Errorf("height %v, want 1", v)
	}
	if v := value(t, reg, "besu_consensus_test_committed_blocks_total"); v != 0 {
		t.Errorf("committed %v without a quorum", v)
	}
	stop()
}

// With MetricsAt each height reports under the metrics of its block's
// protocol, as a migration's IBFT 2.0 and QBFT parts do: heights 1 and 2
// under "before", 3 on under "after".
func TestDriverMetricsAt(t *testing.T) {
	reg := metrics.New(metrics.Config{Categories: []metrics.Category{metrics.Consensus}})
	before, after := NewMetrics(reg, "before"), NewMetrics(reg, "after")
	self := common.Address{0x01}
	host := newFakeHost(time.Unix(1000, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, host, Config{
			Core:     bft.Config{Self: self, RequestTimeout: time.Second, BlockPeriod: time.Second},
			Protocol: fakeProtocol{self: self, validators: []common.Address{self}},
			Network:  &fakeNetwork{},
			Inbox:    make(chan Inbound),
			MetricsAt: func(n uint64) Metrics {
				if n < 3 {
					return before
				}
				return after
			},
		})
	}()
	for range 3 {
		waitTimers(t, host.clock, 1)
		host.clock.Advance(time.Second)
		<-host.inserted
	}
	waitValue(t, reg, "besu_consensus_after_committed_blocks_total", 1)
	waitValue(t, reg, "besu_consensus_after_height", 4)
	if v := value(t, reg, "besu_consensus_before_committed_blocks_total"); v != 2 {
		t.Errorf("committed before the switch %v, want 2", v)
	}
	if v := value(t, reg, "besu_consensus_before_height"); v != 2 {
		t.Errorf("last height before the switch %v, want 2", v)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v", err)
	}
}
