package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestBFTMode: bench bft starts a two-validator network, offers a small
// rate of transfers, and reports blocks, latency and every node's CPU and
// RSS; it stops the network afterwards.
func TestBFTMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "net")
	base := proctest.FreePortRange(t, 20)
	r := runBench(t, "bft", "--dir", dir, "--basalt", testnode.Binary(t), "--validators", "2", "--base-port", strconv.Itoa(base),
		"--warmup", "1s", "--duration", "4s", "--rate", "20", "--senders", "4", "--sample", "1s")["bft"].(map[string]any)
	nodes := r["nodes"].([]any)
	if r["blocks"].(float64) < 1 || r["submitted"].(float64) < 1 || r["mined"].(float64) < 1 || len(nodes) != 2 {
		t.Fatalf("bft %v", r)
	}
	for _, n := range nodes {
		n := n.(map[string]any)
		if n["pid"].(float64) <= 0 || n["cores"].(float64) < 0 || n["rssMiB"].(float64) <= 0 || n["samples"].(float64) < 2 {
			t.Errorf("node %v", n)
		}
	}
	if _, running := localnet.Running(dir); running {
		t.Error("the network bench started still runs")
	}
}

// TestHeadRound reads the round of QBFT and IBFT 2.0 extraData (the
// fourth item), 0 for anything else.
func TestHeadRound(t *testing.T) {
	extra := func(round []byte) hexutil.Bytes {
		b, err := rlp.EncodeToBytes([]any{make([]byte, 32), [][]byte{}, []byte{}, round, [][]byte{}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		extra hexutil.Bytes
		want  uint64
	}{
		{extra([]byte{}), 0},
		{extra([]byte{0, 0, 0, 2}), 2}, // IBFT 2.0: four bytes
		{extra([]byte{3}), 3},          // QBFT: a scalar
		{make([]byte, 32), 0},          // Clique's vanity
	} {
		if got := (head{ExtraData: c.extra}).round(); got != c.want {
			t.Errorf("%x: round %d, want %d", c.extra, got, c.want)
		}
	}
}

// TestSlope: the least-squares slope in MiB per hour.
func TestSlope(t *testing.T) {
	s := []rssSample{{0, 100}, {0.5, 101}, {1, 102}}
	if got := slope(s); got < 1.999 || got > 2.001 {
		t.Fatalf("slope %v, want 2", got)
	}
	if slope(s[:1]) != 0 {
		t.Fatal("one sample has a slope")
	}
}
