package chain

import (
	"context"
	"errors"
	"fmt"

	"github.com/basaltchain/basalt/quorumtx"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// WithGoQuorumPrivate makes the executor apply GoQuorum 24.4.1's rules to
// GoQuorum private transactions (legacy, V 37/38; package quorumtx), as on
// a GoQuorum chain (genesis isQuorum): their senders are recovered with
// GoQuorum's private signer, and their public effects are those GoQuorum
// has on every node. This node runs them as a node that is not a party
// (it has no private state), which GoQuorum makes agree with a party on
// the public state.
func WithGoQuorumPrivate() ExecOption {
	return func(o *execOptions) { o.goQuorum = true }
}

// Signer returns the signer of header's block: go-ethereum's for the
// chain's forks, wrapped to recover GoQuorum private transactions when the
// executor has WithGoQuorumPrivate.
func (x *Executor) Signer(header *types.Header) types.Signer {
	s := types.MakeSigner(x.config, header.Number, header.Time)
	if x.opts.goQuorum {
		return quorumtx.NewSigner(s)
	}
	return s
}

// isGoQuorumPrivate reports whether tx takes the GoQuorum private path.
func (x *Executor) isGoQuorumPrivate(tx *types.Transaction) bool {
	return x.opts.goQuorum && quorumtx.IsPrivate(tx)
}

// applyGoQuorumPrivate applies the public effects of a GoQuorum private
// transaction, which are the same on a party and on a non-party
// (GoQuorum's core/state_transition.go TransitionDb and
// core/state_processor.go applyTransaction, reference/goquorum-privacy.md
// §2):
//
//   - checks: the public nonce, the balance for gas×price, the block's gas
//     pool for the whole gas limit, intrinsic gas computed on the data (the
//     64-byte payload key, not the payload), and for a value the public
//     balance; a creation with a value fails, as it does on a GoQuorum
//     non-party, whose private state holds no balance to move;
//   - effects: the public nonce +1; the sender pays intrinsic gas × price,
//     which goes to the block's coinbase; execution gas is neither charged
//     nor taken from the block (the pool gets back all but the intrinsic
//     gas); nothing else of the public state changes;
//   - receipt: status 1 whatever the private execution did, gasUsed 0,
//     cumulative gas unchanged, no logs, the contract address a creation
//     would have; the header's gasUsed leaves the transaction out.
func (r *blockRun) applyGoQuorumPrivate(tx *types.Transaction, from common.Address) (*types.Receipt, error) {
	st := r.statedb
	if at := r.x.opts.goQuorumAt; at != nil {
		if err := at(len(r.receipts), tx, from, st); err != nil {
			return nil, err
		}
	}
	rules := r.evm.GetRules()
	nonce := st.GetNonce(from)
	switch {
	case nonce < tx.Nonce():
		return nil, fmt.Errorf("%w: address %v, tx: %d state: %d", core.ErrNonceTooHigh, from.Hex(), tx.Nonce(), nonce)
	case nonce > tx.Nonce():
		return nil, fmt.Errorf("%w: address %v, tx: %d state: %d", core.ErrNonceTooLow, from.Hex(), tx.Nonce(), nonce)
	}
	price, overflow := uint256.FromBig(tx.GasPrice())
	if overflow {
		return nil, fmt.Errorf("%w: gas price of %d bits", core.ErrInsufficientFunds, tx.GasPrice().BitLen())
	}
	gas := tx.Gas()
	cost, overflow := new(uint256.Int).MulOverflow(uint256.NewInt(gas), price)
	if overflow {
		return nil, fmt.Errorf("%w: gas × price overflows", core.ErrInsufficientFunds)
	}
	if have := st.GetBalance(from); have.Cmp(cost) < 0 {
		return nil, fmt.Errorf("%w: address %v have %v want %v", core.ErrInsufficientFunds, from.Hex(), have, cost)
	}
	if err := r.gp.CheckGasLegacy(gas); err != nil {
		return nil, err
	}
	st.SubBalance(from, cost, tracing.BalanceDecreaseGasBuy)
	intrinsic, err := core.IntrinsicGas(tx.Data(), nil, nil, from, tx.To(), uint256.MustFromBig(tx.Value()), rules)
	if err != nil {
		return nil, err
	}
	if gas < intrinsic {
		return nil, fmt.Errorf("%w: have %d, want %d", core.ErrIntrinsicGas, gas, intrinsic)
	}
	value, overflow := uint256.FromBig(tx.Value())
	if overflow || (value.Sign() > 0 && st.GetBalance(from).Cmp(value) < 0) {
		return nil, fmt.Errorf("%w: address %v", core.ErrInsufficientFundsForTransfer, from.Hex())
	}
	if tx.To() == nil && value.Sign() > 0 {
		return nil, fmt.Errorf("GoQuorum private contract creation with a value: %w", vm.ErrInsufficientBalance)
	}
	st.SetNonce(from, nonce+1, tracing.NonceChangeEoACall)
	returned := gas - intrinsic
	st.AddBalance(from, new(uint256.Int).Mul(uint256.NewInt(returned), price), tracing.BalanceIncreaseGasReturn)
	st.AddBalance(r.evm.Context.Coinbase, new(uint256.Int).Mul(uint256.NewInt(intrinsic), price), tracing.BalanceIncreaseRewardTransactionFee)
	if err := r.gp.ChargeGasLegacy(returned, 0); err != nil {
		return nil, err
	}
	r.privateGas += intrinsic

	var root []byte
	if r.x.config.IsByzantium(r.header.Number) {
		st.Finalise(rules)
	} else {
		root = st.IntermediateRoot(rules).Bytes()
	}
	receipt := &types.Receipt{
		Type:              tx.Type(),
		PostState:         root,
		Status:            types.ReceiptStatusSuccessful,
		CumulativeGasUsed: r.gp.CumulativeUsed(),
		TxHash:            tx.Hash(),
		Logs:              []*types.Log{},
		BlockHash:         r.hash,
		BlockNumber:       r.header.Number,
		TransactionIndex:  uint(st.TxIndex()),
	}
	if tx.To() == nil {
		receipt.ContractAddress = crypto.CreateAddress(from, tx.Nonce())
	}
	receipt.Bloom = types.CreateBloom(receipt)
	return receipt, nil
}

// derivePrivateFields sets what go-ethereum's Receipts.DeriveFields cannot
// for GoQuorum private transactions, whose sender its signer does not
// recover: a creation's contract address, CreateAddress(sender, nonce) as
// GoQuorum reports it.
func (x *Executor) derivePrivateFields(rs types.Receipts, txs types.Transactions) {
	if !x.opts.goQuorum {
		return
	}
	for i, tx := range txs {
		if i >= len(rs) || tx.To() != nil || !quorumtx.IsPrivate(tx) {
			continue
		}
		if from, err := quorumtx.Sender(tx); err == nil {
			rs[i].ContractAddress = crypto.CreateAddress(from, tx.Nonce())
		}
	}
}

// GoQuorumPrivateFunc is called by ReplayGoQuorumPrivate at each GoQuorum
// private transaction of a block, the i-th, sent by from, with the block's
// public state as the transaction finds it (after the transactions before
// it, before its own public effects). It must only read public.
type GoQuorumPrivateFunc func(i int, tx *types.Transaction, from common.Address, public *state.StateDB) error

// ReplayGoQuorumPrivate runs block (engine hash hash) again on statedb, its
// parent's post-state, and calls at for each of its GoQuorum private
// transactions: a GoQuorum party runs each private transaction against the
// public state as it stood at that transaction (GoQuorum's EVM reads public
// contracts mid-block), which the block's post-state no longer is. It
// needs WithGoQuorumPrivate; the chain's tracer hears nothing of it.
func (x *Executor) ReplayGoQuorumPrivate(ctx context.Context, block *types.Block, hash common.Hash, statedb *state.StateDB, at GoQuorumPrivateFunc) error {
	if !x.opts.goQuorum {
		return errors.New("the executor does not apply GoQuorum private transactions")
	}
	y := x.With(func(o *execOptions) { o.tracer, o.goQuorumAt = nil, at })
	_, err := y.Process(ctx, block, hash, statedb)
	return err
}
