package instance

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Metrics of basalt-privacy (metricsenabled): requests of both APIs by
// endpoint, storage operations by store and operation, pushes to peers,
// and the node table. Each wraps the component it measures (a KV, the
// peer client, a handler), so the components themselves know nothing of
// metrics.

// newRegistry returns the instance's registry; nil (no metrics) unless
// metricsenabled.
func newRegistry(cfg *config.Config) *metrics.Registry {
	if !cfg.MetricsEnabled {
		return nil
	}
	cats, _ := metrics.ParseCategories(metrics.PrivacyCategories, cfg.MetricsCategories) // validated by config
	if len(cats) == 0 {
		cats = metrics.PrivacyCategories
	}
	return metrics.New(metrics.Config{Categories: cats})
}

// Routes of the two APIs, the endpoint label values; any other path is
// "other" (a client cannot grow the metrics by inventing paths).
var (
	clientRoutes = routeSet("/upcheck", "/peercount", "/version", "/knownnodes", "/send", "/sendraw", "/receive",
		"/receiveraw", "/createPrivacyGroup", "/deletePrivacyGroup", "/findPrivacyGroup", "/retrievePrivacyGroup", "/readiness")
	nodeRoutes = routeSet("/upcheck", "/partyinfo", "/push", "/pushPrivacyGroup")
	q2tRoutes  = routeSet("/upcheck", "/version", "/version/api", "/send", "/storeraw", "/sendsignedtx", "/partyinfo/keys")
)

// q2tEndpoint labels a Q2T request: its route, with the payload key of
// /transaction/{key}[/...] left out.
func q2tEndpoint(req *http.Request) []string {
	p := req.URL.Path
	switch {
	case q2tRoutes[p]:
	case strings.HasPrefix(p, "/transaction/"):
		p = "/transaction/{key}"
		for _, sub := range []string{"/isSender", "/participants", "/mandatory"} {
			if strings.HasSuffix(req.URL.Path, sub) {
				p += sub
			}
		}
	default:
		p = "other"
	}
	return []string{"q2t", p}
}

func routeSet(paths ...string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}

// httpMetrics times and counts the requests of the APIs, labelled
// api (client, node or q2t) and endpoint.
func httpMetrics(r *metrics.Registry) (client, node, q2t func(http.Handler) http.Handler) {
	label := func(api string, routes map[string]bool) func(*http.Request) []string {
		return func(req *http.Request) []string {
			if routes[req.URL.Path] {
				return []string{api, req.URL.Path}
			}
			return []string{api, "other"}
		}
	}
	pass := func(h http.Handler) http.Handler { return h }
	cm := r.HTTPRequestMetrics(metrics.PrivacyHTTP, "client and node API", label("client", clientRoutes), "api", "endpoint")
	if cm == nil {
		return pass, pass, pass
	}
	// One family for the APIs: same name, labels and help.
	nm := *cm
	nm.Endpoint = label("node", nodeRoutes)
	qm := *cm
	qm.Endpoint = q2tEndpoint
	return cm.Middleware(), nm.Middleware(), qm.Middleware()
}

// meteredKV times the operations of a store.
type meteredKV struct {
	storage.KV
	get, put, update, del, forEach metrics.Observer
	failures                       *metrics.CounterVec
	store                          string
}

// meterKV wraps kv (named store: payloads or knownnodes); with metrics off
// it returns kv itself.
func meterKV(r *metrics.Registry, kv storage.KV, store string) storage.KV {
	tv := r.TimerVec(metrics.PrivacyStorage, "operation_time", "Time of storage operations, by store and operation, in seconds", "store", "operation")
	if tv == nil {
		return kv
	}
	return &meteredKV{
		KV:       kv,
		get:      tv.With(store, "get"),
		put:      tv.With(store, "put"),
		update:   tv.With(store, "update"),
		del:      tv.With(store, "delete"),
		forEach:  tv.With(store, "foreach"),
		failures: r.CounterVec(metrics.PrivacyStorage, "failures_total", "Storage operations that failed, by store and operation (a missing key is not a failure)", "store", "operation"),
		store:    store,
	}
}

func (m *meteredKV) done(o metrics.Observer, op string, start time.Time, err error) {
	o.Observe(time.Since(start).Seconds())
	if err != nil && err != storage.ErrNotFound {
		m.failures.With(m.store, op).Inc()
	}
}

func (m *meteredKV) Get(ctx context.Context, key []byte) ([]byte, error) {
	start := time.Now()
	v, err := m.KV.Get(ctx, key)
	m.done(m.get, "get", start, err)
	return v, err
}

func (m *meteredKV) Put(ctx context.Context, key, value []byte) error {
	start := time.Now()
	err := m.KV.Put(ctx, key, value)
	m.done(m.put, "put", start, err)
	return err
}

func (m *meteredKV) Update(ctx context.Context, key []byte, fn func(old []byte, found bool) ([]byte, bool, error)) error {
	start := time.Now()
	err := m.KV.Update(ctx, key, fn)
	m.done(m.update, "update", start, err)
	return err
}

func (m *meteredKV) Delete(ctx context.Context, key []byte) error {
	start := time.Now()
	err := m.KV.Delete(ctx, key)
	m.done(m.del, "delete", start, err)
	return err
}

func (m *meteredKV) ForEach(ctx context.Context, fn func(key, value []byte) error) error {
	start := time.Now()
	err := m.KV.ForEach(ctx, fn)
	m.done(m.forEach, "foreach", start, err)
	return err
}

// meteredPeers times pushes to other instances.
type meteredPeers struct {
	manager.Peers
	payload, group                 metrics.Observer
	payloadFailures, groupFailures metrics.Counter
}

// meterPeers wraps p; with metrics off it returns p itself.
func meterPeers(r *metrics.Registry, p manager.Peers) manager.Peers {
	tv := r.TimerVec(metrics.PrivacyPeers, "push_time", "Time to push a payload or privacy group to another instance, in seconds", "type")
	if tv == nil {
		return p
	}
	failures := r.CounterVec(metrics.PrivacyPeers, "push_failures_total", "Pushes to another instance that failed, by type", "type")
	return &meteredPeers{
		Peers:           p,
		payload:         tv.With("payload"),
		group:           tv.With("group"),
		payloadFailures: failures.With("payload"),
		groupFailures:   failures.With("group"),
	}
}

func (m *meteredPeers) Push(ctx context.Context, nodeURL string, p *payload.EncryptedPayload) (string, error) {
	start := time.Now()
	d, err := m.Peers.Push(ctx, nodeURL, p)
	m.payload.Observe(time.Since(start).Seconds())
	if err != nil {
		m.payloadFailures.Inc()
	}
	return d, err
}

func (m *meteredPeers) PushGroup(ctx context.Context, nodeURL string, body []byte, auth string) (string, error) {
	start := time.Now()
	id, err := m.Peers.PushGroup(ctx, nodeURL, body, auth)
	m.group.Observe(time.Since(start).Seconds())
	if err != nil {
		m.groupFailures.Inc()
	}
	return id, err
}
