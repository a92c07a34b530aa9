package ethash

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

func TestFinalizeRewards(t *testing.T) {
	ether := func(milli int64) *uint256.Int { // milli-ether to wei
		return new(uint256.Int).Mul(uint256.NewInt(uint64(milli)), uint256.NewInt(1e15))
	}
	miner, uncleA, uncleB := common.Address{0xaa}, common.Address{0xbb}, common.Address{0xcc}
	byzantium := &params.ChainConfig{ChainID: big.NewInt(1), HomesteadBlock: big.NewInt(0), ByzantiumBlock: big.NewInt(0)}
	constantinople := *byzantium
	constantinople.ConstantinopleBlock = big.NewInt(0)

	tests := []struct {
		name   string
		config *params.ChainConfig
		uncles []*types.Header // numbers relative to block 100
		want   map[common.Address]*uint256.Int
	}{
		{
			name: "frontier, no uncles", config: frontierConfig(),
			want: map[common.Address]*uint256.Int{miner: ether(5000)},
		},
		{
			// Uncles at 99 and 94: 7/8 and 2/8 of 5 ETH; miner 5 + 2·5/32 ETH.
			name: "frontier, two uncles", config: frontierConfig(),
			uncles: []*types.Header{{Number: big.NewInt(99), Coinbase: uncleA}, {Number: big.NewInt(94), Coinbase: uncleB}},
			want:   map[common.Address]*uint256.Int{miner: new(uint256.Int).Add(ether(5312), uint256.NewInt(5e14)), uncleA: ether(4375), uncleB: ether(1250)},
		},
		{
			name: "byzantium, one uncle", config: byzantium,
			uncles: []*types.Header{{Number: big.NewInt(98), Coinbase: uncleA}},
			want:   map[common.Address]*uint256.Int{miner: new(uint256.Int).Add(ether(3000), uint256.NewInt(93750000000000000)), uncleA: ether(2250)},
		},
		{
			// Both uncles paid to the same account; the miner also mined one.
			name: "constantinople, shared coinbases", config: &constantinople,
			uncles: []*types.Header{{Number: big.NewInt(99), Coinbase: uncleA}, {Number: big.NewInt(97), Coinbase: miner}},
			want: map[common.Address]*uint256.Int{
				// miner: 2 + 2·2/32 = 2.125 ETH, plus 5/8·2 = 1.25 ETH as uncle
				miner:  ether(3375),
				uncleA: ether(1750),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
			if err != nil {
				t.Fatal(err)
			}
			header := &types.Header{Number: big.NewInt(100), Coinbase: miner}
			New(Config{}).Finalize(newFakeChain(tt.config), header, st, tt.uncles)
			for addr, want := range tt.want {
				if got := st.GetBalance(addr); !got.Eq(want) {
					t.Errorf("balance of %x: %v, want %v", addr, got, want)
				}
			}
		})
	}
}
