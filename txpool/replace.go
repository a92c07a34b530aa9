package txpool

import (
	"math/big"

	"github.com/holiman/uint256"
)

// shouldReplace is Besu's replacement rule (TransactionPoolReplacementHandler):
// cand replaces old, the pooled transaction with the same sender and nonce,
// if either sub-rule accepts it.
//
//   - Gas-price rule, when both are priced by gasPrice (types 0 and 1):
//     cand >= old*(100+bump)/100, rounded down.
//   - Fee-market rule, when either is an EIP-1559 type and the head has a base
//     fee: compare effective prices min(maxFee, baseFee+tip) and effective
//     tips at the head's base fee. Accept if the price rose by bump% and the
//     tip did not fall, or the price is unchanged and the tip rose by bump%.
//
// Note that the fee-market rule is about what the transaction pays at the
// current base fee: raising both maxFeePerGas and maxPriorityFeePerGas by 10%
// is not enough when the base fee is far below maxFeePerGas, because then the
// effective price rises by less than 10%.
func shouldReplace(old, cand *entry, baseFee *uint256.Int, bump uint64) bool {
	oldDyn, newDyn := old.dynamicFee(), cand.dynamicFee()
	if !oldDyn && !newDyn {
		// Both gasPrice-priced; feeCap holds the gas price.
		var threshold uint256.Int
		if _, overflow := threshold.MulOverflow(&old.feeCap, uint256.NewInt(100+bump)); overflow {
			t := old.feeCap.ToBig()
			t.Mul(t, new(big.Int).SetUint64(100+bump))
			t.Quo(t, big.NewInt(100))
			return cand.feeCap.ToBig().Cmp(t) >= 0
		}
		threshold.Div(&threshold, uint256.NewInt(100))
		return !cand.feeCap.Lt(&threshold)
	}
	if baseFee == nil {
		return false
	}
	var oldPrice, newPrice, oldTip, newTip uint256.Int
	effectivePrice(&oldPrice, &old.feeCap, &old.tipCap, baseFee)
	effectivePrice(&newPrice, &cand.feeCap, &cand.tipCap, baseFee)
	effectiveTip(&oldTip, &old.feeCap, &old.tipCap, baseFee)
	effectiveTip(&newTip, &cand.feeCap, &cand.tipCap, baseFee)
	switch {
	case isBumpedBy(&oldPrice, &newPrice, bump):
		return !newTip.Lt(&oldTip)
	case oldPrice.Eq(&newPrice):
		return isBumpedBy(&oldTip, &newTip, bump)
	}
	return false
}

// isBumpedBy reports whether val*(100+bump) <= bumpVal*100 (Besu's
// isBumpedBy), falling back to big integers when a product overflows.
func isBumpedBy(val, bumpVal *uint256.Int, bump uint64) bool {
	var lhs, rhs uint256.Int
	_, lo := lhs.MulOverflow(val, uint256.NewInt(100+bump))
	_, ro := rhs.MulOverflow(bumpVal, uint256.NewInt(100))
	if lo || ro {
		l := val.ToBig()
		l.Mul(l, new(big.Int).SetUint64(100+bump))
		r := bumpVal.ToBig()
		r.Mul(r, big.NewInt(100))
		return l.Cmp(r) <= 0
	}
	return !lhs.Gt(&rhs)
}
