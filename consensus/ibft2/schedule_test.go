package ibft2

import (
	"strings"
	"testing"

	"github.com/basaltchain/basalt/config"
)

// Besu's config.transitions.ibft2 (BftFork): each transition is a segment
// from its block with its options over those before it, and a validators
// entry imposes that set; QBFT's selection keys are refused, and so are
// IBFT 2.0 transitions without config.ibft2.
func TestScheduleTransitions(t *testing.T) {
	g, err := config.ParseGenesis([]byte(`{"config": {"chainId": 1,
		"ibft2": {"blockperiodseconds": 2, "blockreward": "0x10"},
		"transitions": {"ibft2": [
			{"block": 10, "blockperiodseconds": 5},
			{"block": 20, "blockreward": "0x20", "validators": ["0x00000000000000000000000000000000000000a1"]},
			{"block": 30, "xblockperiodmilliseconds": 500}]}},
		"gasLimit": "0x1000000", "difficulty": "0x1", "alloc": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		block    uint64
		period   uint64
		millis   uint64
		reward   int64
		override bool
	}{{0, 2, 0, 16, false}, {9, 2, 0, 16, false}, {10, 5, 0, 16, false}, {25, 5, 0, 32, true}, {30, 5, 500, 32, false}}
	for _, w := range want {
		s := e.Segment(w.block)
		if s.Config.BlockPeriodSeconds != w.period || s.Config.BlockPeriodMilliseconds != w.millis ||
			s.Config.BlockReward.Int64() != w.reward || (s.Validators != nil) != w.override {
			t.Errorf("block %d: segment from %d, options %+v, validators %v", w.block, s.From, *s.Config, s.Validators)
		}
	}
	for doc, want := range map[string]string{
		`"ibft2": {}, "transitions": {"ibft2": [{"block": 5, "validatorselectionmode": "contract", "validatorcontractaddress": "0x0000000000000000000000000000000000008888"}]}`: "QBFT's",
		`"clique": {}, "transitions": {"ibft2": [{"block": 5}]}`:                                 "needs config.ibft2",
		`"ibft2": {}, "transitions": {"ibft2": [{"block": 5}, {"block": 5}]}`:                    "not above",
		`"ibft2": {}, "transitions": {"ibft2": [{"block": 5, "xemptyblockperiodseconds": "x"}]}`: "xemptyblockperiodseconds",
	} {
		_, err := config.ParseGenesis([]byte(`{"config": {"chainId": 1, ` + doc + `}, "gasLimit": "0x1000000", "difficulty": "0x1", "alloc": {}}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", doc, err, want)
		}
	}
}
