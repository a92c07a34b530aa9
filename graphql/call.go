package graphql

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
)

// callData is the CallData input.
type callData struct {
	From                 *Address
	To                   *Address
	Gas                  *Long
	GasPrice             *BigInt
	MaxFeePerGas         *BigInt
	MaxPriorityFeePerGas *BigInt
	Value                *BigInt
	Data                 *Bytes
}

// msg converts the input to the backend's call.
func (d *callData) msg() backend.CallMsg {
	var r backend.CallMsg
	if d.From != nil {
		from := common.Address(*d.From)
		r.From = &from
	}
	if d.To != nil {
		to := common.Address(*d.To)
		r.To = &to
	}
	if d.Gas != nil {
		gas := uint64(*d.Gas)
		r.Gas = &gas
	}
	big := func(b *BigInt) *big.Int {
		if b == nil {
			return nil
		}
		return b.Big()
	}
	r.GasPrice = big(d.GasPrice)
	r.MaxFeePerGas = big(d.MaxFeePerGas)
	r.MaxPriorityFeePerGas = big(d.MaxPriorityFeePerGas)
	r.Value = big(d.Value)
	if d.Data != nil {
		r.Data = *d.Data
	}
	return r
}

// CallResult resolves the outcome of a call; its methods resolve the
// schema fields of the same names.
type CallResult struct {
	data    []byte
	gasUsed uint64
	status  uint64
}

// Data is what the call returned (its revert data when it failed).
func (c *CallResult) Data() Bytes { return c.data }

// GasUsed is the gas the call used before refunds.
func (c *CallResult) GasUsed() Long { return Long(c.gasUsed) }

// Status is 1 for a call that succeeded, 0 for one that failed.
func (c *CallResult) Status() Long { return Long(c.status) }

// call runs a call once on the post-state of (header, hash) through the
// backend's simulator. As in Besu, a call that runs and fails answers
// status 0 with its output, and the gas is the gas the call used before
// refunds. A nil header is a block whose state is not there (an ommer
// without a canonical block of its number).
func (s *Service) call(ctx context.Context, d callData, header *types.Header, hash common.Hash) (*CallResult, error) {
	if header == nil {
		return nil, backend.ErrWorldStateUnavailable
	}
	res, err := s.backend.SimulateCall(ctx, d.msg(), header, hash)
	if err != nil {
		return nil, err
	}
	out := &CallResult{data: res.ReturnData, gasUsed: res.MaxUsedGas}
	if out.data == nil {
		out.data = []byte{}
	}
	if !res.Failed() {
		out.status = 1
	}
	return out, nil
}

// estimateGas is Besu's GraphQL estimate: the gas one run of the call
// uses, whether or not it succeeds (not eth_estimateGas's search).
func (s *Service) estimateGas(ctx context.Context, d callData, header *types.Header, hash common.Hash) (Long, error) {
	res, err := s.call(ctx, d, header, hash)
	if err != nil {
		return 0, err
	}
	return Long(res.gasUsed), nil
}
