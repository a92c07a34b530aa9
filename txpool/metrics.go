package txpool

import "github.com/basaltchain/basalt/metrics"

// Removal operations, the operation label of
// besu_transaction_pool_transactions_removed_total.
const (
	opReplaced    = "replaced"    // a replacement with the same nonce took its place
	opEvicted     = "evicted"     // the pool was full and a better one came
	opExpired     = "expired"     // older than the retention period
	opConfirmed   = "confirmed"   // its nonce was used on chain (mined)
	opInvalidated = "invalidated" // no longer valid on the head (balance, gas limit) or removed by the miner
)

// poolMetrics are Besu's transaction pool metrics. The counters are
// resolved once, so counting under the pool lock is an atomic add (a no-op
// without Config.Metrics).
type poolMetrics struct {
	added   [2]metrics.Counter // by local
	removed [2]map[string]metrics.Counter
}

func newPoolMetrics(reg *metrics.Registry, p *Pool) poolMetrics {
	added := reg.CounterVec(metrics.TransactionPool, "transactions_added_total", "Count of transactions added to the transaction pool", "source")
	removed := reg.CounterVec(metrics.TransactionPool, "transactions_removed_total", "Count of transactions removed from the transaction pool", "source", "operation")
	reg.GaugeFunc(metrics.TransactionPool, "transactions", "Current size of the transaction pool", func() float64 { return float64(p.Len()) })
	var m poolMetrics
	for i, source := range []string{"remote", "local"} {
		m.added[i] = added.With(source)
		m.removed[i] = map[string]metrics.Counter{}
		for _, op := range []string{opReplaced, opEvicted, opExpired, opConfirmed, opInvalidated} {
			m.removed[i][op] = removed.With(source, op)
		}
	}
	return m
}

func source(e *entry) int {
	if e.local {
		return 1
	}
	return 0
}

func (m *poolMetrics) add(e *entry)               { m.added[source(e)].Inc() }
func (m *poolMetrics) remove(e *entry, op string) { m.removed[source(e)][op].Inc() }
