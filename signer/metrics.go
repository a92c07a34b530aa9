package signer

import (
	"errors"
	"net/http"
	"time"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/downstream"
)

// serverMetrics are the signer's metrics, in EthSigner's categories (no
// prefix): every HTTP request by endpoint and status, every JSON-RPC
// request by method, and the nonce retries of sends. All are no-ops
// without Config.Metrics.
type serverMetrics struct {
	http         *metrics.HTTPMetrics
	methodTime   *metrics.TimerVec
	nonceRetries metrics.Counter
}

func newServerMetrics(r *metrics.Registry) serverMetrics {
	return serverMetrics{
		http:         r.HTTPRequestMetrics(metrics.SignerHTTP, "HTTP", endpointOf, "endpoint"),
		methodTime:   r.TimerVec(metrics.Signing, "request_time", "Time to answer a JSON-RPC request, signed here or relayed to the node, by method, in seconds", "methodName"),
		nonceRetries: r.Counter(metrics.Signing, "nonce_retries_total", "Transactions signed again with another nonce after the node refused the nonce"),
	}
}

// endpointOf labels a request by the signer's own endpoints; every other
// path is relayed to the node and counted as one ("relay").
func endpointOf(r *http.Request) []string {
	switch r.URL.Path {
	case "/", "/upcheck", "/readiness":
		return []string{r.URL.Path}
	}
	return []string{"relay"}
}

// methodLabel is a JSON-RPC method as a label value: the methods the
// signer answers and those Besu knows by name, "other" for the rest (a
// client must not grow the metrics without bound by inventing names).
func methodLabel(method string, ours bool) string {
	if ours || rpctypes.IsKnownMethod(method) {
		return method
	}
	return "other"
}

// observeMethod records a JSON-RPC request that started at start.
func (s *Server) observeMethod(label string, start time.Time) {
	s.metrics.methodTime.With(label).Observe(time.Since(start).Seconds())
}

// DownstreamObserver returns downstream.Config.Observe for the signer's
// metrics: the time of every request to the node by operation (call: the
// signer's own calls; relay: requests passed through), and the failures by
// kind. It returns nil with metrics off.
func DownstreamObserver(r *metrics.Registry) func(op string, d time.Duration, err error) {
	if !r.Enabled(metrics.Signing) {
		return nil
	}
	times := r.TimerVec(metrics.Signing, "downstream_request_time", "Time of requests to the downstream node, by operation, in seconds", "operation")
	failures := r.CounterVec(metrics.Signing, "downstream_failures_total", "Requests to the downstream node that got no answer, by operation and kind", "operation", "kind")
	return func(op string, d time.Duration, err error) {
		times.With(op).Observe(d.Seconds())
		if err != nil {
			kind := "broken"
			var de *downstream.Error
			if errors.As(err, &de) {
				kind = de.Kind.String()
			}
			failures.With(op, kind).Inc()
		}
	}
}
