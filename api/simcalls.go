package api

import (
	"bytes"
	"errors"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
)

// The calls of eth_simulateV1: call objects turned into messages and
// unsigned transactions, state overrides checked the spec's way, and the
// spec's codes for calls a block cannot include.

// message turns call a into the message the block runs and the unsigned
// transaction standing for it. A call without gas gets what the block has
// left; one asking for more is -38015. Every call's gas is also bounded by
// --rpc-gas-cap when set and by what is left of the request's budget.
func (s *multiSim) message(a *CallArgs, h *types.Header, gasLeft uint64) (*core.Message, *types.Transaction, error) {
	from := a.sender()
	nonce := s.st.GetNonce(from)
	if a.Nonce != nil {
		nonce = uint64(*a.Nonce)
	}
	gas := gasLeft
	if a.Gas != nil {
		gas = uint64(*a.Gas)
		if gas > gasLeft {
			return nil, nil, simErr(CodeSimBlockGasLimit, "block gas limit reached: remaining: %d, required: %d", gasLeft, gas)
		}
	}
	// The block's gas limit bounds each call (the documented default of
	// --rpc-gas-cap); a non-zero --rpc-gas-cap bounds it too, like an
	// eth_call's.
	if s.b.Config.GasCap > 0 {
		gas = min(gas, s.b.Config.GasCap)
	}
	gas = min(gas, s.budget)
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return nil, nil, simErr(codeSimInvalidParams, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	chainID := s.cfg.ChainID
	if a.ChainID != nil {
		if a.ChainID.Big().Cmp(chainID) != 0 {
			return nil, nil, simErr(codeSimInvalidParams, "chainId does not match node's (have=%v, want=%v)", a.ChainID.Big(), chainID)
		}
	}
	var (
		price, feeCap, tip *big.Int
		zero               = new(big.Int)
	)
	if a.GasPrice != nil {
		price = a.GasPrice.Big()
		feeCap, tip = price, price
	} else {
		feeCap, tip = zero, zero
		if a.MaxFeePerGas != nil {
			feeCap = a.MaxFeePerGas.Big()
		}
		if a.MaxPriorityFeePerGas != nil {
			tip = a.MaxPriorityFeePerGas.Big()
		}
		price = feeCap
		if h.BaseFee != nil {
			price = new(big.Int).Add(h.BaseFee, tip)
			if price.Cmp(feeCap) > 0 {
				price = feeCap
			}
		}
	}
	for _, v := range []*big.Int{price, feeCap, tip, a.value()} {
		if v.BitLen() > 256 {
			return nil, nil, simErr(codeSimInvalidParams, "value out of range")
		}
	}
	blobFee := zero
	if a.MaxFeePerBlobGas != nil {
		blobFee = a.MaxFeePerBlobGas.Big()
	}
	var accessList types.AccessList
	if a.AccessList != nil {
		accessList = *a.AccessList
	}
	msg := &core.Message{
		From:                  from,
		To:                    a.to(),
		Nonce:                 nonce,
		Value:                 uint256.MustFromBig(a.value()),
		GasLimit:              gas,
		GasPrice:              uint256.MustFromBig(price),
		GasFeeCap:             uint256.MustFromBig(feeCap),
		GasTipCap:             uint256.MustFromBig(tip),
		Data:                  a.data(),
		AccessList:            accessList,
		BlobHashes:            a.blobHashes(),
		SetCodeAuthorizations: a.AuthorizationList,
	}
	if a.BlobVersionedHashes != nil {
		if blobFee.BitLen() > 256 {
			return nil, nil, simErr(codeSimInvalidParams, "value out of range")
		}
		msg.BlobGasFeeCap = uint256.MustFromBig(blobFee)
	}
	// Contract senders are allowed, validating or not (the spec's
	// "except contract sender and signature checks"), and a call may take
	// what the block has left, above Osaka's per-transaction gas cap: the
	// spec's examples (tests/eth_simulateV1) validate calls of 50,000,000
	// gas on an Osaka chain.
	msg.SkipEOACheck().SkipGasLimitCapCheck()
	if !s.opts.Validation {
		// Like eth_call: no nonce check.
		msg.SkipNonceCheck().SkipExecutionGasCapCheck()
	}
	return msg, simTransaction(a, msg, chainID), nil
}

// simTransaction is the unsigned transaction standing for a simulated
// call: of the type its fields imply (EIP-1559 unless it names a gasPrice),
// so that it has a hash and can be shown as a transaction object.
func simTransaction(a *CallArgs, msg *core.Message, chainID *big.Int) *types.Transaction {
	to := common.Address{}
	if msg.To != nil {
		to = *msg.To
	}
	cid := uint256.MustFromBig(chainID)
	switch {
	case len(msg.SetCodeAuthorizations) > 0:
		return types.NewTx(&types.SetCodeTx{ChainID: cid, Nonce: msg.Nonce, GasTipCap: msg.GasTipCap, GasFeeCap: msg.GasFeeCap,
			Gas: msg.GasLimit, To: to, Value: msg.Value, Data: msg.Data, AccessList: msg.AccessList, AuthList: msg.SetCodeAuthorizations})
	case msg.BlobHashes != nil:
		return types.NewTx(&types.BlobTx{ChainID: cid, Nonce: msg.Nonce, GasTipCap: msg.GasTipCap, GasFeeCap: msg.GasFeeCap,
			Gas: msg.GasLimit, To: to, Value: msg.Value, Data: msg.Data, AccessList: msg.AccessList,
			BlobFeeCap: msg.BlobGasFeeCap, BlobHashes: msg.BlobHashes})
	case a.GasPrice != nil && a.AccessList != nil:
		return types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: msg.Nonce, GasPrice: msg.GasPrice.ToBig(),
			Gas: msg.GasLimit, To: msg.To, Value: msg.Value.ToBig(), Data: msg.Data, AccessList: msg.AccessList})
	case a.GasPrice != nil:
		return types.NewTx(&types.LegacyTx{Nonce: msg.Nonce, GasPrice: msg.GasPrice.ToBig(),
			Gas: msg.GasLimit, To: msg.To, Value: msg.Value.ToBig(), Data: msg.Data})
	}
	return types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: msg.Nonce, GasTipCap: msg.GasTipCap.ToBig(), GasFeeCap: msg.GasFeeCap.ToBig(),
		Gas: msg.GasLimit, To: msg.To, Value: msg.Value.ToBig(), Data: msg.Data, AccessList: msg.AccessList})
}

// simApplyOverrides checks a block's precompile moves the spec's way and
// applies its state overrides, in address order as the reference does: of
// two precompiles moved onto one address, the one at the higher address
// ends up there (the reference answers ethSimulate-move-two-accounts-to-
// same-38023 with a block, not with -38023).
func simApplyOverrides(st *state.StateDB, o backend.StateOverrides, precompiles vm.PrecompiledContracts) error {
	// In address order, so that the error about several bad moves names
	// the same one every time.
	o = slices.Clone(o)
	slices.SortFunc(o, func(x, y backend.AccountOverride) int { return bytes.Compare(x.Address[:], y.Address[:]) })
	for _, ao := range o {
		if ao.MovePrecompileTo == nil {
			continue
		}
		if _, ok := precompiles[ao.Address]; !ok {
			return simErr(codeSimInvalidRequest, "account %s is not a precompile", ao.Address.Hex())
		}
		if *ao.MovePrecompileTo == ao.Address {
			return simErr(CodeSimMoveToItself, "account %s is moved to itself", ao.Address.Hex())
		}
	}
	for _, ao := range o {
		if ao.Balance != nil && ao.Balance.BitLen() > 256 {
			return simErr(codeSimInvalidParams, "balance of %s out of range", ao.Address.Hex())
		}
	}
	if err := o.Apply(st, precompiles); err != nil {
		return simErr(codeSimInvalidParams, "%s", err.Error())
	}
	return nil
}

// simTxError maps a message the block could not include to the spec's
// code.
func simTxError(err error, msg *core.Message) error {
	code := codeSimInvalidRequest
	switch {
	case errors.Is(err, core.ErrNonceTooHigh):
		code = CodeSimNonceTooHigh
	case errors.Is(err, core.ErrNonceMax):
		// The spec lists no code for it; its example
		// (ethSimulate-overflow-nonce-validation) answers -32603.
		code = codeSimInternal
	case errors.Is(err, core.ErrNonceTooLow):
		code = CodeSimNonceTooLow
	case errors.Is(err, core.ErrSenderNoEOA):
		code = CodeSimSenderNotEOA
	case errors.Is(err, core.ErrFeeCapTooLow):
		code = CodeSimBaseFeeTooLow
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		code = CodeSimInsufficientFunds
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		code = CodeSimIntrinsicGas
	case errors.Is(err, core.ErrGasLimitReached):
		code = CodeSimBlockGasLimit
	case errors.Is(err, vm.ErrMaxInitCodeSizeExceeded):
		code = CodeSimInitCodeTooLarge
	case errors.Is(err, core.ErrTipAboveFeeCap), errors.Is(err, core.ErrTipVeryHigh), errors.Is(err, core.ErrFeeCapVeryHigh):
		code = codeSimInvalidParams
	}
	return simErr(code, "err: %v (supplied gas %d)", err, msg.GasLimit)
}

// simCallError describes a failed call: a revert, with its reason when the
// data is an Error(string), or an exceptional halt.
func simCallError(res *core.ExecutionResult) *SimCallError {
	if errors.Is(res.Err, vm.ErrExecutionReverted) {
		msg := vm.ErrExecutionReverted.Error()
		if reason, err := abi.UnpackRevert(res.Revert()); err == nil {
			msg += ": " + reason
		}
		return &SimCallError{Code: codeSimReverted, Message: msg, Data: hexutil.Encode(res.Revert())}
	}
	return &SimCallError{Code: codeSimVMError, Message: res.Err.Error()}
}
