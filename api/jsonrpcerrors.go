package api

import (
	"context"
	"errors"

	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/txpool"
)

// This file is the JSON-RPC front end's one mapping of the services'
// domain errors (errors.go) to Besu's JSON-RPC errors. The method groups
// carry it (rpc.Group.Errors), so the dispatcher applies it to whatever a
// method returns; the methods and the services they call never build a
// JSON-RPC error, except while decoding parameters.

// Besu errors the rpc package does not name.
var (
	errPoolFull = rpc.NewError(-32000, "Transaction pool is full")
	// errChainIDRequired is Besu's REPLAY_PROTECTED_SIGNATURE_REQUIRED
	// (--strict-tx-replay-protection-enabled).
	errChainIDRequired = rpc.NewError(-32000, "ChainId is required")
	// errNotCanonical is Besu's JSON_RPC_NOT_CANONICAL_ERROR.
	errNotCanonical       = rpc.NewError(-32000, "Invalid input")
	errTooManyLogs        = rpc.NewError(-32005, "Query returned too many logs")
	errInvalidBlobs       = rpc.NewError(rpc.CodeInternalError, "blobs failed kzg validation")
	errTotalBlobGas       = rpc.NewError(-32000, "Total blob gas too high")
	errBlobGasPriceTooLow = rpc.NewError(-32009, "blob gas price below current blob base fee")
)

// reasonErrors are Besu's errors for its transaction-invalid reasons (its
// JsonRpcErrorConverter), whichever service gives the reason: the pool
// refusing a submission or the simulator refusing a call.
var reasonErrors = map[txpool.Reason]*rpc.Error{
	txpool.NonceTooLow:                             rpc.ErrNonceTooLow,
	ReasonNonceTooHigh:                             rpc.ErrNonceTooHigh,
	txpool.NonceTooFarInFutureForSender:            rpc.ErrNonceTooFarInFutureForSender,
	txpool.InvalidSignature:                        rpc.ErrInvalidTransactionSignature,
	txpool.IntrinsicGasExceedsGasLimit:             rpc.ErrIntrinsicGasExceedsLimit,
	txpool.UpfrontCostExceedsBalance:               rpc.ErrUpfrontCostExceedsBalance,
	txpool.ExceedsBlockGasLimit:                    rpc.ErrExceedsBlockGasLimit,
	txpool.GasPriceTooLow:                          rpc.ErrGasPriceTooLow,
	ReasonGasPriceBelowCurrentBaseFee:              rpc.ErrGasPriceBelowCurrentBaseFee,
	ReasonBlobGasPriceBelowCurrentBlobBaseFee:      errBlobGasPriceTooLow,
	txpool.TxSenderNotAuthorized:                   rpc.ErrTxSenderNotAuthorized,
	txpool.TransactionAlreadyKnown:                 rpc.ErrKnownTransaction,
	txpool.TransactionReplacementUnderpriced:       rpc.ErrReplacementUnderpriced,
	txpool.TxPoolFull:                              errPoolFull,
	txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas: rpc.ErrMaxPriorityFeeExceedsMaxFee,
	txpool.WrongChainID:                            rpc.ErrWrongChainID,
	txpool.ReplayProtectedSignaturesNotSupported:   rpc.ErrReplayProtectedSignaturesNotSupported,
	txpool.ReplayProtectedSignatureRequired:        errChainIDRequired,
	txpool.TxFeecapExceeded:                        rpc.ErrTxFeeCapExceeded,
	txpool.InvalidTransactionFormat:                rpc.ErrInvalidTransactionType,
	ReasonInvalidBlobs:                             errInvalidBlobs,
	ReasonTotalBlobGasTooHigh:                      errTotalBlobGas,
}

// paramErrors are Besu's -32602 errors for the parameters services check.
var paramErrors = map[Param]*rpc.Error{
	ParamAny:          rpc.ErrInvalidParams,
	ParamBlockNumber:  rpc.ErrInvalidBlockNumberParams,
	ParamBlockCount:   rpc.ErrInvalidBlockCountParams,
	ParamCall:         rpc.ErrInvalidCallParams,
	ParamStorageKeys:  rpc.ErrInvalidStorageKeysParams,
	ParamTraceOptions: rpc.ErrInvalidTransactionTraceParams,
}

// sentinelErrors are Besu's errors for the services' conditions.
var sentinelErrors = []struct {
	err  error
	wire *rpc.Error
}{
	{ErrWorldStateUnavailable, rpc.ErrWorldStateUnavailable},
	{ErrNotCanonical, errNotCanonical},
	{ErrGenesisNotTraceable, rpc.ErrGenesisBlockNotTraceable},
	{ErrPoolDisabled, rpc.ErrTxPoolDisabled},
	{ErrNoSigningKeys, rpc.ErrEthSendTxNotAvailable},
	{ErrCoinbaseNotSpecified, rpc.ErrCoinbaseNotSpecified},
	{miner.ErrCoinbaseNotSet, rpc.ErrCoinbaseNotSet},
	{ErrNoMiningWork, rpc.ErrNoMiningWorkFound},
	{ErrP2PDisabled, rpc.ErrP2PDisabled},
	{ErrP2PNotRunning, rpc.ErrP2PNetworkNotRunning},
	{ErrLocalPeer, rpc.ErrCantConnectToLocalPeer},
	{ErrPeerNotPermitted, rpc.ErrNonPermittedNodeCannotBeAddedAsAPeer},
	// A request that needs notifications is not served over HTTP, as in
	// Besu: a known method that is not enabled there.
	{ErrNotificationsUnavailable, rpc.ErrMethodNotEnabled},
	{ErrSubscriptionNotFound, rpc.ErrSubscriptionNotFound},
	{ErrTooManySubscriptions, rpc.ErrExceedsMaxActiveSubscriptions},
	// The more specific filter error first: it wraps ErrFilterNotFound.
	{filters.ErrLogFilterNotFound, rpc.ErrLogsFilterNotFound},
	{filters.ErrFilterNotFound, rpc.ErrFilterNotFound},
	{filters.ErrBlockNotFound, rpc.ErrBlockNotFound},
	{filters.ErrRangeTooLarge, rpc.ErrExceedsMaxBlockRange},
	{filters.ErrTooManyFilters, rpc.ErrExceedsMaxActiveFilters},
	{context.DeadlineExceeded, rpc.ErrTimeout},
	{context.Canceled, rpc.ErrTimeout},
}

// jsonrpcError maps a service's error to the JSON-RPC error Besu answers;
// nil for an error that is none of the services' (the dispatcher answers
// it as is when it is an *rpc.Error, else -32603 "Internal error").
func jsonrpcError(err error) *rpc.Error {
	var (
		pool    *txpool.Error
		invalid *InvalidTransactionError
		params  *InvalidParamsError
		missing *BlockNotFoundError
		revert  *RevertError
		halt    *HaltError
		sim     *SpecError
		// tooLarge keeps its message: it names the flag to change.
		tooLarge *TraceTooLargeError
	)
	switch {
	case errors.As(err, &sim):
		return rpc.NewError(sim.Code, sim.Message)
	case errors.As(err, &pool):
		// Besu answers a refused submission with the catalogued error
		// alone. A refusal Besu has no code for (oversized data, init code
		// too large, …) answers -32602 with the pool's detail, where Besu
		// would say "Internal error".
		if pool.Reason == txpool.TxPoolFull && pool.Detail != "" {
			// Besu's message, with what the sender can do about it.
			return errPoolFull.WithReason(pool.Detail)
		}
		if e := reasonErrors[pool.Reason]; e != nil {
			return e
		}
		if pool.Detail != "" {
			return rpc.ErrInvalidParams.WithReason(pool.Detail)
		}
		return rpc.ErrInvalidParams
	case errors.As(err, &invalid):
		// A refused call carries the validator's message as the reason.
		e := reasonErrors[invalid.Reason]
		switch {
		case invalid.Reason == ReasonExecutionRefused:
			return rpc.NewError(-32000, invalid.Detail)
		case e == nil:
			e = rpc.ErrInternal // Besu's default for a reason it has no code for
		}
		if invalid.Detail == "" {
			return e
		}
		return e.WithReason(invalid.Detail)
	case errors.As(err, &params):
		e := paramErrors[params.Param]
		if e == nil {
			e = rpc.ErrInvalidParams
		}
		if params.Reason == "" {
			return e
		}
		return e.WithReason(params.Reason)
	case errors.As(err, &missing):
		return rpc.ErrBlockNotFound
	case errors.As(err, &revert):
		return rpc.Revert(revert.Data)
	case errors.As(err, &halt):
		return rpc.ErrExecutionHalted.WithReason(halt.Reason)
	case errors.As(err, &tooLarge):
		return rpc.NewError(-32000, tooLarge.Error())
	case errors.Is(err, filters.ErrTooManyResults):
		return errTooManyLogs.WithReason(err.Error() + "; narrow the block range or the filter")
	}
	for _, s := range sentinelErrors {
		if errors.Is(err, s.err) {
			return s.wire
		}
	}
	return nil
}
