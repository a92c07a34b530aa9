package driver

import "github.com/basaltchain/basalt/metrics"

// Metrics are what the driver records about the consensus it runs. They
// live here, in the adapter, and not in the core: the core stays a pure
// state machine, and the driver reads its view after every step. The zero
// value records nothing.
type Metrics struct {
	// Height is the block number being decided.
	Height metrics.Gauge
	// Round is its current round (0 unless a proposer was late or down).
	Round metrics.Gauge
	// RoundChanges counts moves to a higher round of the same height.
	RoundChanges metrics.Counter
	// Committed counts the blocks the local validator committed.
	Committed metrics.Counter
	// Rejected counts peer messages the core refused (other than old or
	// duplicate ones): bad signatures, wrong proposers, invalid blocks.
	Rejected metrics.Counter
}

// NewMetrics returns the metrics of the BFT engine named engine ("ibft2",
// "qbft") in the registry's CONSENSUS category, e.g.
// besu_consensus_ibft2_round_changes_total. A nil registry (metrics off)
// gives no-ops.
func NewMetrics(r *metrics.Registry, engine string) Metrics {
	return Metrics{
		Height:       r.Gauge(metrics.Consensus, engine+"_height", "Block number the local validator is deciding"),
		Round:        r.Gauge(metrics.Consensus, engine+"_round", "Round of the height being decided"),
		RoundChanges: r.Counter(metrics.Consensus, engine+"_round_changes_total", "Moves to a higher round of the same height"),
		Committed:    r.Counter(metrics.Consensus, engine+"_committed_blocks_total", "Blocks committed by the local validator"),
		Rejected:     r.Counter(metrics.Consensus, engine+"_messages_rejected_total", "Peer messages the consensus core refused, old and duplicate ones aside"),
	}
}

// orNop fills the metrics left nil with no-ops.
func (m Metrics) orNop() Metrics {
	if m.Height == nil {
		m.Height = metrics.Nop
	}
	if m.Round == nil {
		m.Round = metrics.Nop
	}
	if m.RoundChanges == nil {
		m.RoundChanges = metrics.Nop
	}
	if m.Committed == nil {
		m.Committed = metrics.Nop
	}
	if m.Rejected == nil {
		m.Rejected = metrics.Nop
	}
	return m
}

// observe records the core's view: the height and round, and a round
// change when the round went up within the same height.
func (r *runner) observe() {
	v := r.core.View()
	if v == r.seen {
		return
	}
	if v.Sequence != r.seen.Sequence && r.cfg.MetricsAt != nil {
		// A new height may belong to another protocol (a migration).
		r.m = r.cfg.MetricsAt(v.Sequence).orNop()
	}
	if v.Sequence == r.seen.Sequence && v.Round > r.seen.Round {
		r.m.RoundChanges.Inc()
	}
	r.m.Height.Set(float64(v.Sequence))
	r.m.Round.Set(float64(v.Round))
	r.seen = v
}
