package ethash

import (
	"math/big"

	gethethash "github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// CalcDifficulty returns the difficulty of a block built on parent with the
// given timestamp: the configured fixed difficulty, or else mainnet's rules
// for the fork active at parent+1 (Frontier, Homestead, Byzantium, and the
// difficulty-bomb delays of Constantinople, Muir Glacier, London, Arrow
// Glacier and Gray Glacier), as go-ethereum computes them.
func (e *Ethash) CalcDifficulty(config *params.ChainConfig, time uint64, parent *types.Header) *big.Int {
	if e.fixedDifficulty != nil {
		return new(big.Int).Set(e.fixedDifficulty)
	}
	return gethethash.CalcDifficulty(config, time, parent)
}
