package ethash

import (
	"math/big"

	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/consensus"
)

// Block rewards in wei.
const (
	frontierBlockReward       = 5e18 // Frontier and Homestead
	byzantiumBlockReward      = 3e18 // from Byzantium (EIP-649)
	constantinopleBlockReward = 2e18 // from Constantinople (EIP-1234)
)

// BlockReward returns the static block reward in wei at block number:
// 5 ETH, 3 ETH from Byzantium, 2 ETH from Constantinople.
func BlockReward(config *params.ChainConfig, number *big.Int) *uint256.Int {
	switch {
	case config.IsConstantinople(number):
		return uint256.NewInt(constantinopleBlockReward)
	case config.IsByzantium(number):
		return uint256.NewInt(byzantiumBlockReward)
	default:
		return uint256.NewInt(frontierBlockReward)
	}
}

// Finalize credits the block and uncle rewards: the coinbase of each uncle
// gets (uncle.Number + 8 − header.Number) / 8 of the block reward, and the
// block's coinbase gets the block reward plus 1/32 of it per uncle.
func (e *Ethash) Finalize(chain consensus.ChainReader, header *types.Header, state vm.StateDB, uncles []*types.Header) {
	accumulateRewards(chain.Config(), state, header, uncles)
}

func accumulateRewards(config *params.ChainConfig, state vm.StateDB, header *types.Header, uncles []*types.Header) {
	reward := BlockReward(config, header.Number)
	minerReward := new(uint256.Int).Set(reward)
	number, _ := uint256.FromBig(header.Number)
	perUncle := new(uint256.Int).Rsh(reward, 5)
	for _, uncle := range uncles {
		// VerifyUncles guarantees number-7 <= uncle.Number < number, so the
		// factor is 1..7 (eighths); the subtraction cannot underflow.
		r, _ := uint256.FromBig(uncle.Number)
		r.AddUint64(r, 8)
		r.Sub(r, number)
		r.Mul(r, reward)
		r.Rsh(r, 3)
		state.AddBalance(uncle.Coinbase, r, tracing.BalanceIncreaseRewardMineUncle)
		minerReward.Add(minerReward, perUncle)
	}
	state.AddBalance(header.Coinbase, minerReward, tracing.BalanceIncreaseRewardMineBlock)
}
