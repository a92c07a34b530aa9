package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestNetworkMode: bench network starts a two-validator network (none
// runs in --dir), loads it, and stops it; every transfer is mined.
func TestNetworkMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "net")
	base := proctest.FreePortRange(t, 20)
	r := runBench(t, "network", "--dir", dir, "--basalt", testnode.Binary(t), "--validators", "2", "--base-port", strconv.Itoa(base),
		"--txs", "200", "--senders", "8", "--workers", "4", "--timeout", "60s")["network"].(map[string]any)
	tps := r["tps"].(map[string]any)
	if r["started"] != true || r["validators"].(float64) != 2 || tps["accepted"].(float64) != 200 || tps["mined"].(float64) != 200 {
		t.Errorf("network %v", r)
	}
	if _, running := localnet.Running(dir); running {
		t.Error("the network bench started still runs")
	}
}
