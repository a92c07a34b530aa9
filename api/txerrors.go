package api

import (
	"errors"

	"github.com/ethereum/go-ethereum/core"

	"github.com/basaltchain/basalt/rpc"
)

// Besu errors the methods answer that the rpc package does not name.
var (
	errPoolFull = rpc.NewError(-32000, "Transaction pool is full")
	// errChainIDRequired is Besu's REPLAY_PROTECTED_SIGNATURE_REQUIRED
	// (--strict-tx-replay-protection-enabled).
	errChainIDRequired    = rpc.NewError(-32000, "ChainId is required")
	errSendTxNotSupported = rpc.ErrEthSendTxNotAvailable
	errCoinbaseNotSet     = rpc.ErrCoinbaseNotSet
	errNoMiningWork       = rpc.ErrNoMiningWorkFound
	errWorldStateUnavail  = rpc.ErrWorldStateUnavailable
	// errNotCanonical is Besu's JSON_RPC_NOT_CANONICAL_ERROR, for a block
	// hash given with requireCanonical that is not on the canonical chain.
	errNotCanonical = rpc.NewError(-32000, "Invalid input")
)

// txError maps a state-transition failure that got past the simulator's
// own (Besu) checks to the nearest Besu error, keeping go-ethereum's
// detail as the reason.
func txError(err error) error {
	var e *rpc.Error
	if errors.As(err, &e) {
		return err
	}
	detail := err.Error()
	switch {
	case errors.Is(err, core.ErrNonceTooLow):
		return rpc.ErrNonceTooLow.WithReason(detail)
	case errors.Is(err, core.ErrNonceTooHigh):
		return rpc.ErrNonceTooHigh.WithReason(detail)
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		return rpc.ErrIntrinsicGasExceedsLimit.WithReason(detail)
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		return rpc.ErrUpfrontCostExceedsBalance.WithReason(detail)
	case errors.Is(err, core.ErrGasLimitReached):
		return rpc.ErrExceedsBlockGasLimit.WithReason(detail)
	case errors.Is(err, core.ErrTipAboveFeeCap):
		return rpc.ErrMaxPriorityFeeExceedsMaxFee.WithReason(detail)
	case errors.Is(err, core.ErrFeeCapTooLow):
		return rpc.ErrGasPriceBelowCurrentBaseFee.WithReason(detail)
	}
	return rpc.NewError(-32000, detail)
}
