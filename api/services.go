package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// This file exports the JSON-RPC methods' logic to the node's other front
// ends (GraphQL), so that a call, a submission or a gas price suggestion is
// computed by one implementation whichever front end asks. The wrappers
// take plain Go types and stay thin; the logic lives in the method files.

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

// callArgs converts the request to the JSON-RPC call object.
func (r *CallRequest) callArgs() *CallArgs {
	a := &CallArgs{}
	if r.From != nil {
		from := Address(*r.From)
		a.From = &from
	}
	if r.To != nil {
		to := Address(*r.To)
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
// call Besu would refuse to simulate answers an *rpc.Error.
func (b *Backend) SimulateCall(ctx context.Context, req CallRequest, header *types.Header, hash common.Hash) (*core.ExecutionResult, error) {
	st, err := b.stateOf(header, hash)
	if err != nil {
		return nil, err
	}
	args := req.callArgs()
	sim := &simulation{b: b, header: header, st: st, mode: simMode{allowExceedingBalance: true}, args: args}
	return sim.run(ctx, b.callGas(header, args.Gas))
}

// SendRawTransaction is eth_sendRawTransaction on the decoded bytes of a
// signed transaction: the transaction's hash, or Besu's *rpc.Error.
func (b *Backend) SendRawTransaction(raw []byte) (common.Hash, error) {
	return (&Eth{b: b}).SendRawTransaction(hexutil.Encode(raw))
}

// GasPrice is eth_gasPrice: Besu's suggestion from the recent blocks.
func (b *Backend) GasPrice() *big.Int {
	return (*big.Int)((&Eth{b: b}).GasPrice())
}

// MaxPriorityFeePerGas is eth_maxPriorityFeePerGas.
func (b *Backend) MaxPriorityFeePerGas() *big.Int {
	return (*big.Int)((&Eth{b: b}).MaxPriorityFeePerGas())
}

// ProtocolVersion is eth_protocolVersion: the highest eth capability.
func (b *Backend) ProtocolVersion() uint64 {
	return uint64((&Eth{b: b}).ProtocolVersion())
}
