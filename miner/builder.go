package miner

import (
	"context"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// TxIterator walks pending transactions in inclusion order: by price across
// senders, by nonce within a sender. It is the block executor's, which runs
// the loop that consumes it.
type TxIterator = chain.TxIterator

// TxSource supplies the transactions for a new block.
type TxSource interface {
	PendingIterator(baseFee *big.Int) TxIterator
}

// pendingBlock is a sealed-to-be block with the state it produces.
type pendingBlock struct {
	block *types.Block
	// ex is the block's execution (its state, receipts and, from
	// chain.Execute, what the chain verified); nil once inserted, as the
	// insert consumes the state.
	ex      *chain.Executed
	created time.Time
}

// build assembles a block on the head with transactions from txs, stamped
// now (or the second after the head's, whichever is later).
func build(ctx context.Context, c *chain.Chain, txs TxSource, coinbase common.Address, extra []byte, now time.Time, opts ...BuildOption) (*pendingBlock, error) {
	parent := c.CurrentHeader()
	ts := uint64(now.Unix())
	if ts <= parent.Time {
		ts = parent.Time + 1
	}
	block, exec, err := Build(ctx, c, parent, c.CurrentHash(), ts, txs, coinbase, extra, nil, opts...)
	if err != nil {
		return nil, err
	}
	return &pendingBlock{block: block, ex: exec, created: now}, nil
}

// BuildOption tunes Build.
type BuildOption func(*buildOptions)

type buildOptions struct {
	gasTarget uint64
}

// WithGasTarget moves the block's gas limit from its parent's toward target
// (--target-gas-limit) as far as one block may (see NextGasLimit); 0 keeps
// the parent's.
func WithGasTarget(target uint64) BuildOption {
	return func(o *buildOptions) { o.gasTarget = target }
}

// NextGasLimit is the gas limit of a block whose parent has gas limit
// parent, moved toward target by at most parent/1024 - 1 (Besu's
// FrontierTargetingGasLimitCalculator; the header rules allow a change
// below parent/1024) and never below 5000. target 0 keeps the parent's.
func NextGasLimit(parent, target uint64) uint64 {
	step := max(parent/params.GasLimitBoundDivisor, 1) - 1
	switch {
	case target == 0 || target == parent:
		return parent
	case target > parent:
		if parent > math.MaxUint64-step {
			return target // parent+step overflows, so target is within the step
		}
		return min(target, parent+step)
	default:
		return max(target, parent-step, params.MinGasLimit)
	}
}

// Build assembles an unsealed block on parent (whose engine hash is
// parentHash) with timestamp ts, transactions from txs and the ommers
// uncles (which the caller has chosen; the engine's Finalize pays their
// rewards), and returns it with its executed state, ready for
// chain.InsertBlock once sealed. The miner and the test chain generator
// share it. Build prepares the header; the chain's executor
// (chain.Executor.Build) runs the transactions, with the executor's
// precompiles, tracer and building policy.
func Build(ctx context.Context, c *chain.Chain, parent *types.Header, parentHash common.Hash, ts uint64,
	txs TxSource, coinbase common.Address, extra []byte, uncles []*types.Header, opts ...BuildOption) (*types.Block, *chain.Executed, error) {
	var o buildOptions
	for _, opt := range opts {
		opt(&o)
	}
	cfg := c.Config()
	header := &types.Header{
		ParentHash: parentHash,
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   NextGasLimit(parent.GasLimit, o.gasTarget),
		Time:       ts,
		Coinbase:   coinbase,
		Extra:      extra,
	}
	if cfg.IsLondon(header.Number) {
		header.BaseFee = feemarket.CalcBaseFee(cfg, parent)
		if !cfg.IsLondon(parent.Number) {
			header.GasLimit = parent.GasLimit * cfg.ElasticityMultiplier()
		}
	}
	if err := c.Engine().Prepare(c, header, parent); err != nil {
		return nil, nil, err
	}
	var withdrawals []*types.Withdrawal
	if cfg.IsShanghai(header.Number, header.Time) {
		withdrawals = []*types.Withdrawal{}
	}
	if cfg.IsCancun(header.Number, header.Time) {
		excess := eip4844.CalcExcessBlobGas(cfg, parent, header.Time)
		used := uint64(0)
		header.ExcessBlobGas = &excess
		header.BlobGasUsed = &used
		header.ParentBeaconRoot = new(common.Hash) // no consensus layer: zero root
	}

	statedb, err := c.StateAt(parent.Root)
	if err != nil {
		return nil, nil, err
	}
	var it chain.TxIterator
	if txs != nil {
		it = txs.PendingIterator(header.BaseFee)
		if d, ok := consensus.BuildBudget(ctx); ok {
			it = &budgetedTxs{TxIterator: it, until: time.Now().Add(d)}
		}
	}
	res, err := c.Executor().Build(ctx, header, statedb, it, uncles, withdrawals)
	if err != nil {
		return nil, nil, err
	}
	if cfg.IsPrague(header.Number, header.Time) {
		h := types.CalcRequestsHash(res.Requests)
		header.RequestsHash = &h
	}
	header.GasUsed = res.GasUsed
	header.Root = statedb.IntermediateRoot(chain.Rules(cfg, header))

	body := &types.Body{Transactions: res.Txs, Uncles: uncles, Withdrawals: withdrawals}
	block := types.NewBlock(header, body, res.Receipts, trie.NewStackTrie(nil))
	return block, &chain.Executed{State: statedb, Receipts: res.Receipts, Skipped: res.Skipped}, nil
}

// budgetedTxs ends the candidates once the build budget is spent (see
// consensus.WithBuildBudget). It reads the wall clock, not the node's: the
// budget is of execution time.
type budgetedTxs struct {
	TxIterator
	until time.Time
}

func (b *budgetedTxs) Peek() *types.Transaction {
	if time.Now().After(b.until) {
		return nil
	}
	return b.TxIterator.Peek()
}
