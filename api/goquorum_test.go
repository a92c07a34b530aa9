package api

import (
	"context"
	"errors"
	"testing"

	"github.com/basaltchain/basalt/backend"
)

// TestGoQuorumMethodsWithoutPTM: a node that is no GoQuorum party (no
// --ptm-url) answers GoQuorum's private methods as GoQuorum does without a
// transaction manager.
func TestGoQuorumMethodsWithoutPTM(t *testing.T) {
	e := &Eth{b: &backend.Backend{}}
	if _, err := e.GetQuorumPayload(context.Background(), "0x1234"); !errors.Is(err, errNoPTM) {
		t.Errorf("eth_getQuorumPayload: %v", err)
	}
	if _, err := e.SendRawPrivateTransaction(context.Background(), "0x00", SendRawTxArgs{PrivateFor: []string{}}); !errors.Is(err, errNoPTM) {
		t.Errorf("eth_sendRawPrivateTransaction: %v", err)
	}
	if e := jsonrpcError(errNoPTM); e == nil || e.Code != -32000 || e.Message != "PrivateTransactionManager is not enabled" {
		t.Errorf("wire error %+v", e)
	}
}
