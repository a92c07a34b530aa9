package txpool

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// TestShouldReplaceEdges covers the arithmetic edges of Besu's rule that the
// pool-level tests do not reach: prices near 2^256, fee caps at or below the
// base fee, a missing base fee.
func TestShouldReplaceEdges(t *testing.T) {
	max256 := new(uint256.Int).SetAllOne()
	half := new(uint256.Int).Rsh(max256, 1)
	mk := func(typ uint8, feeCap, tipCap *uint256.Int) *entry {
		var data types.TxData = &types.LegacyTx{}
		if typ == types.DynamicFeeTxType {
			data = &types.DynamicFeeTx{}
		}
		e := &entry{tx: types.NewTx(data)}
		e.feeCap.Set(feeCap)
		e.tipCap.Set(tipCap)
		return e
	}
	legacyAt := func(p *uint256.Int) *entry { return mk(types.LegacyTxType, p, p) }
	dyn := func(feeCap, tip uint64) *entry {
		return mk(types.DynamicFeeTxType, uint256.NewInt(feeCap), uint256.NewInt(tip))
	}
	base := uint256.NewInt(100)
	cases := []struct {
		name      string
		old, cand *entry
		baseFee   *uint256.Int
		want      bool
	}{
		{"legacy near 2^256, not enough", legacyAt(half), legacyAt(new(uint256.Int).AddUint64(half, 1)), base, false},
		{"legacy near 2^256, doubled", legacyAt(half), legacyAt(max256), base, true}, // old*110 overflows 256 bits
		{"1559 without base fee", dyn(2000, 1000), dyn(4000, 2000), nil, false},
		{"1559 fee caps below base fee: tips clamp to 0", dyn(50, 10), dyn(60, 20), base, true},
		{"1559 at 2^256", mk(types.DynamicFeeTxType, half, half), mk(types.DynamicFeeTxType, max256, max256), base, true},
		{"1559 same price, tip not raised", dyn(1100, 1000), dyn(1100, 1050), base, false},
	}
	for _, tc := range cases {
		if got := shouldReplace(tc.old, tc.cand, tc.baseFee, 10); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	var tip uint256.Int
	effectiveTip(&tip, uint256.NewInt(100), uint256.NewInt(5), nil)
	if tip.Uint64() != 5 {
		t.Errorf("tip without base fee = %d", tip.Uint64())
	}
	effectiveTip(&tip, uint256.NewInt(100), uint256.NewInt(5), uint256.NewInt(100))
	if !tip.IsZero() {
		t.Errorf("tip at fee cap = base fee: %d", tip.Uint64())
	}
}

func TestErrorIs(t *testing.T) {
	err := error(reject(NonceTooLow, "nonce %d", 1))
	if !errors.Is(err, &Error{Reason: NonceTooLow}) || errors.Is(err, &Error{Reason: NonceOverflow}) {
		t.Fatal("errors.Is does not match by reason")
	}
	if ReasonOf(errors.New("other")) != "" || (&Error{Reason: TxPoolFull}).Error() != "TX_POOL_FULL" {
		t.Fatal("ReasonOf / Error() without detail")
	}
}
