package miner

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
)

// TxIterator walks pending transactions in inclusion order: by price across
// senders, by nonce within a sender.
type TxIterator interface {
	// Peek returns the next candidate, or nil when none are left.
	Peek() *types.Transaction
	// Shift accepts the candidate and moves to its sender's next nonce.
	Shift()
	// Pop drops the candidate's sender for the rest of the block.
	Pop()
}

// TxSource supplies the transactions for a new block.
type TxSource interface {
	PendingIterator(baseFee *big.Int) TxIterator
}

// pendingBlock is a sealed-to-be block with the state it produces.
type pendingBlock struct {
	block    *types.Block
	state    *state.StateDB
	receipts types.Receipts
	created  time.Time
}

// build assembles a block on the head with transactions from txs, stamped
// now (or the second after the head's, whichever is later).
func build(ctx context.Context, c *chain.Chain, txs TxSource, coinbase common.Address, extra []byte, now time.Time) (*pendingBlock, error) {
	parent := c.CurrentHeader()
	ts := uint64(now.Unix())
	if ts <= parent.Time {
		ts = parent.Time + 1
	}
	block, exec, err := Build(ctx, c, parent, c.CurrentHash(), ts, txs, coinbase, extra, nil)
	if err != nil {
		return nil, err
	}
	return &pendingBlock{block: block, state: exec.State, receipts: exec.Receipts, created: now}, nil
}

// Build assembles an unsealed block on parent (whose engine hash is
// parentHash) with timestamp ts, transactions from txs and the ommers
// uncles (which the caller has chosen; the engine's Finalize pays their
// rewards), and returns it with its executed state, ready for
// chain.InsertBlock once sealed. The miner and the test chain generator
// share it.
func Build(ctx context.Context, c *chain.Chain, parent *types.Header, parentHash common.Hash, ts uint64,
	txs TxSource, coinbase common.Address, extra []byte, uncles []*types.Header) (*types.Block, *chain.Executed, error) {
	cfg := c.Config()
	header := &types.Header{
		ParentHash: parentHash,
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		Time:       ts,
		Coinbase:   coinbase,
		Extra:      extra,
	}
	if cfg.IsLondon(header.Number) {
		header.BaseFee = eip1559.CalcBaseFee(cfg, parent)
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
	blockCtx := chain.NewBlockContext(cfg, c.Engine(), c, header)
	evm := vm.NewEVM(blockCtx, statedb, cfg, vm.Config{})
	defer evm.Release()
	chain.PreExecution(cfg, header, evm, statedb)

	var (
		signer   = types.MakeSigner(cfg, header.Number, header.Time)
		gp       = core.NewGasPool(header.GasLimit)
		included []*types.Transaction
		receipts types.Receipts
		allLogs  []*types.Log
	)
	if txs != nil {
		it := txs.PendingIterator(header.BaseFee)
		for tx := it.Peek(); tx != nil; tx = it.Peek() {
			if ctx.Err() != nil {
				break
			}
			if gp.Available(false) < params.TxGas {
				break
			}
			if tx.Gas() > gp.Available(false) {
				it.Pop()
				continue
			}
			msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
			if err != nil {
				it.Pop()
				continue
			}
			snap, gpSnap := statedb.Snapshot(), gp.Snapshot()
			statedb.SetTxContext(tx.Hash(), len(included), uint32(len(included)+1))
			receipt, _, err := core.ApplyTransactionWithEVM(ctx, msg, gp, statedb, header.Number, common.Hash{}, header.Time, tx, evm)
			switch {
			case errors.Is(err, core.ErrNonceTooLow):
				statedb.RevertToSnapshot(snap)
				gp.Set(gpSnap)
				it.Shift()
			case err != nil:
				statedb.RevertToSnapshot(snap)
				gp.Set(gpSnap)
				it.Pop()
			default:
				included = append(included, tx)
				receipts = append(receipts, receipt)
				allLogs = append(allLogs, receipt.Logs...)
				it.Shift()
			}
		}
	}
	requests, _, err := core.PostExecution(ctx, cfg, header.Number, header.Time, allLogs, withdrawals, evm, uint32(len(included)+1))
	if err != nil {
		return nil, nil, err
	}
	if cfg.IsPrague(header.Number, header.Time) {
		h := types.CalcRequestsHash(requests)
		header.RequestsHash = &h
	}
	c.Engine().Finalize(c, header, statedb, uncles)
	header.GasUsed = gp.Used()
	header.Root = statedb.IntermediateRoot(chain.Rules(cfg, header))

	body := &types.Body{Transactions: included, Uncles: uncles, Withdrawals: withdrawals}
	block := types.NewBlock(header, body, receipts, trie.NewStackTrie(nil))
	return block, &chain.Executed{State: statedb, Receipts: receipts}, nil
}
