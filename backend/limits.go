package backend

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// The limits of simulated calls, from Config with Besu's defaults.

// defaultEstimateTolerance is where the gas estimate's binary search
// stops (--estimate-gas-tolerance-ratio's default).
const defaultEstimateTolerance = 0.015

// Defaults of the simulation limits (--rpc-simulate-max-blocks,
// --rpc-simulate-gas-cap).
const (
	// DefaultSimulateMaxBlocks is the spec's recommended bound: BLOCKHASH's
	// window.
	DefaultSimulateMaxBlocks = 256
	// DefaultSimulateGasCap bounds the gas all the calls of one request may
	// use together: go-ethereum's --rpc.gascap, with which the reference
	// answers (execution-apis tests/eth_simulateV1) were made. A call's gas
	// is part of its transaction's hash, so a different budget changes the
	// hashes, transactionsRoot and block hashes of the answers.
	DefaultSimulateGasCap = 50_000_000
)

// EstimateTolerance is --estimate-gas-tolerance-ratio.
func (b *Backend) EstimateTolerance() float64 {
	if b.Config.EstimateTolerance > 0 {
		return b.Config.EstimateTolerance
	}
	return defaultEstimateTolerance
}

// CallGas is the gas a simulation of a call in the block of header runs
// with: the call's gas, or else the block's (see DefaultCallGas), and never
// more than --rpc-gas-cap, which also stands in for a missing gas (Besu's
// TransactionSimulator.calculateSimulationGasCap). The option's default, 0,
// caps at the block's gas as its documentation says: without a cap one
// request naming a huge gas could loop for the whole JSON-RPC timeout.
func (b *Backend) CallGas(header *types.Header, given *uint64) uint64 {
	limit := b.CallGasCap(header)
	if given == nil {
		return limit
	}
	return min(*given, limit)
}

// CallGasCap is the most gas one call in the block of header may use:
// --rpc-gas-cap, or when it is 0 the block's gas (DefaultCallGas).
func (b *Backend) CallGasCap(header *types.Header) uint64 {
	if b.Config.GasCap > 0 {
		return b.Config.GasCap
	}
	return DefaultCallGas(b.Chain.Config(), header)
}

// DefaultCallGas is the gas of a call that names none: the block's gas
// limit, bounded by the per-transaction cap where a fork has one (Besu's
// calculateSimulationGasCap without --rpc-gas-cap).
func DefaultCallGas(cfg *params.ChainConfig, header *types.Header) uint64 {
	gas := header.GasLimit
	if cfg.IsOsaka(header.Number, header.Time) {
		gas = min(gas, params.MaxTxGas)
	}
	return gas
}

// SimulateMaxBlocks is --rpc-simulate-max-blocks.
func (b *Backend) SimulateMaxBlocks() uint64 {
	if b.Config.SimulateMaxBlocks > 0 {
		return b.Config.SimulateMaxBlocks
	}
	return DefaultSimulateMaxBlocks
}

// SimulateGasCap is --rpc-simulate-gas-cap.
func (b *Backend) SimulateGasCap() uint64 {
	if b.Config.SimulateGasCap > 0 {
		return b.Config.SimulateGasCap
	}
	return DefaultSimulateGasCap
}

// PendingHeader is the header of the block that would follow the head, as
// Besu simulates it for "pending" estimates: the head's gas limit, the next
// base fee and blob excess, a slot later, the miner's coinbase.
func (b *Backend) PendingHeader() *types.Header {
	c := b.Chain
	cfg := c.Config()
	parent := c.CurrentHeader()
	h := &types.Header{
		ParentHash: c.CurrentHash(),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		Difficulty: new(big.Int).Set(parent.Difficulty),
		MixDigest:  parent.MixDigest,
		Time:       parent.Time + 1,
		UncleHash:  types.EmptyUncleHash,
	}
	if parent.Difficulty.Sign() == 0 {
		h.Time = parent.Time + 12 // a proof-of-stake slot
	}
	if b.Miner != nil {
		if cb, ok := b.Miner.Coinbase(); ok {
			h.Coinbase = cb
		}
	}
	if cfg.IsLondon(h.Number) {
		h.BaseFee = feemarket.CalcBaseFee(cfg, parent)
	}
	if cfg.IsShanghai(h.Number, h.Time) {
		h.WithdrawalsHash = &types.EmptyWithdrawalsHash
	}
	if cfg.IsCancun(h.Number, h.Time) {
		excess := eip4844.CalcExcessBlobGas(cfg, parent, h.Time)
		used := uint64(0)
		h.ExcessBlobGas, h.BlobGasUsed = &excess, &used
		h.ParentBeaconRoot = &common.Hash{}
	}
	return h
}
