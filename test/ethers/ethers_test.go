// Package ethers runs real JavaScript Ethereum clients against a real basalt
// dev node and a basalt-signer in front of it: ethers.js v6 (test.mjs,
// TestEthers) and viem (viem.mjs, TestViem), each against a node of its
// own so that a failure points at one client. The npm packages are
// installed by `npm ci` in this folder (.ci/run does it); without
// node_modules the tests are skipped.
package ethers

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// The dev accounts the scripts use (README): the wallet signs locally with
// dev0 (ethers) or dev2 (viem); basalt-signer holds dev1.
const signerAccount = 1

func TestEthers(t *testing.T) { runClient(t, "test.mjs") }

func TestViem(t *testing.T) { runClient(t, "viem.mjs") }

// runClient starts a dev node as the README does (`--network=dev
// --miner-enabled --miner-coinbase=<dev0>`, plus loopback ports and
// WebSocket), a basalt-signer process in front of it holding a dev key in
// a V3 keystore, and runs script with Node.js. The script prints one line
// per check and exits non-zero if any failed.
func runClient(t *testing.T, script string) {
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skip("test/ethers/node_modules is absent: run `npm ci` in test/ethers to run the JavaScript client tests")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node_modules is installed but Node.js is not on PATH")
	}
	n := testnode.StartWS(t, t.TempDir(), "--network=dev", "--miner-enabled",
		"--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	signerURL := startSigner(t, n.URL, signerAccount)

	// Every wait inside the scripts is bounded (a minute at most); this
	// only stops a script that hangs regardless.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, nodeJS, script)
	cmd.Env = append(os.Environ(), "BASALT_HTTP="+n.URL, "BASALT_WS="+n.WSURL, "BASALT_SIGNER="+signerURL)
	out, err := cmd.CombinedOutput()
	t.Logf("node %s (%v):\n%s", script, time.Since(start).Round(time.Millisecond), out)
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within 2 minutes", script)
	}
	if err != nil {
		t.Fatalf("%s failed: %v", script, err)
	}
}
