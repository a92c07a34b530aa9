// Package caliper runs Hyperledger Caliper 0.6 (npm @hyperledger/caliper-cli
// with the ethereum:1.3 binding, web3 1.3.0 over WebSocket) against a
// 4-validator `basalt network up`: the simple workload (open, query,
// transfer) of caliper-benchmarks, written here from its description
// (simple.sol, workload/). The npm packages are installed by `npm ci` in
// this folder (.ci/run does it); without node_modules the test is skipped.
// The full run at 1,000 tx/s is a benchmark: bench/caliper.sh.
package caliper

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// round is one line of run.js's output.
type round struct {
	Round         string  `json:"round"`
	Succ          int     `json:"succ"`
	Fail          int     `json:"fail"`
	SendTPS       float64 `json:"sendTPS"`
	AvgLatency    float64 `json:"avgLatency"`
	ThroughputTPS float64 `json:"throughputTPS"`
}

// TestCaliperSimple runs the simple workload, 200 transactions a round, with
// two workers (two senders, each with its own nonces and its own
// connection, where web3 opens a newHeads subscription per pending
// transaction) against a default `network up`: every round completes and
// no transaction fails.
func TestCaliperSimple(t *testing.T) {
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skip("test/caliper/node_modules is absent: run `npm ci` in test/caliper to run the Caliper test")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node_modules is installed but Node.js is not on PATH")
	}
	runJS, err := filepath.Abs("run.js")
	if err != nil {
		t.Fatal(err)
	}

	work, base := proctest.NetworkUp(t)

	// Caliper stops a round on its own only when every transaction is
	// done (web3 gives up on one after 50 blocks); this bounds a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out := filepath.Join(work, "caliper")
	const txs = 200
	cmd := exec.CommandContext(ctx, nodeJS, runJS, "--url", "ws://127.0.0.1:"+strconv.Itoa(base+1),
		"--workers", "2", "--txs", strconv.Itoa(txs), "--tps", "100", "--out", out)
	// SIGTERM, which run.js passes on to Caliper's process group.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.CombinedOutput()
	t.Logf("node run.js:\n%s", stdout)
	if err != nil {
		logs, _ := os.ReadFile(filepath.Join(out, "caliper.log"))
		t.Fatalf("run.js: %v\nCaliper's log (end):\n%s", err, tail(string(logs), 60))
	}
	var got []round
	sc := bufio.NewScanner(strings.NewReader(string(stdout)))
	for sc.Scan() {
		var r round
		if json.Unmarshal([]byte(sc.Text()), &r) == nil && r.Round != "" {
			got = append(got, r)
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d rounds reported, want open, query and transfer", len(got))
	}
	for _, r := range got {
		if r.Fail != 0 || r.Succ != txs {
			t.Errorf("round %s: %d succeeded, %d failed; want %d and 0", r.Round, r.Succ, r.Fail, txs)
		}
	}
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}
