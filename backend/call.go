package backend

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/txpool"
)

// CallMsg is a call to simulate, in plain values; nil fields are absent
// and take Besu's simulator defaults (the sender's nonce, the block's gas
// and base fee, no value, no data).
type CallMsg struct {
	From                 *common.Address
	To                   *common.Address // nil: a contract creation
	Gas                  *uint64
	GasPrice             *big.Int
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	MaxFeePerBlobGas     *big.Int
	Value                *big.Int
	Nonce                *uint64
	Data                 []byte
	AccessList           *types.AccessList
	// BlobHashes are the blob versioned hashes; non-nil (even empty)
	// makes the call a blob transaction.
	BlobHashes        []common.Hash
	AuthorizationList []types.SetCodeAuthorization
	// ChainID is the chain the call names; nil means this one.
	ChainID *big.Int
}

// Sender is the call's sender, the zero address when it names none.
func (m *CallMsg) Sender() common.Address {
	if m.From == nil {
		return common.Address{}
	}
	return *m.From
}

func (m *CallMsg) to() *common.Address {
	if m.To == nil {
		return nil
	}
	to := *m.To
	return &to
}

// value is the value sent, 0 when none is named.
func (m *CallMsg) value() *big.Int {
	if m.Value == nil {
		return new(big.Int)
	}
	return m.Value
}

// noPricing reports that none of gasPrice, maxFeePerGas and
// maxPriorityFeePerGas is given.
func (m *CallMsg) noPricing() bool {
	return m.GasPrice == nil && m.MaxFeePerGas == nil && m.MaxPriorityFeePerGas == nil
}

// SimulateCall runs msg once on the post-state of the block (header, hash)
// and in that block's context, the way Besu's GraphQL call and estimateGas
// do (its transaction simulator, allowed to exceed the sender's balance):
// the result tells whether the call succeeded, what it returned and the gas
// it used (MaxUsedGas is the gas before refunds, Besu's gas estimate). A
// call that ran and failed is a result, not an error; a call Besu would
// refuse to run is an *InvalidTransactionError.
func (b *Backend) SimulateCall(ctx context.Context, msg CallMsg, header *types.Header, hash common.Hash) (*core.ExecutionResult, error) {
	st, err := b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	sim := b.NewSimulation(header, st, SimMode{AllowExceedingBalance: true}, &msg)
	return sim.Run(ctx, b.CallGas(header, msg.Gas))
}

// messageTx is the transaction a simulated message stands for, as its
// tracer sees it (debug_traceCall): sender aside, the fields tracers read.
func messageTx(msg *core.Message) *types.Transaction {
	return types.NewTx(&types.DynamicFeeTx{
		Nonce:      msg.Nonce,
		GasTipCap:  msg.GasTipCap.ToBig(),
		GasFeeCap:  msg.GasFeeCap.ToBig(),
		Gas:        msg.GasLimit,
		To:         msg.To,
		Value:      msg.Value.ToBig(),
		Data:       msg.Data,
		AccessList: msg.AccessList,
	})
}

// txError classifies a state-transition failure that got past the
// simulator's own (Besu) checks: the nearest of Besu's transaction-invalid
// reasons, with go-ethereum's message as the detail.
func txError(err error) error {
	var known *InvalidTransactionError
	if errors.As(err, &known) {
		return err
	}
	reason := ReasonExecutionRefused
	switch {
	case errors.Is(err, core.ErrNonceTooLow):
		reason = txpool.NonceTooLow
	case errors.Is(err, core.ErrNonceTooHigh):
		reason = ReasonNonceTooHigh
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		reason = txpool.IntrinsicGasExceedsGasLimit
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		reason = txpool.UpfrontCostExceedsBalance
	case errors.Is(err, core.ErrGasLimitReached):
		reason = txpool.ExceedsBlockGasLimit
	case errors.Is(err, core.ErrTipAboveFeeCap):
		reason = txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas
	case errors.Is(err, core.ErrFeeCapTooLow):
		reason = ReasonGasPriceBelowCurrentBaseFee
	}
	return &InvalidTransactionError{Reason: reason, Detail: err.Error()}
}

// StateOverrides are, per account, replacements applied to the state
// before a call (Besu's StateOverrideMap).
type StateOverrides []AccountOverride

// AccountOverride replaces parts of one account.
type AccountOverride struct {
	Address   common.Address
	Balance   *big.Int
	Nonce     *uint64
	Code      []byte // nil: unchanged
	State     map[common.Hash]common.Hash
	StateDiff map[common.Hash]common.Hash
	// MovePrecompileTo moves the precompile at Address to this address, so
	// that Address can be given code of its own.
	MovePrecompileTo *common.Address
}

// Apply writes the overrides into st and moves precompiles in precompiles.
func (o StateOverrides) Apply(st *state.StateDB, precompiles vm.PrecompiledContracts) error {
	// Moves first, so that a precompile moved onto an address that is itself
	// overridden keeps working, and so that the order of the map does not
	// matter.
	for _, ao := range o {
		if ao.MovePrecompileTo == nil {
			continue
		}
		p, ok := precompiles[ao.Address]
		if !ok {
			return InvalidParams(ParamCall, "account %s is not a precompile", ao.Address.Hex())
		}
		delete(precompiles, ao.Address)
		precompiles[*ao.MovePrecompileTo] = p
	}
	for _, ao := range o {
		a := ao.Address
		if ao.Nonce != nil {
			st.SetNonce(a, *ao.Nonce, tracing.NonceChangeUnspecified)
		}
		if ao.Balance != nil {
			v, overflow := uint256.FromBig(ao.Balance)
			if overflow {
				return InvalidParams(ParamCall, "")
			}
			st.SetBalance(a, v, tracing.BalanceChangeUnspecified)
		}
		if ao.Code != nil {
			st.SetCode(a, ao.Code, tracing.CodeChangeUnspecified)
		}
		if ao.State != nil {
			st.SetStorage(a, ao.State)
		}
		for k, v := range ao.StateDiff {
			st.SetState(a, k, v)
		}
	}
	return nil
}
