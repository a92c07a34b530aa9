package clique

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/metrics"
)

// gathered returns the value of the series name{label=value} (label ""
// for a series without labels), and whether it exists.
func gathered(t *testing.T, r *metrics.Registry, name, label, value string) (float64, bool) {
	t.Helper()
	families, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			match := label == ""
			for _, l := range m.GetLabel() {
				match = match || (l.GetName() == label && l.GetValue() == value)
			}
			if !match {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			}
		}
	}
	return 0, false
}

// TestMetrics: the signer count of the snapshots the engine uses, the
// blocks it seals by turn, its pending proposals; a nil registry (metrics
// off) records nothing and costs no checks in the engine.
func TestMetrics(t *testing.T) {
	n := newTestNet(t, Config{Period: 1, Epoch: 30000, CreateEmptyBlocks: true}, "A", "A", "B")
	reg := metrics.New(metrics.Config{Categories: metrics.NodeDefaults})
	n.engine.SetMetrics(reg)
	seal := func() *types.Header {
		parent := n.chain.CurrentHeader()
		h := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1),
			GasLimit: parent.GasLimit, UncleHash: types.EmptyUncleHash, TxHash: types.EmptyTxsHash,
			ReceiptHash: types.EmptyReceiptsHash, Root: parent.Root}
		if err := n.engine.Prepare(n.chain, h, parent); err != nil {
			t.Fatal(err)
		}
		h.BaseFee = n.next(block{signer: "A"}).BaseFee
		sealed, err := n.engine.Seal(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		n.verify(sealed)
		n.chain.add(sealed)
		return sealed
	}
	order := n.turnOrder("A", "B")
	first := seal() // block 1: A's turn when A sorts second
	turn := "out"
	if order[1] == "A" {
		turn = "in"
	}
	if first.Difficulty.Cmp(map[string]*big.Int{"in": DiffInTurn, "out": DiffNoTurn}[turn]) != 0 {
		t.Fatalf("block 1 difficulty %v, want %s of turn", first.Difficulty, turn)
	}
	if v, ok := gathered(t, reg, "besu_consensus_clique_sealed_blocks_total", "turn", turn); !ok || v != 1 {
		t.Fatalf("sealed %s of turn: %v %v", turn, v, ok)
	}
	other := map[string]string{"in": "out", "out": "in"}[turn]
	if v, ok := gathered(t, reg, "besu_consensus_clique_sealed_blocks_total", "turn", other); !ok || v != 0 {
		t.Fatalf("sealed %s of turn: %v %v, want a series at 0", other, v, ok)
	}
	if v, ok := gathered(t, reg, "besu_consensus_clique_signers", "", ""); !ok || v != 2 {
		t.Fatalf("signers %v %v", v, ok)
	}
	if v, _ := gathered(t, reg, "besu_consensus_clique_proposals", "", ""); v != 0 {
		t.Fatalf("proposals %v", v)
	}
	n.engine.Propose(n.acc.address("C"), true)
	if v, _ := gathered(t, reg, "besu_consensus_clique_proposals", "", ""); v != 1 {
		t.Fatalf("proposals after clique_propose %v", v)
	}

	off := newTestNet(t, defaultCfg, "A", "A")
	off.engine.SetMetrics(nil)
	off.extend("A")
	off.engine.metrics.observeSealed(first)
}
