// Package ethers runs the ethers.js v6 client test (test.mjs) against a
// real basalt dev node. The npm packages are installed by `npm ci` in this
// folder (.ci/run does it); without node_modules the test is skipped.
package ethers

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/testnode"
)

func TestEthers(t *testing.T) {
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skip("test/ethers/node_modules is absent: run `npm ci` in test/ethers to run the ethers.js test")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node_modules is installed but Node.js is not on PATH")
	}
	n := testnode.StartWS(t, t.TempDir(), "--network=dev", "--miner-enabled",
		"--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeJS, "test.mjs")
	cmd.Env = append(os.Environ(), "BASALT_HTTP="+n.URL, "BASALT_WS="+n.WSURL)
	out, err := cmd.CombinedOutput()
	t.Logf("node test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("ethers.js test failed: %v", err)
	}
}
