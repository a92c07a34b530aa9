package metrics

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Config configures a Registry.
type Config struct {
	// Categories are the enabled categories. Metrics of any other category
	// are no-ops and are not exported.
	Categories []Category
	// TimersDisabled makes every timer a no-op (Besu's hidden
	// --Xmetrics-timers-enabled=false): counters and gauges stay.
	TimersDisabled bool
}

// Registry is a Prometheus registry with categories. Its methods are safe
// for concurrent use, and every method works on a nil *Registry, which is
// how a program runs with metrics off: constructors return no-op metrics.
type Registry struct {
	prom    *prometheus.Registry
	enabled map[Category]bool
	timers  bool
	// labels keeps the declared label order of each labelled metric, by
	// Prometheus name: Gather sorts labels by name, but debug_metrics nests
	// them in declaration order, as Besu does.
	labels sync.Map // string -> []string

	mu    sync.Mutex
	names map[string]bool // every registered family (see Names)
}

// New returns a registry with cfg's categories enabled. With Process
// enabled it exports the process collector, with Runtime the Go collector.
func New(cfg Config) *Registry {
	r := &Registry{prom: prometheus.NewRegistry(), enabled: map[Category]bool{}, timers: !cfg.TimersDisabled, names: map[string]bool{}}
	for _, c := range cfg.Categories {
		r.enabled[c] = true
	}
	r.Register(Process, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.Register(Runtime, collectors.NewGoCollector())
	return r
}

// Enabled reports whether metrics of c are exported.
func (r *Registry) Enabled(c Category) bool { return r != nil && r.enabled[c] }

// Gatherer returns what /metrics and the push gateway read: the Prometheus
// registry (an empty gatherer for a nil Registry).
func (r *Registry) Gatherer() prometheus.Gatherer {
	if r == nil {
		return prometheus.Gatherers{}
	}
	return r.prom
}

// Register adds a collector of category c (a no-op when c is disabled). A
// collector describing metrics already registered is ignored.
func (r *Registry) Register(c Category, col prometheus.Collector) {
	if r.Enabled(c) {
		r.register(col)
	}
}

// register adds col and returns it, or the equal collector registered
// before (two front ends asking for the same timer share it). A clash of
// name with a different type or labels is a programming error: it panics
// at start-up, where tests catch it.
func (r *Registry) register(col prometheus.Collector) prometheus.Collector {
	err := r.prom.Register(col)
	if err == nil {
		r.noteNames(col)
		return col
	}
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		return dup.ExistingCollector
	}
	panic(fmt.Sprintf("metrics: %v", err))
}

// registerAs registers col and returns the collector to use as T.
func registerAs[T prometheus.Collector](r *Registry, col T) T {
	got, ok := r.register(col).(T)
	if !ok {
		panic(fmt.Sprintf("metrics: a metric of another type is registered under the name of %T", col))
	}
	return got
}

// descName extracts the fully-qualified name from a Desc's String (Desc
// does not export it).
var descName = regexp.MustCompile(`fqName: "([^"]+)"`)

// noteNames records the families col describes.
func (r *Registry) noteNames(col prometheus.Collector) {
	ch := make(chan *prometheus.Desc)
	go func() {
		col.Describe(ch)
		close(ch)
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	for d := range ch {
		if m := descName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
}

// Names returns the Prometheus name of every metric family registered,
// sorted. Gather shows a labelled family only once it has a series; Names
// lists them all, for tests and tools that check queries (a dashboard's)
// against what a program exports.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.names))
}

// Counter is a monotonically increasing value.
type Counter interface {
	Inc()
	Add(float64)
}

// Gauge is a value that goes up and down.
type Gauge interface {
	Set(float64)
	Inc()
	Dec()
	Add(float64)
	Sub(float64)
}

// Observer records one observation, in seconds for a timer.
type Observer interface {
	Observe(float64)
}

// ObserveSince records the time elapsed since start, in seconds.
func ObserveSince(o Observer, start time.Time) { o.Observe(time.Since(start).Seconds()) }

// noop is every metric when metrics are off.
type noop struct{}

func (noop) Inc()            {}
func (noop) Dec()            {}
func (noop) Add(float64)     {}
func (noop) Sub(float64)     {}
func (noop) Set(float64)     {}
func (noop) Observe(float64) {}

// Nop is a metric that records nothing; it is what a disabled category
// gives, and a convenient default for optional instrumentation.
var Nop = noop{}

// Counter returns the counter c/name.
func (r *Registry) Counter(c Category, name, help string) Counter {
	if !r.Enabled(c) {
		return Nop
	}
	return registerAs(r, prometheus.NewCounter(prometheus.CounterOpts{Name: c.FullName(name), Help: help}))
}

// CounterFunc exports a counter whose value f reads at scrape time (for
// counts another component already keeps).
func (r *Registry) CounterFunc(c Category, name, help string, f func() float64) {
	if r.Enabled(c) {
		r.register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.FullName(name), Help: help}, f))
	}
}

// Gauge returns the gauge c/name.
func (r *Registry) Gauge(c Category, name, help string) Gauge {
	if !r.Enabled(c) {
		return Nop
	}
	return registerAs(r, prometheus.NewGauge(prometheus.GaugeOpts{Name: c.FullName(name), Help: help}))
}

// GaugeFunc exports a gauge whose value f reads at scrape time. f runs on
// the scraping goroutine and must be safe for concurrent use.
func (r *Registry) GaugeFunc(c Category, name, help string, f func() float64) {
	if r.Enabled(c) {
		r.register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: c.FullName(name), Help: help}, f))
	}
}

// DefaultTimeBuckets are the upper bounds, in seconds, of timers: from 100
// µs (a cached JSON-RPC read) to 60 s (a large block import).
var DefaultTimeBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Timer returns the timer (a histogram of seconds with DefaultTimeBuckets,
// see timer.go) c/name.
func (r *Registry) Timer(c Category, name, help string) Observer {
	if !r.Enabled(c) || !r.timers {
		return Nop
	}
	return registerAs(r, newTimerVec(c.FullName(name), help, DefaultTimeBuckets, nil)).with()
}

// Histogram returns the histogram c/name with the given bucket upper bounds
// (for values other than durations).
func (r *Registry) Histogram(c Category, name, help string, buckets []float64) Observer {
	if !r.Enabled(c) {
		return Nop
	}
	return registerAs(r, prometheus.NewHistogram(prometheus.HistogramOpts{Name: c.FullName(name), Help: help, Buckets: buckets}))
}

// CounterVec is a counter with labels. A nil *CounterVec gives no-ops.
type CounterVec struct{ v *prometheus.CounterVec }

// CounterVec returns the labelled counter c/name.
func (r *Registry) CounterVec(c Category, name, help string, labels ...string) *CounterVec {
	if !r.Enabled(c) {
		return nil
	}
	r.labels.Store(c.FullName(name), labels)
	return &CounterVec{registerAs(r, prometheus.NewCounterVec(prometheus.CounterOpts{Name: c.FullName(name), Help: help}, labels))}
}

// With returns the counter of the label values, in the order the labels
// were declared. Keep label values few: each value is a series kept forever.
func (v *CounterVec) With(values ...string) Counter {
	if v == nil {
		return Nop
	}
	return v.v.WithLabelValues(values...)
}

// GaugeVec is a gauge with labels. A nil *GaugeVec gives no-ops.
type GaugeVec struct{ v *prometheus.GaugeVec }

// GaugeVec returns the labelled gauge c/name.
func (r *Registry) GaugeVec(c Category, name, help string, labels ...string) *GaugeVec {
	if !r.Enabled(c) {
		return nil
	}
	r.labels.Store(c.FullName(name), labels)
	return &GaugeVec{registerAs(r, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: c.FullName(name), Help: help}, labels))}
}

// With returns the gauge of the label values.
func (v *GaugeVec) With(values ...string) Gauge {
	if v == nil {
		return Nop
	}
	return v.v.WithLabelValues(values...)
}

// TimerVec is a timer with labels. A nil *TimerVec gives no-ops.
type TimerVec struct{ v *timerVec }

// TimerVec returns the labelled timer c/name.
func (r *Registry) TimerVec(c Category, name, help string, labels ...string) *TimerVec {
	if !r.Enabled(c) || !r.timers {
		return nil
	}
	r.labels.Store(c.FullName(name), labels)
	return &TimerVec{registerAs(r, newTimerVec(c.FullName(name), help, DefaultTimeBuckets, labels))}
}

// With returns the timer of the label values. Resolving the labels hashes
// them; on a hot path resolve once and keep the Observer.
func (v *TimerVec) With(values ...string) Observer {
	if v == nil {
		return Nop
	}
	return v.v.with(values...)
}
