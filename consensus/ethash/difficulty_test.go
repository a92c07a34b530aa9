package ethash

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

func TestCalcDifficulty(t *testing.T) {
	e := New(Config{})
	frontier := &params.ChainConfig{ChainID: big.NewInt(1), Ethash: new(params.EthashConfig)}
	mainnet := params.MainnetChainConfig
	withUncles := common.Hash{1}

	tests := []struct {
		name       string
		config     *params.ChainConfig
		parentNum  uint64
		parentDiff string
		parentTime uint64
		uncles     bool
		time       uint64
		want       string
	}{
		// Mainnet block 1 on the genesis block (published values).
		{"frontier: mainnet block 1", mainnet, 0, "17179869184", 0, false, 1438269988, "17171480576"},
		// Frontier: +diff/2048 below 13 s, −diff/2048 from 13 s, floor 131072.
		{"frontier: fast block", frontier, 0, "131072", 1000, false, 1012, "131136"},
		{"frontier: 13 s", frontier, 5, "200000", 1000, false, 1013, "199903"},
		{"frontier: floor", frontier, 0, "131072", 1000, false, 1020, "131072"},
		// Homestead (EIP-2): diff + diff/2048·max(1 − Δt/10, −99) + 2^(⌊n/100000⌋−2).
		{"homestead: 25 s", mainnet, 1_200_000, "20000000000000", 0, false, 25, "19990234376024"},
		{"homestead: clamp at -99", mainnet, 1_200_000, "20000000000000", 0, false, 2000, "19033203126024"},
		// Byzantium (EIP-100, bomb delayed 3M): uncles count in the adjustment.
		{"byzantium: 9 s, parent with uncles", mainnet, 4_370_000, "2000000000000000", 0, true, 9, "2000976562502048"},
		{"byzantium: 9 s, no uncles", mainnet, 4_370_000, "2000000000000000", 0, false, 9, "2000000000002048"},
		// Constantinople (EIP-1234, bomb delayed 5M).
		{"constantinople: 17 s", mainnet, 7_280_000, "2000000000000000", 0, false, 17, "2000000001048576"},
		// Gray Glacier (EIP-5133, bomb delayed 11.4M).
		{"gray glacier: 13 s", mainnet, 15_050_000, "12000000000000000", 0, false, 13, "12000017179869184"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := &types.Header{
				Number:     new(big.Int).SetUint64(tt.parentNum),
				Difficulty: mustBig(t, tt.parentDiff),
				Time:       tt.parentTime,
				UncleHash:  types.EmptyUncleHash,
			}
			if tt.uncles {
				parent.UncleHash = withUncles
			}
			got := e.CalcDifficulty(tt.config, tt.time, parent)
			if got.Cmp(mustBig(t, tt.want)) != 0 {
				t.Errorf("difficulty %v, want %s", got, tt.want)
			}
		})
	}
}

func TestFixedDifficulty(t *testing.T) {
	e := New(Config{FixedDifficulty: big.NewInt(100)})
	parent := &types.Header{Number: big.NewInt(7), Difficulty: big.NewInt(5_000_000), Time: 10, UncleHash: types.EmptyUncleHash}
	for _, dt := range []uint64{1, 13, 1000} {
		got := e.CalcDifficulty(params.MainnetChainConfig, parent.Time+dt, parent)
		if got.Cmp(big.NewInt(100)) != 0 {
			t.Fatalf("Δt=%d: difficulty %v, want 100", dt, got)
		}
		got.SetInt64(1) // callers may keep and change the result
	}
	if got := e.CalcDifficulty(params.MainnetChainConfig, 20, parent); got.Int64() != 100 {
		t.Fatalf("engine's fixed difficulty changed to %v", got)
	}
}

func mustBig(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad number %q", s)
	}
	return v
}
