// Package feemarket holds the fee rules every part of the node must agree
// on (Besu's FeeMarket): the base fee of a block on a parent (EIP-1559's,
// or 0 on a zero-base-fee chain), and the gas limit and base fee checks of
// a header against its parent's. Block building, the engines' header
// checks, the transaction pool, the genesis loader and the fee APIs all
// call it, so it imports no Basalt package (as go-ethereum keeps
// consensus/misc/eip1559 apart from its engines).
package feemarket
