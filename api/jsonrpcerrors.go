package api

import (
	"context"
	"errors"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/txpool"
)

// This file is the JSON-RPC front end's one mapping of the services'
// domain errors (errors.go) to Besu's JSON-RPC errors. The method groups
// carry it (rpctypes.Group.Errors), so the dispatcher applies it to whatever a
// method returns; the methods and the services they call never build a
// JSON-RPC error, except while decoding parameters.

// Besu errors the rpc package does not name.
var (
	errPoolFull = rpctypes.NewError(-32000, "Transaction pool is full")
	// errChainIDRequired is Besu's REPLAY_PROTECTED_SIGNATURE_REQUIRED
	// (--strict-tx-replay-protection-enabled).
	errChainIDRequired = rpctypes.NewError(-32000, "ChainId is required")
	// errNotCanonical is Besu's JSON_RPC_NOT_CANONICAL_ERROR.
	errNotCanonical       = rpctypes.NewError(-32000, "Invalid input")
	errTooManyLogs        = rpctypes.NewError(-32005, "Query returned too many logs")
	errInvalidBlobs       = rpctypes.NewError(rpctypes.CodeInternalError, "blobs failed kzg validation")
	errTotalBlobGas       = rpctypes.NewError(-32000, "Total blob gas too high")
	errBlobGasPriceTooLow = rpctypes.NewError(-32009, "blob gas price below current blob base fee")
)

// reasonErrors are Besu's errors for its transaction-invalid reasons (its
// JsonRpcErrorConverter), whichever service gives the reason: the pool
// refusing a submission or the simulator refusing a call.
var reasonErrors = map[txpool.Reason]*rpctypes.Error{
	txpool.NonceTooLow:                                rpctypes.ErrNonceTooLow,
	backend.ReasonNonceTooHigh:                        rpctypes.ErrNonceTooHigh,
	txpool.NonceTooFarInFutureForSender:               rpctypes.ErrNonceTooFarInFutureForSender,
	txpool.InvalidSignature:                           rpctypes.ErrInvalidTransactionSignature,
	txpool.IntrinsicGasExceedsGasLimit:                rpctypes.ErrIntrinsicGasExceedsLimit,
	txpool.UpfrontCostExceedsBalance:                  rpctypes.ErrUpfrontCostExceedsBalance,
	txpool.ExceedsBlockGasLimit:                       rpctypes.ErrExceedsBlockGasLimit,
	txpool.GasPriceTooLow:                             rpctypes.ErrGasPriceTooLow,
	backend.ReasonGasPriceBelowCurrentBaseFee:         rpctypes.ErrGasPriceBelowCurrentBaseFee,
	backend.ReasonBlobGasPriceBelowCurrentBlobBaseFee: errBlobGasPriceTooLow,
	txpool.TxSenderNotAuthorized:                      rpctypes.ErrTxSenderNotAuthorized,
	txpool.TransactionAlreadyKnown:                    rpctypes.ErrKnownTransaction,
	txpool.TransactionReplacementUnderpriced:          rpctypes.ErrReplacementUnderpriced,
	txpool.TxPoolFull:                                 errPoolFull,
	txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas:    rpctypes.ErrMaxPriorityFeeExceedsMaxFee,
	txpool.WrongChainID:                               rpctypes.ErrWrongChainID,
	txpool.ReplayProtectedSignaturesNotSupported:      rpctypes.ErrReplayProtectedSignaturesNotSupported,
	txpool.ReplayProtectedSignatureRequired:           errChainIDRequired,
	txpool.TxFeecapExceeded:                           rpctypes.ErrTxFeeCapExceeded,
	txpool.InvalidTransactionFormat:                   rpctypes.ErrInvalidTransactionType,
	backend.ReasonInvalidBlobs:                        errInvalidBlobs,
	backend.ReasonTotalBlobGasTooHigh:                 errTotalBlobGas,
}

// paramErrors are Besu's -32602 errors for the parameters services check.
var paramErrors = map[backend.Param]*rpctypes.Error{
	backend.ParamAny:          rpctypes.ErrInvalidParams,
	backend.ParamBlockNumber:  rpctypes.ErrInvalidBlockNumberParams,
	backend.ParamBlockCount:   rpctypes.ErrInvalidBlockCountParams,
	backend.ParamCall:         rpctypes.ErrInvalidCallParams,
	backend.ParamStorageKeys:  rpctypes.ErrInvalidStorageKeysParams,
	backend.ParamTraceOptions: rpctypes.ErrInvalidTransactionTraceParams,
}

// errorTable maps domain errors to the JSON-RPC errors answered for them:
// the first entry whose err the error is (errors.Is) gives the answer, so a
// more specific error that wraps another comes before it.
type errorTable []struct {
	err  error
	wire *rpctypes.Error
}

// lookup is the answer for err, or nil when no entry matches.
func (t errorTable) lookup(err error) *rpctypes.Error {
	for _, e := range t {
		if errors.Is(err, e.err) {
			return e.wire
		}
	}
	return nil
}

// sentinelErrors are Besu's errors for the services' conditions.
var sentinelErrors = errorTable{
	{backend.ErrWorldStateUnavailable, rpctypes.ErrWorldStateUnavailable},
	{backend.ErrNotCanonical, errNotCanonical},
	{ErrGenesisNotTraceable, rpctypes.ErrGenesisBlockNotTraceable},
	{backend.ErrPoolDisabled, rpctypes.ErrTxPoolDisabled},
	{backend.ErrNoSigningKeys, rpctypes.ErrEthSendTxNotAvailable},
	{backend.ErrCoinbaseNotSpecified, rpctypes.ErrCoinbaseNotSpecified},
	{miner.ErrCoinbaseNotSet, rpctypes.ErrCoinbaseNotSet},
	{backend.ErrNoMiningWork, rpctypes.ErrNoMiningWorkFound},
	{backend.ErrP2PDisabled, rpctypes.ErrP2PDisabled},
	{backend.ErrP2PNotRunning, rpctypes.ErrP2PNetworkNotRunning},
	{backend.ErrLocalPeer, rpctypes.ErrCantConnectToLocalPeer},
	{backend.ErrPeerNotPermitted, rpctypes.ErrNonPermittedNodeCannotBeAddedAsAPeer},
	// A request that needs notifications is not served over HTTP, as in
	// Besu: a known method that is not enabled there.
	{ErrNotificationsUnavailable, rpctypes.ErrMethodNotEnabled},
	{ErrSubscriptionNotFound, rpctypes.ErrSubscriptionNotFound},
	{ErrTooManySubscriptions, rpctypes.ErrExceedsMaxActiveSubscriptions},
	// The more specific filter error first: it wraps ErrFilterNotFound.
	{filters.ErrLogFilterNotFound, rpctypes.ErrLogsFilterNotFound},
	{filters.ErrFilterNotFound, rpctypes.ErrFilterNotFound},
	{filters.ErrBlockNotFound, rpctypes.ErrBlockNotFound},
	{filters.ErrRangeTooLarge, rpctypes.ErrExceedsMaxBlockRange},
	{filters.ErrTooManyFilters, rpctypes.ErrExceedsMaxActiveFilters},
	{context.DeadlineExceeded, rpctypes.ErrTimeout},
	{context.Canceled, rpctypes.ErrTimeout},
}

// jsonrpcError maps a service's error to the JSON-RPC error Besu answers;
// nil for an error that is none of the services' (the dispatcher answers
// it as is when it is an *rpctypes.Error, else -32603 "Internal error").
func jsonrpcError(err error) *rpctypes.Error {
	var (
		pool    *txpool.Error
		invalid *backend.InvalidTransactionError
		params  *backend.InvalidParamsError
		missing *backend.BlockNotFoundError
		revert  *backend.RevertError
		halt    *backend.HaltError
		sim     *SpecError
		// tooLarge keeps its message: it names the flag to change.
		tooLarge *TraceTooLargeError
	)
	switch {
	case errors.As(err, &sim):
		return rpctypes.NewError(sim.Code, sim.Message)
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
			return rpctypes.ErrInvalidParams.WithReason(pool.Detail)
		}
		return rpctypes.ErrInvalidParams
	case errors.As(err, &invalid):
		// A refused call carries the validator's message as the reason.
		e := reasonErrors[invalid.Reason]
		switch {
		case invalid.Reason == backend.ReasonExecutionRefused:
			return rpctypes.NewError(-32000, invalid.Detail)
		case e == nil:
			e = rpctypes.ErrInternal // Besu's default for a reason it has no code for
		}
		if invalid.Detail == "" {
			return e
		}
		return e.WithReason(invalid.Detail)
	case errors.As(err, &params):
		e := paramErrors[params.Param]
		if e == nil {
			e = rpctypes.ErrInvalidParams
		}
		if params.Reason == "" {
			return e
		}
		return e.WithReason(params.Reason)
	case errors.As(err, &missing):
		return rpctypes.ErrBlockNotFound
	case errors.As(err, &revert):
		return rpctypes.Revert(revert.Data)
	case errors.As(err, &halt):
		return rpctypes.ErrExecutionHalted.WithReason(halt.Reason)
	case errors.As(err, &tooLarge):
		return rpctypes.NewError(-32000, tooLarge.Error())
	case errors.Is(err, filters.ErrTooManyResults):
		return errTooManyLogs.WithReason(err.Error() + "; narrow the block range or the filter")
	}
	return sentinelErrors.lookup(err)
}
