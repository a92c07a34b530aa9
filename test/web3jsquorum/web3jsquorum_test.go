// Package web3jsquorum runs web3js-quorum, the library Besu documents for
// private transactions, against a network started as the README's
// Quickstart starts it.
package web3jsquorum

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// TestWeb3jsQuorum: `basalt network up --privacy --signer` (in the
// background), then test.js with web3js-quorum 22.4.0 and web3 1.x as
// published — no shim: privacy groups created, found and deleted; a
// contract compiled by npm solc deployed and called with
// generateAndSendRawTransaction (whose raw transaction hex has no 0x) and
// waited for with waitForTransactionReceipt; priv.call, getCode, getLogs,
// getTransactionCount on the other member; subscribeWithPooling over HTTP
// and WebSocket; generateAndDistributeRawTransaction with a marker sent
// through basalt-signer; a non-member reading nothing; failing private
// transactions' revertReason and failureReason.
func TestWeb3jsQuorum(t *testing.T) {
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skip("test/web3jsquorum/node_modules is absent: run `npm ci` in test/web3jsquorum to run the web3js-quorum tests")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node_modules is installed but Node.js is not on PATH")
	}
	script, err := filepath.Abs("test.js")
	if err != nil {
		t.Fatal(err)
	}

	work, _ := proctest.NetworkUp(t, "--privacy", "--signer")

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeJS, script)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	t.Logf("node test.js:\n%s", out)
	if err != nil {
		t.Fatalf("test.js: %v", err)
	}
	for _, want := range []string{
		"ok privacy groups created, found and deleted",
		"ok deploy (generateAndSendRawTransaction, waitForTransactionReceipt)",
		"ok call (generateAndSendRawTransaction)",
		"ok priv.call", "ok priv.getCode", "ok priv.getLogs", "ok priv.getTransactionCount",
		"ok subscribeWithPooling (HTTP polling and WebSocket)",
		"ok generateAndDistributeRawTransaction (marker through basalt-signer)",
		"ok non-member reads nothing",
		"ok failed private transaction: revertReason 0x08c379a0… (Store: always fails)",
		"ok failed private transaction: failureReason Invalid opcode: 0xfe",
		"ok priv.getTransactionCount after failures",
	} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("the output lacks %q", want)
		}
	}
}
