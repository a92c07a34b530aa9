package miner

import "math/big"

var two256 = new(big.Int).Lsh(big.NewInt(1), 256)

// target is the PoW boundary 2^256/difficulty (eth_getWork's third item).
func target(difficulty *big.Int) *big.Int {
	if difficulty.Sign() <= 0 {
		return new(big.Int).Sub(two256, big.NewInt(1))
	}
	t := new(big.Int).Div(two256, difficulty)
	if t.Cmp(two256) >= 0 {
		t.Sub(two256, big.NewInt(1))
	}
	return t
}
