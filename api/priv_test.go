package api

import (
	"errors"
	"fmt"
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/rpctypes"
)

// TestPrivErrors: the privacy service's errors answer Besu's codes and
// messages (reference/privacy.md §10.1), wrapped or not.
func TestPrivErrors(t *testing.T) {
	for _, tc := range []struct {
		err     error
		code    int
		message string
	}{
		{privacy.ErrDecode, -50100, "Unable to decode the private signed raw transaction"},
		{fmt.Errorf("x: %w", privacy.ErrValueNotZero), -50100, "We cannot transfer ether in private transaction yet."},
		{errors.Join(privacy.ErrEnclave, errors.New("dial tcp: refused")), -50100, "Error communicating with enclave"},
		{privacy.ErrGroupNotFound, -50100, "Privacy group does not exist."},
		{privacy.ErrNonce, -50100, "Unable to determine nonce for account in group."},
		{&privacy.EnclaveError{Code: "NodeMissingPeerUrl"}, -50200, "NodeMissingPeerUrl"},
		{privacy.ErrNonceTooLow, -32001, "Nonce too low"},
		{privacy.ErrNonceTooHigh, -32006, "Nonce too high"},
		{privacy.ErrInvalidSignature, -32002, "Invalid signature"},
		{privacy.ErrWrongChainID, -32000, "Wrong chainId"},
		{privacy.ErrNoTenant, rpctypes.CodeUnauthorized, "Unauthorized"},
	} {
		got := privError(tc.err)
		if got == nil || got.Code != tc.code || got.Message != tc.message {
			t.Errorf("%v: %+v, want %d %s", tc.err, got, tc.code, tc.message)
		}
	}
	if got := privError(backend.ErrPoolDisabled); got != rpctypes.ErrTxPoolDisabled {
		t.Errorf("other errors: %+v", got)
	}
}
