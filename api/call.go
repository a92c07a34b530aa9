package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"

	"github.com/basaltchain/basalt/rpctypes"
)

// Call is eth_call: the call object runs on the state after the block,
// nothing is kept. Without "strict", a call that names no price is free
// (the balance is not checked), as in Besu.
func (e *Eth) Call(ctx context.Context, args CallArgs, p BlockParam, overrides *StateOverrides) (*hexutil.Bytes, error) {
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, err
	}
	if overrides == nil {
		if out, ok, err := e.b.GoQuorumCall(header, hash, args.msg()); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return (*hexutil.Bytes)(&out), nil
		}
	}
	st, err := e.b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	msg := args.msg()
	sim := e.b.NewSimulation(header, st, backend.CallMode(msg, args.Strict, header), msg)
	sim.Once = true
	if overrides != nil {
		sim.Override = backend.StateOverrides(*overrides)
	}
	res, err := sim.Run(ctx, e.b.CallGas(header, (*uint64)(args.Gas)))
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, backend.ResultError(res)
	}
	out := hexutil.Bytes(res.ReturnData)
	if out == nil {
		out = hexutil.Bytes{}
	}
	return &out, nil
}

// estimation prepares an eth_estimateGas or eth_createAccessList run in
// the block p names (pending when none).
func (e *Eth) estimation(args *CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (*backend.Estimate, error) {
	bp := rpctypes.BlockNumber{Tag: rpctypes.TagPending}
	if p != nil {
		bp = *p
	}
	var (
		header *types.Header
		st     *state.StateDB
		err    error
	)
	if bp.Tag == rpctypes.TagPending {
		header, st, err = e.b.PendingState()
	} else {
		h, hash := headerForNumber(e.b, bp)
		if h == nil {
			return nil, &backend.BlockNotFoundError{Number: bp.Number}
		}
		header = h
		st, err = e.b.StateOf(h, hash)
	}
	if err != nil {
		return nil, err
	}
	var o backend.StateOverrides
	if overrides != nil {
		o = backend.StateOverrides(*overrides)
	}
	// Besu's choice: strict (the default) keeps the caller's prices but
	// lets the simulation run underpriced; "strict": false makes it free.
	strict := args.Strict == nil || *args.Strict
	return e.b.NewEstimate(header, st, args.msg(), strict, o)
}

// EstimateGas is eth_estimateGas (Backend's Estimate.Gas, Besu's
// algorithm).
func (e *Eth) EstimateGas(ctx context.Context, args CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (hexutil.Uint64, error) {
	est, err := e.estimation(&args, p, overrides)
	if err != nil {
		return 0, err
	}
	gas, err := est.Gas(ctx)
	return hexutil.Uint64(gas), err
}

// AccessListResult is eth_createAccessList's answer.
type AccessListResult struct {
	AccessList types.AccessList `json:"accessList"`
	GasUsed    hexutil.Uint64   `json:"gasUsed"`
	Error      string           `json:"error,omitempty"`
}

// CreateAccessList is eth_createAccessList (Backend's
// Estimate.AccessList, as Besu answers it).
func (e *Eth) CreateAccessList(ctx context.Context, args CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (*AccessListResult, error) {
	est, err := e.estimation(&args, p, overrides)
	if err != nil {
		return nil, err
	}
	list, gas, reverted, err := est.AccessList(ctx)
	if err != nil {
		return nil, err
	}
	out := &AccessListResult{AccessList: list, GasUsed: hexutil.Uint64(gas)}
	if reverted {
		out.Error = "execution reverted"
	}
	return out, nil
}
