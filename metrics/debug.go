package metrics

import (
	"math"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// DebugMetrics renders the registry as debug_metrics answers it, in Besu's
// nested shape: {category: {metric: value}}, where metric is the name
// without the category's prefix, and every label adds a level keyed by the
// label's value, in declaration order:
//
//	{"rpc": {"request_time": {"eth_blockNumber": {"bucket": {"0.0001": 3, "+Inf": 5}, "count": 5, "sum": 0.0021}}}}
//	{"ethereum": {"blockchain_height": 12, "peer_count": 1}}
//
// Timers (histograms) end in bucket (upper bound to cumulative count),
// count and sum, as Basalt's API document describes the Metrics object;
// summaries in quantile, count and sum. A value that is not a finite number
// (a gauge reading NaN) is rendered as a string, which JSON can carry.
// With metrics off the result is an empty object, as Besu's no-op metrics
// system gives.
func (r *Registry) DebugMetrics() (map[string]any, error) {
	out := map[string]any{}
	if r == nil {
		return out, nil
	}
	families, err := r.prom.Gather()
	if err != nil && len(families) == 0 {
		return nil, err
	}
	for _, mf := range families {
		group, name := r.split(mf.GetName())
		metric := level(out, group)
		var order []string
		if o, ok := r.labels.Load(mf.GetName()); ok {
			order = o.([]string)
		}
		for _, m := range mf.GetMetric() {
			at := metric
			key := name
			for _, v := range labelValues(m.GetLabel(), order) {
				at = level(at, key)
				key = v
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				at[key] = number(m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				at[key] = number(m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				at[key] = number(m.GetUntyped().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				leaf := level(at, key)
				buckets := level(leaf, "bucket")
				for _, b := range h.GetBucket() {
					buckets[bound(b.GetUpperBound())] = number(float64(b.GetCumulativeCount()))
				}
				buckets["+Inf"] = number(float64(h.GetSampleCount()))
				leaf["count"] = number(float64(h.GetSampleCount()))
				leaf["sum"] = number(h.GetSampleSum())
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				leaf := level(at, key)
				quantiles := level(leaf, "quantile")
				for _, q := range s.GetQuantile() {
					quantiles[bound(q.GetQuantile())] = number(q.GetValue())
				}
				leaf["count"] = number(float64(s.GetSampleCount()))
				leaf["sum"] = number(s.GetSampleSum())
			}
		}
	}
	return out, nil
}

// labelValues returns the values of pairs in the declared order (pairs come
// sorted by name; names not in order keep that order, after the others).
func labelValues(pairs []*dto.LabelPair, order []string) []string {
	out := make([]string, 0, len(pairs))
	used := make([]bool, len(pairs))
	for _, name := range order {
		for i, lp := range pairs {
			if !used[i] && lp.GetName() == name {
				out = append(out, lp.GetValue())
				used[i] = true
			}
		}
	}
	for i, lp := range pairs {
		if !used[i] {
			out = append(out, lp.GetValue())
		}
	}
	return out
}

// split returns the debug_metrics group and name of a Prometheus name: the
// enabled category whose prefix it carries (the longest, should two
// match), and the rest. A name outside every category goes to "other".
func (r *Registry) split(full string) (group, name string) {
	best := -1
	for c := range r.enabled {
		p := c.namePrefix()
		if len(p) > best && strings.HasPrefix(full, p) && len(full) > len(p) {
			best, group, name = len(p), c.Name, full[len(p):]
		}
	}
	if best < 0 {
		return "other", full
	}
	return group, name
}

// level returns m[key] as a map, creating it. A value already at key (a
// metric both plain and labelled, which Prometheus forbids) is replaced.
func level(m map[string]any, key string) map[string]any {
	if sub, ok := m[key].(map[string]any); ok {
		return sub
	}
	sub := map[string]any{}
	m[key] = sub
	return sub
}

// number is v, or its text when JSON cannot hold it.
func number(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return bound(v)
	}
	return v
}

// bound writes a bucket bound or quantile as Prometheus's text format does.
func bound(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
