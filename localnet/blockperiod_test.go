package localnet

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/config"
)

// --block-period: a BFT period that is not whole seconds goes into the
// genesis as xblockperiodmilliseconds, whole seconds as
// blockperiodseconds; the network records it; too short, malformed or
// sub-second Clique periods are refused.
func TestBlockPeriodSetting(t *testing.T) {
	for _, c := range []struct {
		consensus, period string
		want              time.Duration
		ms, secs          uint64
	}{
		{"qbft", "", time.Second, 0, 1},
		{"qbft", "250ms", 250 * time.Millisecond, 250, 1},
		{"ibft2", "100ms", 100 * time.Millisecond, 100, 1},
		{"qbft", "1500ms", 1500 * time.Millisecond, 1500, 1},
		{"qbft", "2s", 2 * time.Second, 0, 2},
	} {
		s := Settings{Validators: 1, Consensus: c.consensus, BasePort: 20000, BlockPeriod: c.period}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "net")
		m, err := create(dir, s)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ReadManifest(dir); err != nil || back.BlockPeriod != c.period {
			t.Fatalf("%s: manifest %+v %v", c.period, back, err)
		}
		g, err := config.LoadGenesisFile(filepath.Join(dir, m.Genesis))
		if err != nil {
			t.Fatal(err)
		}
		bc := g.IBFT2
		if c.consensus == "qbft" {
			bc = &g.QBFT.IBFT2Config
		}
		if bc.BlockPeriod() != c.want || bc.BlockPeriodMilliseconds != c.ms || bc.BlockPeriodSeconds != c.secs {
			t.Errorf("%s %s: genesis period %v (%d ms, %d s)", c.consensus, c.period, bc.BlockPeriod(), bc.BlockPeriodMilliseconds, bc.BlockPeriodSeconds)
		}
	}
	for _, c := range []struct{ consensus, period, want string }{
		{"qbft", "50ms", "at least 100ms"},
		{"qbft", "fast", "not a duration"},
		{"qbft", "150500us", "whole milliseconds"},
		{"clique", "500ms", "Clique periods are whole seconds"},
	} {
		s := Settings{Validators: 4, Consensus: c.consensus, BasePort: 20000, BlockPeriod: c.period}
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.consensus, c.period, err, c.want)
		}
	}
	// A resumed network keeps its period: the same period spelled
	// otherwise is no change, another one is refused.
	changed := func(o string) bool { return o == "block-period" }
	have := Settings{Validators: 4, Consensus: "qbft", BlockPeriod: "1s"}
	if err := sameSettings("d", have, Settings{Validators: 4, Consensus: "qbft", BlockPeriod: "1000ms"}, changed); err != nil {
		t.Fatal(err)
	}
	if err := sameSettings("d", have, Settings{Validators: 4, Consensus: "qbft", BlockPeriod: "250ms"}, changed); err == nil {
		t.Fatal("another period accepted for a resumed network")
	}
}
