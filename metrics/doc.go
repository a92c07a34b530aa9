// Package metrics is the Prometheus registry of Basalt's programs and the
// debug_metrics view of it.
//
// A Registry wraps a prometheus.Registry with Besu's metric categories
// (category.go): every metric belongs to a category, its Prometheus name is
// [prefix]<category>_<name> (besu_rpc_request_time, ethereum_peer_count,
// process_cpu_seconds_total), and --metrics-category decides which categories
// exist at all. Creating a metric is one line wherever the instrumented code
// lives:
//
//	rounds := reg.Counter(metrics.Consensus, "ibft_round_changes_total", "Round changes of the IBFT 2.0 core")
//
// Metrics off costs nothing measurable: a nil *Registry is valid, and it (or
// a disabled category) hands out no-op metrics, so instrumented code never
// checks whether metrics are on, nothing is registered, and no listener is
// opened.
//
// Timers are Prometheus histograms (seconds), not Besu's summaries: an
// observation is a few atomic adds, cheap enough for the JSON-RPC hot path,
// and histograms aggregate across nodes (histogram_quantile) where summary
// quantiles do not. debug_metrics shows them as Basalt's API document asks:
// bucket (upper bound to cumulative count), count and sum.
//
// The package also holds what the programs share around the registry: the
// /metrics HTTP service (server.go), the push-gateway client (push.go) and an
// HTTP middleware that times and counts requests by endpoint (http.go).
package metrics
