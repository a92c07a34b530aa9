package config

import (
	"strings"
	"testing"
)

// config.qbft takes Besu's defaults (those of config.ibft2) and its own
// keys; config.transitions.qbft changes options from a block on.
func TestQBFTGenesis(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 1, "qbft": {}}, `+minimalHeader+`}`)
	q := g.QBFT
	if g.Consensus != "qbft" || q.BlockPeriodSeconds != 1 || q.RequestTimeoutSeconds != 1 || q.EpochLength != 30000 ||
		q.MessageQueueLimit != 1000 || q.DuplicateMessageLimit != 100 || q.FutureMessagesLimit != 1000 ||
		q.FutureMessagesMaxDistance != 10 || q.GossipedHistoryLimit != 1000 || q.BlockReward.Sign() != 0 ||
		q.StartBlock != 0 || q.ValidatorContractAddress != nil || len(q.Transitions) != 0 {
		t.Fatalf("defaults %+v", q)
	}
	g = mustParse(t, `{"config": {"chainId": 1,
		"qbft": {"blockperiodseconds": 2, "requesttimeoutseconds": 4, "emptyblockperiodseconds": 10, "blockreward": "0x10",
			"miningbeneficiary": "0x00000000000000000000000000000000000000bb", "validatorcontractaddress": "0x0000000000000000000000000000000000008888"},
		"transitions": {"qbft": [
			{"block": 5, "blockperiodseconds": 3, "validators": ["0x00000000000000000000000000000000000000a1"]},
			{"block": 9, "validatorselectionmode": "blockheader"},
			{"block": 12, "validatorselectionmode": "contract", "validatorcontractaddress": "0x0000000000000000000000000000000000009999"}
		]}}, `+minimalHeader+`}`)
	q = g.QBFT
	if q.BlockPeriodSeconds != 2 || q.RequestTimeoutSeconds != 4 || q.EmptyBlockPeriodSeconds != 10 || q.BlockReward.Int64() != 16 ||
		q.MiningBeneficiary == nil || q.ValidatorContractAddress == nil || len(q.Transitions) != 3 ||
		q.Transitions[0].Block != 5 || *q.Transitions[0].BlockPeriodSeconds != 3 || len(q.Transitions[0].Validators) != 1 ||
		q.Transitions[1].ValidatorSelectionMode != "blockheader" || q.Transitions[2].ValidatorContractAddress == nil {
		t.Fatalf("options %+v", q)
	}
	g = mustParse(t, `{"config": {"chainId": 1, "ibft2": {}, "qbft": {"startblock": 20}}, `+minimalHeader+`}`)
	if g.Consensus != "ibft2" || g.QBFT.StartBlock != 20 || g.IBFT2 == nil {
		t.Fatalf("migration %q %+v", g.Consensus, g.QBFT)
	}
}

// Start-up errors name the key.
func TestQBFTGenesisErrors(t *testing.T) {
	cases := map[string]string{
		`"qbft": {"blockperiodseconds": 0}`:                                                         "config.qbft.blockperiodseconds",
		`"qbft": {"requesttimeoutseconds": "x"}`:                                                    "config.qbft.requesttimeoutseconds",
		`"qbft": {"validatorcontractaddress": "0x12"}`:                                              "config.qbft.validatorcontractaddress",
		`"qbft": {"startblock": 5}`:                                                                 "config.qbft.startblock",
		`"ibft2": {}, "qbft": {"startblock": 0}`:                                                    "config.qbft.startblock",
		`"qbft": {}, "transitions": {"qbft": {}}`:                                                   "config.transitions.qbft",
		`"qbft": {}, "transitions": {"qbft": [{}]}`:                                                 "config.transitions.qbft[0].block",
		`"qbft": {}, "transitions": {"qbft": [{"block": 0}]}`:                                       "config.transitions.qbft[0].block",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5}, {"block": 5}]}`:                         "config.transitions.qbft[1].block",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "validatorselectionmode": "votes"}]}`:    "validatorselectionmode",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "validatorselectionmode": "contract"}]}`: "needs a validatorcontractaddress",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "validators": []}]}`:                     "config.transitions.qbft[0].validators",
		`"qbft": {}, "transitions": {"qbft": [{"block": 5, "blockperiodseconds": 0}]}`:              "config.transitions.qbft[0].blockperiodseconds",
		`"transitions": {"qbft": [{"block": 5}]}`:                                                   "needs config.qbft",
	}
	for cfg, want := range cases {
		_, err := ParseGenesis([]byte(`{"config": {"chainId": 1, ` + cfg + `}, ` + minimalHeader + `}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", cfg, err, want)
		}
	}
}

// TestEmptyBlockPeriodBesuKey: Besu's genesis spells the empty-block
// period "xemptyblockperiodseconds" (in the BFT object and in QBFT
// transitions); Basalt reads it as well as its own first spelling, and
// refuses the two disagreeing rather than pick one silently.
func TestEmptyBlockPeriodBesuKey(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 1,
		"qbft": {"blockperiodseconds": 2, "xemptyblockperiodseconds": 7},
		"transitions": {"qbft": [{"block": 5, "xemptyblockperiodseconds": 11}]}}, `+minimalHeader+`}`)
	if g.QBFT.EmptyBlockPeriodSeconds != 7 || len(g.QBFT.Transitions) != 1 ||
		g.QBFT.Transitions[0].EmptyBlockPeriodSeconds == nil || *g.QBFT.Transitions[0].EmptyBlockPeriodSeconds != 11 {
		t.Fatalf("qbft %+v", g.QBFT)
	}
	g = mustParse(t, `{"config": {"chainId": 1, "ibft2": {"xemptyblockperiodseconds": 4}}, `+minimalHeader+`}`)
	if g.IBFT2.EmptyBlockPeriodSeconds != 4 {
		t.Fatalf("ibft2 empty block period %d, want 4", g.IBFT2.EmptyBlockPeriodSeconds)
	}
	for _, doc := range []string{
		`{"config": {"chainId": 1, "qbft": {"xemptyblockperiodseconds": 7, "emptyblockperiodseconds": 8}}, ` + minimalHeader + `}`,
		`{"config": {"chainId": 1, "qbft": {}, "transitions": {"qbft": [{"block": 5, "xemptyblockperiodseconds": 1, "emptyblockperiodseconds": 2}]}}, ` + minimalHeader + `}`,
	} {
		if _, err := ParseGenesis([]byte(doc)); err == nil || !strings.Contains(err.Error(), "disagree") {
			t.Fatalf("disagreeing keys in %s: err %v", doc, err)
		}
	}
}
