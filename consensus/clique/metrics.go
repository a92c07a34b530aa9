package clique

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/metrics"
)

// engineMetrics are what the engine records in the CONSENSUS category
// (besu_consensus_clique_*): what a Clique operator watches in place of a
// BFT engine's rounds. An out-of-turn block is Clique's round change: the
// signer whose turn it was did not seal in time.
type engineMetrics struct {
	signers metrics.Gauge       // authorised signers after the latest block verified or built on
	sealed  *metrics.CounterVec // blocks this node sealed, by turn ("in", "out")
}

// SetMetrics implements metrics.Instrumented: the node hands over its
// registry (nil with metrics off) before the engine verifies or seals.
func (e *Engine) SetMetrics(r *metrics.Registry) {
	e.metrics = engineMetrics{
		signers: r.Gauge(metrics.Consensus, "clique_signers", "Authorised signers after the latest block verified or built on"),
		sealed:  r.CounterVec(metrics.Consensus, "clique_sealed_blocks_total", "Blocks this node sealed, in its turn (difficulty 2) or out of it (1)", "turn"),
	}
	// Both series from the start, at 0: a signer that has not sealed yet
	// (or never out of turn) shows a flat line, not "no data".
	e.metrics.sealed.With("in")
	e.metrics.sealed.With("out")
	r.GaugeFunc(metrics.Consensus, "clique_proposals", "This node's pending proposals (clique_propose) to add or drop a signer", func() float64 {
		return float64(len(e.proposals.Pending()))
	})
}

// observeSigners records the signer count of a snapshot the engine used.
func (m engineMetrics) observeSigners(s *Snapshot) {
	if m.signers != nil {
		m.signers.Set(float64(len(s.Signers)))
	}
}

// observeSealed counts a block the node sealed, by turn.
func (m engineMetrics) observeSealed(h *types.Header) {
	turn := "out"
	if h.Difficulty != nil && h.Difficulty.Cmp(DiffInTurn) == 0 {
		turn = "in"
	}
	m.sealed.With(turn).Inc()
}
