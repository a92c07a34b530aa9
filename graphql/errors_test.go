package graphql

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/txpool"
)

// The GraphQL mapping of the services' domain errors and the resolvers'
// own: Besu's GraphQLError codes and messages, or an exception's message.
func TestFailureMapping(t *testing.T) {
	hash := common.HexToHash("0x12")
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{&txpool.Error{Reason: txpool.NonceTooLow}, -32001, "Nonce too low"},
		{&txpool.Error{Reason: txpool.TransactionAlreadyKnown}, -32000, "Known transaction"},
		{&txpool.Error{Reason: txpool.OversizedData, Detail: "too big"}, -32602, "Invalid params (too big)"},
		{&backend.InvalidTransactionError{Reason: txpool.UpfrontCostExceedsBalance, Detail: "poor"}, -32004, "Upfront cost exceeds account balance (poor)"},
		{&backend.InvalidTransactionError{Reason: txpool.InitcodeTooLarge, Detail: "big"}, -32603, "Internal error (big)"},
		{&backend.InvalidTransactionError{Reason: backend.ReasonExecutionRefused, Detail: "no"}, -32000, "no"},
		{&backend.InvalidParamsError{Param: backend.ParamBlockNumber}, -32602, "Invalid params"},
		{&backend.BlockNotFoundError{Number: 544}, 0, "Block number 544 was not found"},
		{&backend.BlockNotFoundError{Hash: &hash}, 0, "Block hash " + hash.Hex() + " was not found"},
		{backend.ErrWorldStateUnavailable, -32008, "Initial sync is still in progress"},
		{filters.ErrRangeTooLarge, -32005, "Requested range exceeds maximum RPC range limit"},
		{errBlocksRangeTooLarge, -32005, "Requested range exceeds maximum RPC range limit"},
		{fmt.Errorf("%w: more than 5", filters.ErrTooManyResults), -32005, "Too many logs in the requested range"},
		{context.DeadlineExceeded, -32603, "Timeout expired"},
		{errPanicked, -32603, "Internal error"},
		{errors.New("transaction 0x1 of log not found"), 0, "transaction 0x1 of log not found"},
	} {
		got := failure(tc.err)
		if got.code != tc.code || got.msg != tc.msg {
			t.Errorf("%v: got %d %q, want %d %q", tc.err, got.code, got.msg, tc.code, tc.msg)
		}
	}
	// The shared values are not modified by a mapping that adds a detail.
	failure(&txpool.Error{Reason: txpool.OversizedData, Detail: "x"})
	if errInvalidParams.msg != "Invalid params" {
		t.Fatalf("errInvalidParams changed to %q", errInvalidParams.msg)
	}
}
