package api

import (
	"errors"

	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/txpool"
)

// poolError maps a pool refusal to the error current Besu answers for
// eth_sendRawTransaction (its JsonRpcErrorConverter): the catalogued code
// and message, without the pool's detail. Refusals Besu has no code for
// (oversized data, init code too large, …) answer -32602 with the detail,
// where Besu would say "Internal error".
func poolError(err error) error {
	var pe *txpool.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Reason {
	case txpool.NonceTooLow:
		return rpc.ErrNonceTooLow
	case txpool.NonceTooFarInFutureForSender:
		return rpc.ErrNonceTooFarInFutureForSender
	case txpool.InvalidSignature:
		return rpc.ErrInvalidTransactionSignature
	case txpool.IntrinsicGasExceedsGasLimit:
		return rpc.ErrIntrinsicGasExceedsLimit
	case txpool.UpfrontCostExceedsBalance:
		return rpc.ErrUpfrontCostExceedsBalance
	case txpool.ExceedsBlockGasLimit:
		return rpc.ErrExceedsBlockGasLimit
	case txpool.GasPriceTooLow:
		return rpc.ErrGasPriceTooLow
	case txpool.TxSenderNotAuthorized:
		return rpc.ErrTxSenderNotAuthorized
	case txpool.TransactionAlreadyKnown:
		return rpc.ErrKnownTransaction
	case txpool.TransactionReplacementUnderpriced:
		return rpc.ErrReplacementUnderpriced
	case txpool.TxPoolFull:
		return errPoolFull
	case txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas:
		return rpc.ErrMaxPriorityFeeExceedsMaxFee
	case txpool.WrongChainID:
		return rpc.ErrWrongChainID
	case txpool.ReplayProtectedSignaturesNotSupported:
		return rpc.ErrReplayProtectedSignaturesNotSupported
	case txpool.ReplayProtectedSignatureRequired:
		return errChainIDRequired
	case txpool.TxFeecapExceeded:
		return rpc.ErrTxFeeCapExceeded
	case txpool.InvalidTransactionFormat:
		return rpc.ErrInvalidTransactionType
	}
	if pe.Detail != "" {
		return rpc.ErrInvalidParams.WithReason(pe.Detail)
	}
	return rpc.ErrInvalidParams
}
