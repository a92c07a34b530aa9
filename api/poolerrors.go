package api

import (
	"errors"

	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/txpool"
)

// poolError maps a pool rejection to Besu's JSON-RPC error, appending the
// pool's detail as the reason the way current Besu does.
func poolError(err error) error {
	var pe *txpool.Error
	if !errors.As(err, &pe) {
		return err
	}
	var base *rpc.Error
	switch pe.Reason {
	case txpool.NonceTooLow:
		base = errNonceTooLow
	case txpool.NonceTooFarInFutureForSender:
		base = errNonceTooHigh
	case txpool.InvalidSignature:
		base = errInvalidSignature
	case txpool.IntrinsicGasExceedsGasLimit:
		base = errIntrinsicGas
	case txpool.UpfrontCostExceedsBalance:
		base = errUpfrontCost
	case txpool.ExceedsBlockGasLimit:
		base = errExceedsBlockGas
	case txpool.GasPriceTooLow:
		base = errGasPriceTooLow
	case txpool.TxSenderNotAuthorized:
		base = rpc.NewError(-32007, "Sender account not authorized to send transactions")
	case txpool.TransactionAlreadyKnown:
		return errKnownTransaction
	case txpool.TransactionReplacementUnderpriced:
		return errReplacementPrice
	case txpool.TxPoolFull:
		return errPoolFull
	case txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas:
		return errTipAboveFeeCap
	default:
		// WRONG_CHAIN_ID, unsupported types and the other format problems
		// are Besu's -32602 Invalid params with the reason.
		base = rpc.ErrInvalidParams
	}
	if pe.Detail != "" {
		return base.WithReason(pe.Detail)
	}
	return base
}
