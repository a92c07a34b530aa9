package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

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
// refuse to run is a *backend.InvalidTransactionError.
func SimulateCall(ctx context.Context, b *backend.Backend, req CallRequest, header *types.Header, hash common.Hash) (*core.ExecutionResult, error) {
	st, err := b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	args := req.callArgs()
	sim := &simulation{b: b, header: header, st: st, mode: simMode{allowExceedingBalance: true}, args: args}
	return sim.run(ctx, b.CallGas(header, (*uint64)(args.Gas)))
}
