package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/txpool"

	"github.com/basaltchain/basalt/rpctypes"
)

// This file holds the services both front ends call with Go values: a
// submission is bytes or a transaction, a price a *big.Int, a call a
// CallRequest. The JSON-RPC methods decode their hex parameters into these
// and encode the answers; GraphQL calls them directly. Their errors are
// domain errors (errors.go).

// ethProtocolVersion is the highest eth capability the node speaks (eth/68).
const ethProtocolVersion = 68

// ProtocolVersion is the highest eth protocol version the node speaks.
func (b *Backend) ProtocolVersion() uint64 { return ethProtocolVersion }

// ChainID is the chain's EIP-155 id.
func (b *Backend) ChainID() *big.Int { return new(big.Int).Set(b.Chain.Config().ChainID) }

// SyncProgress is the progress of a running synchronisation, nil when the
// node is not synchronising.
func (b *Backend) SyncProgress() *SyncStatus {
	if b.Syncing == nil {
		return nil
	}
	return b.Syncing()
}

// SendRawTransaction decodes a signed transaction's binary encoding and
// submits it (SendTransaction). Bytes that are no transaction are an
// InvalidParamsError.
func (b *Backend) SendRawTransaction(ctx context.Context, raw []byte) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, invalidParams(ParamAny, "")
	}
	return b.SendTransaction(ctx, tx)
}

// SendTransaction submits a signed transaction to the pool and returns its
// hash. Impossible signature values are an InvalidParamsError, as Besu
// refuses them before the pool; the pool's refusals are *txpool.Error.
func (b *Backend) SendTransaction(ctx context.Context, tx *types.Transaction) (common.Hash, error) {
	_, r, s := tx.RawSignatureValues()
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(secp256k1N) >= 0 || s.Cmp(secp256k1N) >= 0 {
		return common.Hash{}, invalidParams(ParamAny, "")
	}
	if b.Pool == nil {
		return common.Hash{}, ErrPoolDisabled
	}
	if err := b.Pool.Submit(ctx, tx); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// PooledTransaction returns the pool's transaction by hash, nil if the
// pool does not hold it (or there is no pool).
func (b *Backend) PooledTransaction(hash common.Hash) *types.Transaction {
	if b.Pool == nil {
		return nil
	}
	return b.Pool.Get(hash)
}

// PendingTransactions lists the pool's transactions with their senders.
func (b *Backend) PendingTransactions() []txpool.TxInfo {
	if b.Pool == nil {
		return nil
	}
	return b.Pool.Transactions()
}

// PendingCount is the number of transactions in the pool.
func (b *Backend) PendingCount() int {
	if b.Pool == nil {
		return 0
	}
	return b.Pool.Len()
}

// Logs runs a log query on the node's filter system.
func (b *Backend) Logs(ctx context.Context, q filters.Query) ([]*types.Log, error) {
	if b.Filters == nil {
		return nil, ErrLogsUnavailable
	}
	return b.Filters.Logs(ctx, q)
}

// CallRequest is a call object in plain types (GraphQL's CallData). Nil
// fields are absent.
type CallRequest struct {
	From                 *common.Address
	To                   *common.Address
	Gas                  *uint64
	GasPrice             *big.Int
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	Value                *big.Int
	Data                 []byte
}

// callArgs converts the request to the simulator's call object (typed
// values; nothing is encoded).
func (r *CallRequest) callArgs() *CallArgs {
	a := &CallArgs{}
	if r.From != nil {
		from := rpctypes.Address(*r.From)
		a.From = &from
	}
	if r.To != nil {
		to := rpctypes.Address(*r.To)
		a.To = &to
	}
	if r.Gas != nil {
		gas := Uint64Param(*r.Gas)
		a.Gas = &gas
	}
	quantity := func(n *big.Int) *Quantity {
		if n == nil {
			return nil
		}
		return (*Quantity)(new(big.Int).Set(n))
	}
	a.GasPrice = quantity(r.GasPrice)
	a.MaxFeePerGas = quantity(r.MaxFeePerGas)
	a.MaxPriorityFeePerGas = quantity(r.MaxPriorityFeePerGas)
	a.Value = quantity(r.Value)
	if r.Data != nil {
		data := Bytes(r.Data)
		a.Data = &data
	}
	return a
}

// SimulateCall runs req once on the post-state of the block (header, hash)
// and in that block's context, the way Besu's GraphQL call and estimateGas
// do (its transaction simulator, allowed to exceed the sender's balance):
// the result tells whether the call succeeded, what it returned and the gas
// it used (MaxUsedGas is the gas before refunds, Besu's gas estimate). A
// call that ran and failed is a result, not an error; a call Besu would
// refuse to run is an *InvalidTransactionError.
func (b *Backend) SimulateCall(ctx context.Context, req CallRequest, header *types.Header, hash common.Hash) (*core.ExecutionResult, error) {
	st, err := b.stateOf(header, hash)
	if err != nil {
		return nil, err
	}
	args := req.callArgs()
	sim := &simulation{b: b, header: header, st: st, mode: simMode{allowExceedingBalance: true}, args: args}
	return sim.run(ctx, b.callGas(header, args.Gas))
}
