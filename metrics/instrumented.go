package metrics

// Instrumented is a component that exports metrics of its own, such as a
// consensus engine (a BFT core's rounds and round changes, Clique's votes).
// The node hands it its registry once, before the engine produces or
// verifies anything, through the same capability lookup as the engine's
// other capabilities (node/engine.go; every layer of a consensus.Wrapper is
// asked). It is declared here rather than in consensus so that the
// interface package imports nothing of Basalt's. The registry is nil with
// metrics off, and a nil registry gives no-op metrics, so an engine creates
// each metric in one line and never checks whether metrics are on:
//
//	func (e *Engine) SetMetrics(r *metrics.Registry) {
//		e.roundChanges = r.Counter(metrics.Consensus, "ibft_round_changes_total", "Round changes of the IBFT 2.0 core")
//	}
type Instrumented interface {
	SetMetrics(r *Registry)
}
