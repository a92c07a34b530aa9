package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
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

// devCoinbase receives the dev node's block rewards.
const devCoinbase = "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"

// runBench runs the command in-process and decodes its final JSON line.
func runBench(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, logs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, args, &out, &logs); err != nil {
		t.Fatalf("bench %s: %v\n%s", strings.Join(args, " "), err, logs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var v map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil {
		t.Fatalf("final line %q: %v", lines[len(lines)-1], err)
	}
	t.Logf("%s", logs.String())
	return v
}

// TestSmoke runs every mode briefly against a mining dev node, so that the
// harness keeps building and running. It checks that the figures are there
// and that nothing failed, never how fast anything was.
func TestSmoke(t *testing.T) {
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--miner-enabled", "--miner-coinbase="+devCoinbase)

	rpc := runBench(t, "rpc", "--url", n.URL, "--duration", "200ms", "--warmup", "50ms", "--concurrency", "1,4")
	rs := rpc["rpc"].([]any)
	if len(rs) != 8 {
		t.Fatalf("rpc results: %d, want 4 methods × 2 concurrencies", len(rs))
	}
	for _, r := range rs {
		r := r.(map[string]any)
		if r["requests"].(float64) == 0 || r["errors"].(float64) != 0 || r["serverCPUs"].(float64) < 0 {
			t.Errorf("rpc result %v", r)
		}
	}

	tps := runBench(t, "tps", "--url", n.URL, "--txs", "300", "--senders", "12", "--workers", "6", "--stage", "5", "--timeout", "60s")["tps"].(map[string]any)
	if tps["accepted"].(float64) != 300 || tps["mined"].(float64) != 300 || tps["unmined"].(float64) != 0 {
		t.Errorf("tps %v", tps)
	}
	batched := runBench(t, "tps", "--url", n.URL, "--txs", "100", "--senders", "4", "--workers", "2", "--batch", "10")["tps"].(map[string]any)
	if batched["mined"].(float64) != 100 {
		t.Errorf("batched tps %v", batched)
	}

	// ERC-20 transfers offered at a steady rate: every one mined and
	// moving its token (tokenBalanceOK), latencies reported.
	erc := runBench(t, "tps", "--url", n.URL, "--kind", "erc20", "--rate", "200", "--txs", "100", "--senders", "4", "--workers", "4")["tps"].(map[string]any)
	if erc["mined"].(float64) != 100 || erc["tokenBalanceOK"] != true || erc["latencyP50ms"].(float64) <= 0 ||
		erc["latencyP99ms"].(float64) < erc["latencyP50ms"].(float64) {
		t.Errorf("erc20 tps %v", erc)
	}

	cmp := runBench(t, "compare", "--a", n.URL, "--b", n.URL, "--rounds", "1", "--methods", "eth_blockNumber",
		"--concurrency", "2", "--duration", "100ms", "--warmup", "0s")["compare"].(map[string]any)
	if rat := cmp["ratios"].([]any); len(rat) == 0 {
		t.Errorf("compare without ratios: %v", cmp)
	}

	imp := runBench(t, "import", "--generate", "3", "--generate-txs", "5", "--runs", "1", "--client", "basalt:"+testnode.Binary(t))["import"].(map[string]any)
	if imp["blocks"].(float64) != 3 || len(imp["runs"].([]any)) != 1 {
		t.Errorf("import %v", imp)
	}
}

// TestUsage checks that bad invocations fail with a message.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"rpc", "--concurrency", "0"}, {"import"}, {"compare"}, {"tps", "--kind", "erc721"}, {"tps", "--rate", "-1"}} {
		var out, logs bytes.Buffer
		if err := run(context.Background(), args, &out, &logs); err == nil {
			t.Errorf("bench %v: no error", args)
		}
	}
}

// TestImportTimeParse reads the import time each client prints.
func TestImportTimeParse(t *testing.T) {
	basalt := "Imported 1000 blocks (0 skipped, 100000 transactions) in 6.81s: 146.8 blocks/s, 399.3 Mgas/s. Head 1000 0x6d"
	if m := basaltImported.FindStringSubmatch(basalt); m == nil || m[1] != "6.81" {
		t.Errorf("basalt: %v", m)
	}
	geth := "INFO [11-25|06:14:24.000] Imported new chain segment\nImport done in 10.987654321s.\n"
	if m := gethImportDone.FindStringSubmatch(geth); m == nil || m[1] != "10.987654321s" {
		t.Errorf("geth: %v", m)
	}
}
