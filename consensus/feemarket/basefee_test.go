package feemarket

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// TestZeroBaseFee: a full parent raises EIP-1559's base fee from 0 to 1,
// a zero-base-fee chain keeps it at 0; its validation wants a base fee but
// not a value (Besu's), and keeps the gas limit rules; the flag belongs to
// the marked configuration only.
func TestZeroBaseFee(t *testing.T) {
	london := func() *params.ChainConfig {
		c := *params.AllEthashProtocolChanges
		c.LondonBlock = big.NewInt(0)
		return &c
	}
	plain, zero := london(), london()
	SetZeroBaseFee(zero)
	if IsZeroBaseFee(plain) || !IsZeroBaseFee(zero) || IsZeroBaseFee(nil) {
		t.Fatal("flag not per configuration")
	}
	parent := &types.Header{Number: big.NewInt(5), GasLimit: 30_000_000, GasUsed: 30_000_000, BaseFee: new(big.Int)}
	if got := CalcBaseFee(plain, parent); got.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("EIP-1559 after a full block at 0: %s", got)
	}
	if got := CalcBaseFee(zero, parent); got.Sign() != 0 {
		t.Fatalf("zeroBaseFee: %s", got)
	}
	header := &types.Header{Number: big.NewInt(6), GasLimit: 30_000_000, BaseFee: new(big.Int)}
	if err := VerifyGas(zero, header, parent); err != nil {
		t.Fatalf("base fee 0 refused: %v", err)
	}
	if err := VerifyGas(plain, header, parent); err == nil {
		t.Fatal("EIP-1559 chain accepted base fee 0 after a full block")
	}
	converted := &types.Header{Number: big.NewInt(6), GasLimit: 30_000_000, BaseFee: big.NewInt(875_000_000)}
	if err := VerifyGas(zero, converted, parent); err != nil {
		t.Fatalf("block of a chain before its conversion to zeroBaseFee refused: %v", err)
	}
	for _, bad := range []*types.Header{
		{Number: big.NewInt(6), GasLimit: 30_000_000},
		{Number: big.NewInt(6), GasLimit: 40_000_000, BaseFee: new(big.Int)},
	} {
		if err := VerifyGas(zero, bad, parent); err == nil {
			t.Errorf("zeroBaseFee accepted base fee %v gas limit %d", bad.BaseFee, bad.GasLimit)
		}
	}
}

// TestVerifyGasAnyLimit: GoQuorum's QBFT blocks may move the gas limit by
// any amount (besu#10723); the limit still bounds the gas used.
func TestVerifyGasAnyLimit(t *testing.T) {
	cfg := &params.ChainConfig{ChainID: big.NewInt(10), HomesteadBlock: big.NewInt(0), BerlinBlock: big.NewInt(0)}
	parent := &types.Header{Number: big.NewInt(1), GasLimit: 700_000_000}
	header := &types.Header{Number: big.NewInt(2), GasLimit: 30_000_000}
	if err := VerifyGas(cfg, header, parent); err == nil {
		t.Fatal("VerifyGas took a gas limit outside the 1/1024 bound")
	}
	if err := VerifyGasAnyLimit(cfg, header, parent); err != nil {
		t.Fatalf("GoQuorum's step: %v", err)
	}
	header.GasUsed = header.GasLimit + 1
	if err := VerifyGasAnyLimit(cfg, header, parent); err == nil {
		t.Fatal("gas used above the limit")
	}
	header.GasUsed, header.BaseFee = 0, big.NewInt(1)
	if err := VerifyGasAnyLimit(cfg, header, parent); err == nil {
		t.Fatal("base fee before London")
	}
}
