package api

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpc"
)

// CallArgs is the call object of eth_call and eth_estimateGas.
type CallArgs struct {
	From                 *common.Address   `json:"from"`
	To                   *common.Address   `json:"to"`
	Gas                  *hexutil.Uint64   `json:"gas"`
	GasPrice             *hexutil.Big      `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big      `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big      `json:"value"`
	Nonce                *hexutil.Uint64   `json:"nonce"`
	Data                 *hexutil.Bytes    `json:"data"`
	Input                *hexutil.Bytes    `json:"input"`
	AccessList           *types.AccessList `json:"accessList"`
}

func (a *CallArgs) data() []byte {
	if a.Input != nil {
		return *a.Input
	}
	if a.Data != nil {
		return *a.Data
	}
	return nil
}

// validate rejects contradictory arguments.
func (a *CallArgs) validate() error {
	if a.Input != nil && a.Data != nil && string(*a.Input) != string(*a.Data) {
		return rpc.ErrInvalidCallParams.WithReason("both input and data provided with different values")
	}
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return rpc.ErrInvalidCallParams.WithReason("gasPrice and maxFeePerGas/maxPriorityFeePerGas are exclusive")
	}
	return nil
}

// message converts the call into a core.Message with gas limit gas.
func (a *CallArgs) message(gas uint64, nonce uint64) *core.Message {
	msg := &core.Message{
		To:         a.To,
		Nonce:      nonce,
		Value:      new(uint256.Int),
		GasLimit:   gas,
		GasPrice:   new(uint256.Int),
		GasFeeCap:  new(uint256.Int),
		GasTipCap:  new(uint256.Int),
		Data:       a.data(),
		AccessList: nil,
	}
	if a.From != nil {
		msg.From = *a.From
	}
	if a.Value != nil {
		msg.Value = uint256.MustFromBig((*big.Int)(a.Value))
	}
	switch {
	case a.GasPrice != nil:
		p := uint256.MustFromBig((*big.Int)(a.GasPrice))
		msg.GasPrice, msg.GasFeeCap, msg.GasTipCap = p, p, p
	case a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil:
		if a.MaxFeePerGas != nil {
			msg.GasFeeCap = uint256.MustFromBig((*big.Int)(a.MaxFeePerGas))
		}
		if a.MaxPriorityFeePerGas != nil {
			msg.GasTipCap = uint256.MustFromBig((*big.Int)(a.MaxPriorityFeePerGas))
		}
		msg.GasPrice = msg.GasFeeCap
	}
	if a.AccessList != nil {
		msg.AccessList = *a.AccessList
	}
	msg.SkipEOACheck()
	if a.Nonce == nil {
		msg.SkipNonceCheck()
	}
	return msg
}

// callGasCap bounds the gas of calls without an explicit limit.
const callGasCap = 50_000_000

// defaultGas is the gas a call gets when it names none: the block gas
// limit, bounded by the call cap and the Osaka per-transaction cap.
func defaultGas(cfg *params.ChainConfig, header *types.Header) uint64 {
	gas := min(header.GasLimit, callGasCap)
	if cfg.IsOsaka(header.Number, header.Time) {
		gas = min(gas, params.MaxTxGas)
	}
	return gas
}

// doCall executes args on a copy of st in the context of header.
func (b *Backend) doCall(ctx context.Context, args *CallArgs, header *types.Header, st *state.StateDB, gas uint64) (*core.ExecutionResult, error) {
	c := b.Chain
	cfg := c.Config()
	nonce := uint64(0)
	if args.Nonce != nil {
		nonce = uint64(*args.Nonce)
	} else if args.From != nil {
		nonce = st.GetNonce(*args.From)
	}
	msg := args.message(gas, nonce)
	blockCtx := chain.NewBlockContext(cfg, c.Engine(), c, header)
	// A zero-priced call must not fail on the base fee (NoBaseFee below);
	// a priced one is checked against it as a transaction would be.
	evm := vm.NewEVM(blockCtx, st, cfg, vm.Config{NoBaseFee: msg.GasFeeCap.IsZero()})
	defer evm.Release()

	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			evm.Cancel()
		case <-done:
		}
	}()
	gp := core.NewGasPool(max(gas, header.GasLimit))
	res, err := core.ApplyMessage(evm, msg, gp)
	if err != nil {
		return nil, txError(err)
	}
	if evm.Cancelled() {
		return nil, rpc.ErrTimeout
	}
	return res, nil
}

// revertError is Besu's (and geth's) error for a reverted call: code 3 with
// the revert data, and the decoded reason when the data is Error(string).
func revertError(res *core.ExecutionResult) error {
	data := res.Revert()
	e := rpc.NewError(3, "Execution reverted")
	if reason, err := abi.UnpackRevert(data); err == nil {
		e = e.WithReason(reason)
	}
	return e.WithData(hexutil.Encode(data))
}

// estimate binary-searches the lowest gas limit with which args succeeds.
func (b *Backend) estimate(ctx context.Context, args *CallArgs, header *types.Header, st *state.StateDB) (uint64, error) {
	hi := defaultGas(b.Chain.Config(), header)
	if args.Gas != nil && uint64(*args.Gas) >= params.TxGas {
		hi = uint64(*args.Gas)
	}
	run := func(gas uint64) (*core.ExecutionResult, error) {
		return b.doCall(ctx, args, header, st.Copy(), gas)
	}
	res, err := run(hi)
	if err != nil {
		return 0, err
	}
	if res.Failed() {
		if errors.Is(res.Err, vm.ErrExecutionReverted) {
			return 0, revertError(res)
		}
		return 0, rpc.NewError(-32000, res.Err.Error())
	}
	// The gas actually consumed (before refunds) is a lower bound; calls with
	// the 63/64 rule may need more, which the search finds.
	lo := res.MaxUsedGas - 1
	if res.MaxUsedGas == 0 || lo >= hi {
		return hi, nil
	}
	if r, err := run(res.MaxUsedGas); err == nil && !r.Failed() {
		return res.MaxUsedGas, nil
	}
	lo = res.MaxUsedGas
	for lo+1 < hi {
		if ctx.Err() != nil {
			return 0, rpc.ErrTimeout
		}
		mid := lo + (hi-lo)/2
		r, err := run(mid)
		if err != nil || r.Failed() {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
