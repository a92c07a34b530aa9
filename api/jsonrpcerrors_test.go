package api

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/txpool"
)

// The JSON-RPC mapping of every kind of domain error, with Besu's codes
// and messages, wrapped or not.
func TestJSONRPCErrorMapping(t *testing.T) {
	revertData := []byte{0xde, 0xad}
	for _, tc := range []struct {
		err  error
		code int
		msg  string
		data any
	}{
		{&txpool.Error{Reason: txpool.NonceTooLow, Detail: "nonce 1 < 2"}, -32001, "Nonce too low", nil},
		{&txpool.Error{Reason: txpool.TransactionAlreadyKnown}, -32000, "Known transaction", nil},
		{&txpool.Error{Reason: txpool.TxPoolFull}, -32000, "Transaction pool is full", nil},
		{&txpool.Error{Reason: txpool.TxPoolFull, Detail: "resend later"}, -32000, "Transaction pool is full (resend later)", nil},
		{&txpool.Error{Reason: txpool.OversizedData, Detail: "too big"}, -32602, "Invalid params (too big)", nil},
		{&backend.InvalidTransactionError{Reason: txpool.UpfrontCostExceedsBalance}, -32004, "Upfront cost exceeds account balance", nil},
		{backend.InvalidTx(txpool.NonceTooLow, "transaction nonce %d below sender account nonce %d", 1, 2), -32001, "Nonce too low (transaction nonce 1 below sender account nonce 2)", nil},
		{backend.InvalidTx(backend.ReasonGasPriceBelowCurrentBaseFee, "low"), -32009, "Gas price below current base fee (low)", nil},
		{backend.InvalidTx(backend.ReasonInvalidBlobs, "none"), -32603, "blobs failed kzg validation (none)", nil},
		{backend.InvalidTx(txpool.InitcodeTooLarge, "big"), -32603, "Internal error (big)", nil},
		{backend.InvalidTx(backend.ReasonExecutionRefused, "sender not an eoa"), -32000, "sender not an eoa", nil},
		{backend.InvalidParams(backend.ParamAny, ""), -32602, "Invalid params", nil},
		{backend.InvalidParams(backend.ParamBlockNumber, ""), -32602, "Invalid block number params", nil},
		{backend.InvalidParams(backend.ParamCall, "account %s is not a precompile", "0x01"), -32602, "Invalid call params (account 0x01 is not a precompile)", nil},
		{backend.InvalidParams(backend.ParamStorageKeys, ""), -32602, "Invalid storage keys params", nil},
		{backend.InvalidParams(backend.ParamBlockCount, ""), -32602, "Invalid block count params", nil},
		{&backend.BlockNotFoundError{Number: 9}, -32000, "Block not found", nil},
		{&backend.RevertError{Data: revertData}, 3, "Execution reverted", "0xdead"},
		{&backend.HaltError{Reason: "Out of gas"}, -32000, "Transaction processing could not be completed due to an exception (Out of gas)", nil},
		{backend.ErrWorldStateUnavailable, -32000, "World state unavailable", nil},
		{backend.ErrNotCanonical, -32000, "Invalid input", nil},
		{backend.ErrPoolDisabled, -32002, rpctypes.ErrTxPoolDisabled.Message, nil},
		{backend.ErrNoSigningKeys, -32604, rpctypes.ErrEthSendTxNotAvailable.Message, nil},
		{backend.ErrCoinbaseNotSpecified, -32000, "Coinbase must be explicitly specified", nil},
		{miner.ErrCoinbaseNotSet, -32010, "Coinbase not set. Unable to start mining without a coinbase", nil},
		{backend.ErrNoMiningWork, -32000, "No mining work available yet", nil},
		{backend.ErrP2PDisabled, -32000, "P2P has been disabled. This functionality is not available", nil},
		{backend.ErrP2PNotRunning, -32000, "P2P network is not running", nil},
		{backend.ErrLocalPeer, -32100, "Cannot add local node as peer.", nil},
		{ErrNotificationsUnavailable, -32604, "Method not enabled", nil},
		{ErrSubscriptionNotFound, -32000, "Subscription not found", nil},
		{ErrTooManySubscriptions, -32005, "Maximum number of active subscriptions exceeded", nil},
		{filters.ErrFilterNotFound, -32000, "Filter not found", nil},
		{filters.ErrLogFilterNotFound, -32000, "Logs filter not found", nil},
		{filters.ErrBlockNotFound, -32000, "Block not found", nil},
		{filters.ErrRangeTooLarge, -32005, "Requested range exceeds maximum RPC range limit", nil},
		{filters.ErrTooManyFilters, -32005, "Maximum number of active filters exceeded", nil},
		{context.DeadlineExceeded, -32603, "Timeout expired", nil},
	} {
		for _, err := range []error{tc.err, fmt.Errorf("context: %w", tc.err)} {
			got := jsonrpcError(err)
			if got == nil || got.Code != tc.code || got.Message != tc.msg || got.Data != tc.data {
				t.Errorf("%v: got %+v, want %d %q %v", err, got, tc.code, tc.msg, tc.data)
			}
		}
	}
	// The filter system's detail (the cap) is the reason.
	tooMany := fmt.Errorf("%w: more than 5", filters.ErrTooManyResults)
	if got := jsonrpcError(tooMany); got == nil || got.Code != -32005 ||
		got.Message != "Query returned too many logs (too many logs: more than 5; narrow the block range or the filter)" {
		t.Errorf("too many logs: %+v", got)
	}
	// Errors that are none of the services' are left to the dispatcher.
	if got := jsonrpcError(errors.New("disk on fire")); got != nil {
		t.Errorf("unknown error mapped to %+v", got)
	}
	if got := jsonrpcError(rpctypes.ErrInvalidDataParams); got != nil {
		t.Errorf("JSON-RPC error mapped to %+v", got)
	}
}

// The submission service answers domain errors, whichever front end asks.
func TestSendTransactionErrors(t *testing.T) {
	b := &backend.Backend{}
	if _, err := b.SendRawTransaction(context.Background(), []byte{0x01, 0x02}); !errors.As(err, new(*backend.InvalidParamsError)) {
		t.Errorf("undecodable: %v", err)
	}
	e := &Eth{b}
	if _, err := e.SendRawTransaction(context.Background(), "0xzz"); !errors.As(err, new(*backend.InvalidParamsError)) {
		t.Errorf("bad hex: %v", err)
	}
	if _, err := e.SendTransaction(); !errors.Is(err, backend.ErrNoSigningKeys) {
		t.Errorf("eth_sendTransaction: %v", err)
	}
}
