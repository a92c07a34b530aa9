package backend

import (
	"context"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/txpool"
)

// Besu's eth_estimateGas constants: the gas a value transfer needs, the
// stipend and the 64/63 rule for the first guess.
const (
	minTxCost   = params.TxGas
	callStipend = 2300
)

// PendingState is the block a "pending" estimate runs in (PendingHeader)
// and the state it starts from, the head's.
func (b *Backend) PendingState() (*types.Header, *state.StateDB, error) {
	st, err := b.StateOf(b.Chain.CurrentHeader(), b.Chain.CurrentHash())
	if err != nil {
		return nil, nil, err
	}
	return b.PendingHeader(), st, nil
}

// Estimate is a prepared gas estimate or access list of one call: its
// simulation and the most gas it may use.
type Estimate struct {
	b     *Backend
	sim   *Simulation
	upper uint64
}

// NewEstimate prepares an estimate of msg in the block of header on st,
// with overrides applied. Strict keeps the caller's prices but lets the
// simulation run underpriced, and bounds the gas by what the sender can
// pay; not strict, the call is free. A sender who cannot pay for the
// cheapest transaction is an *InvalidTransactionError.
func (b *Backend) NewEstimate(header *types.Header, st *state.StateDB, msg *CallMsg, strict bool, overrides StateOverrides) (*Estimate, error) {
	mode := SimMode{AllowUnderpriced: true}
	if !strict {
		mode = SimMode{AllowExceedingBalance: true}
	}
	sim := b.NewSimulation(header, st, mode, msg)
	sim.Override = overrides
	upper := b.gasUpperBound(msg, strict, header, st)
	if upper < minTxCost {
		return nil, &InvalidTransactionError{Reason: txpool.UpfrontCostExceedsBalance}
	}
	return &Estimate{b: b, sim: sim, upper: upper}, nil
}

// gasUpperBound is Besu's calculateGasLimitUpperBound: the block's gas
// limit (and the per-transaction cap), or, for a strict call with a price,
// what the sender's balance can pay for.
func (b *Backend) gasUpperBound(a *CallMsg, strict bool, header *types.Header, st *state.StateDB) uint64 {
	upper := b.CallGas(header, nil)
	if a.From == nil || !strict {
		return upper
	}
	var price *big.Int
	switch {
	case a.MaxFeePerGas != nil:
		price = a.MaxFeePerGas
	case a.GasPrice != nil:
		price = a.GasPrice
	}
	if price == nil || price.Sign() == 0 {
		return upper
	}
	balance := st.GetBalance(a.Sender()).ToBig()
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

// Gas is the estimate with Besu's algorithm (so the answers are Besu's):
// a plain transfer tries 21000 first; otherwise a run at the upper bound,
// a guess of (used + 2300) × 64/63, and a binary search that stops within
// the tolerance (Config.EstimateTolerance, 1.5 %). A call that fails at
// the upper bound answers its ResultError.
func (est *Estimate) Gas(ctx context.Context) (uint64, error) {
	sim, upper := est.sim, est.upper
	if len(sim.Msg.Data) == 0 {
		if res, err := sim.Run(ctx, minTxCost); err == nil && res.Err == nil {
			return minTxCost, nil
		}
	}
	res, err := sim.Run(ctx, upper)
	if err != nil {
		return 0, err
	}
	if res.Err != nil {
		return 0, ResultError(res)
	}
	lo, hi := res.MaxUsedGas-1, upper
	guess := uint64(float64(res.MaxUsedGas+callStipend) * (64.0 / 63.0))
	if r, err := sim.Run(ctx, guess); err == nil && r.Err == nil {
		hi = guess
	} else {
		lo = guess
	}
	for lo+1 < hi {
		if float64(hi-lo)/float64(hi) < est.b.EstimateTolerance() {
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
	return hi, nil
}

// AccessList is the access list as Besu's eth_createAccessList answers
// it: the storage slots the call touches, per contract (addresses without
// slots are left out), and the gas the call uses with that list; reverted
// tells that the call failed.
func (est *Estimate) AccessList(ctx context.Context) (list types.AccessList, gasUsed uint64, reverted bool, err error) {
	sim, upper := est.sim, est.upper
	given := sim.Msg.AccessList
	tracer := newSlotTracer(given)
	if len(sim.Msg.Data) == 0 {
		s := *sim
		s.Tracer = tracer.hooks()
		if res, err := s.Run(ctx, minTxCost); err == nil && res.Err == nil {
			return tracer.list(), minTxCost, false, nil
		}
		tracer.reset(given)
	}
	run := func(m *CallMsg, t *slotTracer) (*core.ExecutionResult, error) {
		s := *sim
		s.Msg, s.Tracer = m, t.hooks()
		return s.Run(ctx, upper)
	}
	res, err := run(sim.Msg, tracer)
	list = tracer.list()
	if len(list) > 0 && (given == nil || !slices.EqualFunc(list, *given, accessTupleEqual)) {
		with := *sim.Msg
		with.AccessList = &list
		tracer = newSlotTracer(&list)
		res, err = run(&with, tracer)
	}
	if err != nil {
		return nil, 0, false, err
	}
	return tracer.list(), res.UsedGas, res.Err != nil, nil
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
