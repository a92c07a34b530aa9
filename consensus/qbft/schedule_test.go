package qbft

import (
	"testing"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/ibft2"
)

const genesisHeader = `"nonce": "0x0", "timestamp": "0x0", "gasLimit": "0x1000000", "difficulty": "0x1", "alloc": {}`

func parse(t *testing.T, cfg string) *config.Genesis {
	t.Helper()
	g, err := config.ParseGenesis([]byte(`{"config": {"chainId": 1, ` + cfg + `}, ` + genesisHeader + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The schedule: IBFT 2.0 before the start block, QBFT from it, a segment
// per transition with the options carried forward, contract selection
// switched on and off by the transitions.
func TestSchedule(t *testing.T) {
	g := parse(t, `"ibft2": {"blockperiodseconds": 2}, "qbft": {"startblock": 10, "blockperiodseconds": 1},
		"transitions": {"qbft": [
			{"block": 12, "blockperiodseconds": 3},
			{"block": 15, "validatorselectionmode": "contract", "validatorcontractaddress": "0x0000000000000000000000000000000000008888"},
			{"block": 20, "validatorselectionmode": "blockheader", "validators": ["0x00000000000000000000000000000000000000a1"]}]}`)
	segs, err := Schedule(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 5 {
		t.Fatalf("%d segments", len(segs))
	}
	want := []struct {
		from     uint64
		qbft     bool
		period   uint64
		contract bool
		override bool
	}{{0, false, 2, false, false}, {10, true, 1, false, false}, {12, true, 3, false, false}, {15, true, 3, true, false}, {20, true, 3, false, true}}
	for i, w := range want {
		s := segs[i]
		_, isIBFT := s.Format.(ibft2.Format)
		if s.From != w.from || isIBFT == w.qbft || s.Config.BlockPeriodSeconds != w.period || (s.Contract != nil) != w.contract ||
			(s.Validators != nil) != w.override {
			t.Errorf("segment %d: %+v", i, s)
		}
	}
	if _, err := Schedule(parse(t, `"ibft2": {}, "qbft": {"startblock": 10}, "transitions": {"qbft": [{"block": 5}]}`)); err == nil {
		t.Error("a transition before the start block")
	}
	if _, err := Schedule(parse(t, `"qbft": {"validatorcontractaddress": "0x0000000000000000000000000000000000008888"},
		"transitions": {"qbft": [{"block": 5, "validators": ["0x00000000000000000000000000000000000000a1"]}]}`)); err == nil {
		t.Error("a validator override under contract selection")
	}
	// IBFT 2.0's own transitions run before the start block, not after.
	segs, err = Schedule(parse(t, `"ibft2": {"blockperiodseconds": 2}, "qbft": {"startblock": 10},
		"transitions": {"ibft2": [{"block": 4, "blockperiodseconds": 4}]}`))
	if err != nil || len(segs) != 3 || segs[1].From != 4 || segs[1].Config.BlockPeriodSeconds != 4 || segs[2].From != 10 {
		t.Fatalf("migration with IBFT 2.0 transitions: %v %+v", err, segs)
	}
	if _, err := Schedule(parse(t, `"ibft2": {}, "qbft": {"startblock": 10}, "transitions": {"ibft2": [{"block": 10}]}`)); err == nil {
		t.Error("an IBFT 2.0 transition at the QBFT start block")
	}
	e, err := New(parse(t, `"qbft": {}`), ibft2.Options{})
	if err != nil || e.Segment(0).Format.Spec().Name != "QBFT" {
		t.Fatalf("engine %v", err)
	}
}
