package api

import (
	"errors"

	"github.com/ethereum/go-ethereum/core"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/txpool"
)

// txError classifies a state-transition failure that got past the
// simulator's own (Besu) checks: the nearest of Besu's transaction-invalid
// reasons, with go-ethereum's message as the detail.
func txError(err error) error {
	var known *backend.InvalidTransactionError
	if errors.As(err, &known) {
		return err
	}
	reason := backend.ReasonExecutionRefused
	switch {
	case errors.Is(err, core.ErrNonceTooLow):
		reason = txpool.NonceTooLow
	case errors.Is(err, core.ErrNonceTooHigh):
		reason = backend.ReasonNonceTooHigh
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		reason = txpool.IntrinsicGasExceedsGasLimit
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		reason = txpool.UpfrontCostExceedsBalance
	case errors.Is(err, core.ErrGasLimitReached):
		reason = txpool.ExceedsBlockGasLimit
	case errors.Is(err, core.ErrTipAboveFeeCap):
		reason = txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas
	case errors.Is(err, core.ErrFeeCapTooLow):
		reason = backend.ReasonGasPriceBelowCurrentBaseFee
	}
	return &backend.InvalidTransactionError{Reason: reason, Detail: err.Error()}
}
