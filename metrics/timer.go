package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Timers are histograms of seconds built for hot paths (the JSON-RPC
// dispatcher times every call). prometheus.Histogram keeps one set of
// counters per series, so concurrent observations on several cores fight
// over the same cache lines (four atomic read-modify-writes each, one a
// compare-and-swap loop on the float sum); on two cores that doubled the
// cost of timing a cheap call. A timer spreads observations over shards
// picked at random, each on its own cache lines, and keeps the sum as
// integer nanoseconds: an observation is two uncontended atomic adds, and
// Collect adds the shards up. It exports as an ordinary Prometheus
// histogram.

// timerShard is one shard's counters: counts[i] holds observations in
// bucket i (not cumulative), counts[len(bounds)] those above every bound.
type timerShard struct {
	counts []atomic.Uint64
	sumNs  atomic.Uint64
	_      [64]byte // keep the next shard's counters off this cache line
}

// timer is one series.
type timer struct {
	bounds []float64
	shards []timerShard
	labels []string
}

// shardCount is the number of shards per series: a power of two, four per
// core, so two goroutines rarely pick the same one.
var shardCount = func() int {
	n := 1
	for n < 4*runtime.GOMAXPROCS(0) && n < 64 {
		n <<= 1
	}
	return n
}()

func newTimer(bounds []float64, labels []string) *timer {
	t := &timer{bounds: bounds, shards: make([]timerShard, shardCount), labels: labels}
	for i := range t.shards {
		t.shards[i].counts = make([]atomic.Uint64, len(bounds)+1)
	}
	return t
}

// Observe records v seconds.
func (t *timer) Observe(v float64) {
	i := 0
	for i < len(t.bounds) && v > t.bounds[i] {
		i++
	}
	s := &t.shards[rand.Uint32()&uint32(len(t.shards)-1)]
	s.counts[i].Add(1)
	if v > 0 && v < math.MaxUint64/1e9 {
		s.sumNs.Add(uint64(v * 1e9))
	}
}

// metric returns the series as a Prometheus histogram.
func (t *timer) metric(desc *prometheus.Desc) prometheus.Metric {
	counts := make([]uint64, len(t.bounds)+1)
	var sumNs uint64
	for i := range t.shards {
		s := &t.shards[i]
		for j := range counts {
			counts[j] += s.counts[j].Load()
		}
		sumNs += s.sumNs.Load()
	}
	buckets := make(map[float64]uint64, len(t.bounds))
	var cum uint64
	for i, b := range t.bounds {
		cum += counts[i]
		buckets[b] = cum
	}
	cum += counts[len(t.bounds)]
	return prometheus.MustNewConstHistogram(desc, cum, float64(sumNs)/1e9, buckets, t.labels...)
}

// timerVec is a family of timers with the same labels: a
// prometheus.Collector.
type timerVec struct {
	desc   *prometheus.Desc
	bounds []float64
	nLabel int

	mu     sync.RWMutex
	series map[string]*timer
}

func newTimerVec(name, help string, bounds []float64, labels []string) *timerVec {
	return &timerVec{
		desc:   prometheus.NewDesc(name, help, labels, nil),
		bounds: bounds,
		nLabel: len(labels),
		series: map[string]*timer{},
	}
}

// with returns the series of the label values, creating it.
func (v *timerVec) with(values ...string) *timer {
	if len(values) != v.nLabel {
		panic("metrics: " + v.desc.String() + ": wrong number of label values")
	}
	key := strings.Join(values, "\xff")
	v.mu.RLock()
	t := v.series[key]
	v.mu.RUnlock()
	if t != nil {
		return t
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if t = v.series[key]; t == nil {
		t = newTimer(v.bounds, append([]string(nil), values...))
		v.series[key] = t
	}
	return t
}

// Describe implements prometheus.Collector.
func (v *timerVec) Describe(ch chan<- *prometheus.Desc) { ch <- v.desc }

// Collect implements prometheus.Collector.
func (v *timerVec) Collect(ch chan<- prometheus.Metric) {
	v.mu.RLock()
	series := make([]*timer, 0, len(v.series))
	for _, t := range v.series {
		series = append(series, t)
	}
	v.mu.RUnlock()
	for _, t := range series {
		ch <- t.metric(v.desc)
	}
}
