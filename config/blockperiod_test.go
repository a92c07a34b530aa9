package config

import (
	"strings"
	"testing"
	"time"
)

// Besu's xblockperiodmilliseconds, in config.ibft2, config.qbft and a QBFT
// transition: when not 0 it takes precedence over blockperiodseconds; 0
// (the default) leaves the seconds in force; a transition that leaves it
// out keeps the previous value, and one that sets 0 returns to seconds.
func TestBlockPeriodMilliseconds(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 1, "qbft": {}}, `+minimalHeader+`}`)
	if g.QBFT.BlockPeriodMilliseconds != 0 || g.QBFT.BlockPeriod() != time.Second {
		t.Fatalf("default: %d ms, period %v", g.QBFT.BlockPeriodMilliseconds, g.QBFT.BlockPeriod())
	}
	g = mustParse(t, `{"config": {"chainId": 1, "ibft2": {"blockperiodseconds": 5, "xblockperiodmilliseconds": 250}}, `+minimalHeader+`}`)
	if g.IBFT2.BlockPeriodSeconds != 5 || g.IBFT2.BlockPeriod() != 250*time.Millisecond {
		t.Fatalf("ibft2: %+v, period %v", g.IBFT2, g.IBFT2.BlockPeriod())
	}
	// Keys are case-insensitive, as every Besu BFT key; hex is accepted.
	g = mustParse(t, `{"config": {"chainId": 1, "qbft": {"XBlockPeriodMilliseconds": "0x64", "blockperiodseconds": 2},
		"transitions": {"qbft": [
			{"block": 10, "blockperiodseconds": 3},
			{"block": 20, "xblockperiodmilliseconds": 0},
			{"block": 30, "xblockperiodmilliseconds": 1500}
		]}}, `+minimalHeader+`}`)
	q := g.QBFT
	if q.BlockPeriodMilliseconds != 100 || q.BlockPeriod() != 100*time.Millisecond {
		t.Fatalf("qbft: %d ms, period %v", q.BlockPeriodMilliseconds, q.BlockPeriod())
	}
	tr := q.Transitions
	if len(tr) != 3 || tr[0].BlockPeriodMilliseconds != nil || *tr[0].BlockPeriodSeconds != 3 ||
		tr[1].BlockPeriodMilliseconds == nil || *tr[1].BlockPeriodMilliseconds != 0 ||
		tr[2].BlockPeriodMilliseconds == nil || *tr[2].BlockPeriodMilliseconds != 1500 {
		t.Fatalf("transitions %+v", tr)
	}
	for cfg, want := range map[string]string{
		`"qbft": {"xblockperiodmilliseconds": -1}`:                                                     "config.qbft.xblockperiodmilliseconds",
		`"qbft": {"xblockperiodmilliseconds": "fast"}`:                                                 "config.qbft.xblockperiodmilliseconds",
		`"ibft2": {"xblockperiodmilliseconds": 86400001}`:                                              "config.ibft2.xblockperiodmilliseconds",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "xblockperiodmilliseconds": 1.5}]}`:         "config.transitions.qbft[0].xblockperiodmilliseconds",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "xblockperiodmilliseconds": 99999999999}]}`: "config.transitions.qbft[0].xblockperiodmilliseconds",
	} {
		_, err := ParseGenesis([]byte(`{"config": {"chainId": 1, ` + cfg + `}, ` + minimalHeader + `}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", cfg, err, want)
		}
	}
}
