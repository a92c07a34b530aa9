package api

import (
	"context"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/txpool"

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
	st, err := e.b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	sim := e.b.NewSimulation(header, st, callMode(&args, header), args.msg())
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

// callIsFree is Besu's choice, for eth_call without "strict", of whether
// the call may exceed the sender's balance: before London when it names no
// (or a zero) gas price; after London when it names no non-zero price, or
// is a blob call without a blob fee.
func callIsFree(a *CallArgs, header *types.Header) bool {
	isZero := func(q *Quantity) bool { return q == nil || q.Big().Sign() == 0 }
	if header.BaseFee == nil {
		return isZero(a.GasPrice)
	}
	if a.BlobVersionedHashes != nil && isZero(a.MaxFeePerBlobGas) {
		return true
	}
	return isZero(a.GasPrice) && isZero(a.MaxFeePerGas) && isZero(a.MaxPriorityFeePerGas)
}

// callMode is eth_call's (and debug_traceCall's) simulation mode:
// "strict" chooses whether the sender's balance is checked, and without it
// callIsFree does.
func callMode(a *CallArgs, header *types.Header) backend.SimMode {
	free := callIsFree(a, header)
	if a.Strict != nil {
		free = !*a.Strict
	}
	return backend.SimMode{AllowExceedingBalance: free}
}

// estimateMode is Besu's choice for eth_estimateGas and
// eth_createAccessList: strict (the default) keeps the caller's prices but
// lets the simulation run underpriced; "strict": false makes it free.
func estimateMode(a *CallArgs) backend.SimMode {
	if a.Strict != nil && !*a.Strict {
		return backend.SimMode{AllowExceedingBalance: true}
	}
	return backend.SimMode{AllowUnderpriced: true}
}

// Besu's eth_estimateGas constants: the gas a value transfer needs, the
// stipend and the 64/63 rule for the first guess.
const (
	minTxCost   = params.TxGas
	callStipend = 2300
)

// estimation prepares an eth_estimateGas or eth_createAccessList run.
func (e *Eth) estimation(args *CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (*backend.Simulation, uint64, error) {
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
		header = e.b.PendingHeader()
		st, err = e.b.StateOf(e.b.Chain.CurrentHeader(), e.b.Chain.CurrentHash())
	} else {
		h, hash := headerForNumber(e.b, bp)
		if h == nil {
			return nil, 0, &backend.BlockNotFoundError{Number: bp.Number}
		}
		header = h
		st, err = e.b.StateOf(h, hash)
	}
	if err != nil {
		return nil, 0, err
	}
	sim := e.b.NewSimulation(header, st, estimateMode(args), args.msg())
	if overrides != nil {
		sim.Override = backend.StateOverrides(*overrides)
	}
	upper := e.gasUpperBound(args, header, st)
	if upper < minTxCost {
		return nil, 0, &backend.InvalidTransactionError{Reason: txpool.UpfrontCostExceedsBalance}
	}
	return sim, upper, nil
}

// gasUpperBound is Besu's calculateGasLimitUpperBound: the block's gas
// limit (and the per-transaction cap), or, for a strict call with a price,
// what the sender's balance can pay for.
func (e *Eth) gasUpperBound(a *CallArgs, header *types.Header, st *state.StateDB) uint64 {
	upper := e.b.CallGas(header, nil)
	if a.From == nil || (a.Strict != nil && !*a.Strict) {
		return upper
	}
	var price *big.Int
	switch {
	case a.MaxFeePerGas != nil:
		price = a.MaxFeePerGas.Big()
	case a.GasPrice != nil:
		price = a.GasPrice.Big()
	}
	if price == nil || price.Sign() == 0 {
		return upper
	}
	balance := st.GetBalance(a.sender()).ToBig()
	if balance.Sign() == 0 {
		return 0
	}
	balance.Sub(balance, a.value())
	if balance.Sign() <= 0 {
		return 0
	}
	n := balance.Div(balance, price)
	if !n.IsUint64() || n.Uint64() > upper {
		return upper
	}
	return n.Uint64()
}

// EstimateGas is eth_estimateGas with Besu's algorithm (so the answers are
// Besu's): a plain transfer tries 21000 first; otherwise a run at the upper
// bound, a guess of (used + 2300) × 64/63, and a binary search that stops
// within 1.5 %.
func (e *Eth) EstimateGas(ctx context.Context, args CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (hexutil.Uint64, error) {
	sim, upper, err := e.estimation(&args, p, overrides)
	if err != nil {
		return 0, err
	}
	if len(args.data()) == 0 {
		if res, err := sim.Run(ctx, minTxCost); err == nil && res.Err == nil {
			return hexutil.Uint64(minTxCost), nil
		}
	}
	res, err := sim.Run(ctx, upper)
	if err != nil {
		return 0, err
	}
	if res.Err != nil {
		return 0, backend.ResultError(res)
	}
	lo, hi := res.MaxUsedGas-1, upper
	guess := uint64(float64(res.MaxUsedGas+callStipend) * (64.0 / 63.0))
	if r, err := sim.Run(ctx, guess); err == nil && r.Err == nil {
		hi = guess
	} else {
		lo = guess
	}
	for lo+1 < hi {
		if float64(hi-lo)/float64(hi) < e.b.EstimateTolerance() {
			break
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		mid := (lo + hi) / 2
		if r, err := sim.Run(ctx, mid); err != nil || r.Err != nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hexutil.Uint64(hi), nil
}

// AccessListResult is eth_createAccessList's answer.
type AccessListResult struct {
	AccessList types.AccessList `json:"accessList"`
	GasUsed    hexutil.Uint64   `json:"gasUsed"`
	Error      string           `json:"error,omitempty"`
}

// CreateAccessList is eth_createAccessList as Besu answers it: the storage
// slots the call touches, per contract (addresses without slots are left
// out), and the gas the call uses with that list.
func (e *Eth) CreateAccessList(ctx context.Context, args CallArgs, p *rpctypes.BlockNumber, overrides *StateOverrides) (*AccessListResult, error) {
	sim, upper, err := e.estimation(&args, p, overrides)
	if err != nil {
		return nil, err
	}
	tracer := newSlotTracer(args.AccessList)
	sim.Tracer = tracer.hooks()
	if len(args.data()) == 0 {
		if res, err := sim.Run(ctx, minTxCost); err == nil && res.Err == nil {
			return &AccessListResult{AccessList: tracer.list(), GasUsed: hexutil.Uint64(minTxCost)}, nil
		}
		tracer.reset(args.AccessList)
	}
	run := func(a *CallArgs, t *slotTracer) (*core.ExecutionResult, error) {
		s := *sim
		s.Msg, s.Tracer = a.msg(), t.hooks()
		return s.Run(ctx, upper)
	}
	res, err := run(&args, tracer)
	list := tracer.list()
	if len(list) > 0 && (args.AccessList == nil || !slices.EqualFunc(list, *args.AccessList, accessTupleEqual)) {
		with := args
		with.AccessList = &list
		tracer = newSlotTracer(&list)
		res, err = run(&with, tracer)
	}
	if err != nil {
		return nil, err
	}
	out := &AccessListResult{AccessList: tracer.list(), GasUsed: hexutil.Uint64(res.UsedGas)}
	if res.Err != nil {
		out.Error = "execution reverted"
	}
	return out, nil
}

func accessTupleEqual(a, b types.AccessTuple) bool {
	return a.Address == b.Address && slices.Equal(a.StorageKeys, b.StorageKeys)
}

// slotTracer records the storage slots a call reads or writes, per
// contract, in the order contracts are first touched (Besu's
// AccessListOperationTracer, which reports the frame's warmed-up storage).
type slotTracer struct {
	order []common.Address
	slots map[common.Address]map[common.Hash]struct{}
}

func newSlotTracer(initial *types.AccessList) *slotTracer {
	t := &slotTracer{}
	t.reset(initial)
	return t
}

// reset starts over with the slots of the call's own access list, which
// are warm from the start.
func (t *slotTracer) reset(initial *types.AccessList) {
	t.order = nil
	t.slots = make(map[common.Address]map[common.Hash]struct{})
	if initial == nil {
		return
	}
	for _, tuple := range *initial {
		for _, k := range tuple.StorageKeys {
			t.add(tuple.Address, k)
		}
	}
}

func (t *slotTracer) add(addr common.Address, key common.Hash) {
	m, ok := t.slots[addr]
	if !ok {
		m = make(map[common.Hash]struct{})
		t.slots[addr] = m
		t.order = append(t.order, addr)
	}
	m[key] = struct{}{}
}

func (t *slotTracer) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnOpcode: func(pc uint64, op byte, gas, cost uint64, scope tracing.OpContext, rData []byte, depth int, err error) {
			if err != nil {
				return
			}
			if op := vm.OpCode(op); op == vm.SLOAD || op == vm.SSTORE {
				stack := scope.StackData()
				if len(stack) > 0 {
					t.add(scope.Address(), common.Hash(stack[len(stack)-1].Bytes32()))
				}
			}
		},
	}
}

// list is the access list: contracts with their slots sorted.
func (t *slotTracer) list() types.AccessList {
	out := types.AccessList{}
	for _, addr := range t.order {
		keys := make([]common.Hash, 0, len(t.slots[addr]))
		for k := range t.slots[addr] {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b common.Hash) int { return a.Cmp(b) })
		out = append(out, types.AccessTuple{Address: addr, StorageKeys: keys})
	}
	return out
}
