package metrics

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrape parses a /metrics body with Prometheus's own text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, Path, nil)
	req.Host = "localhost"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

func TestNilRegistryIsNoop(t *testing.T) {
	var r *Registry
	r.Counter(RPC, "x_total", "").Inc()
	r.CounterVec(RPC, "y_total", "", "a").With("1").Add(2)
	r.Gauge(RPC, "g", "").Set(3)
	r.GaugeVec(RPC, "gv", "", "a").With("1").Set(3)
	r.GaugeFunc(RPC, "gf", "", func() float64 { return 1 })
	r.CounterFunc(RPC, "cf", "", func() float64 { return 1 })
	r.Timer(RPC, "t", "").Observe(1)
	r.TimerVec(RPC, "tv", "", "a").With("1").Observe(1)
	r.Histogram(RPC, "h", "", []float64{1}).Observe(1)
	if r.Enabled(RPC) {
		t.Fatal("nil registry enables a category")
	}
	if got, err := r.DebugMetrics(); err != nil || len(got) != 0 {
		t.Fatalf("DebugMetrics of nil registry = %v, %v; want {}", got, err)
	}
	if fams, _ := r.Gatherer().Gather(); len(fams) != 0 {
		t.Fatalf("nil registry gathers %d families", len(fams))
	}
	if m := r.HTTPRequestMetrics(SignerHTTP, "x", nil, "endpoint"); m.Middleware() != nil {
		t.Fatal("nil registry returns HTTP middleware")
	}
}

func TestCategoriesAndNames(t *testing.T) {
	r := New(Config{Categories: []Category{RPC, Ethereum, TransactionPool}})
	r.TimerVec(RPC, "request_time", "JSON-RPC time", "methodName").With("eth_blockNumber").Observe(0.0002)
	r.GaugeFunc(Ethereum, "blockchain_height", "height", func() float64 { return 7 })
	r.CounterVec(TransactionPool, "transactions_added_total", "added", "source").With("local").Inc()
	r.Gauge(Blockchain, "disabled", "in a disabled category").Set(1)

	fams := scrape(t, r.Handler(nil))
	for _, name := range []string{"besu_rpc_request_time", "ethereum_blockchain_height", "besu_transaction_pool_transactions_added_total"} {
		if fams[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	if fams["besu_blockchain_disabled"] != nil {
		t.Error("metric of a disabled category exported")
	}
	if fams["process_cpu_seconds_total"] != nil || fams["go_goroutines"] != nil {
		t.Error("process or runtime metrics exported without their categories")
	}
	h := fams["besu_rpc_request_time"].GetMetric()[0]
	if l := h.GetLabel(); len(l) != 1 || l[0].GetName() != "methodName" || l[0].GetValue() != "eth_blockNumber" {
		t.Errorf("labels %v", l)
	}
	if h.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("histogram count %d", h.GetHistogram().GetSampleCount())
	}
}

func TestSameMetricTwiceIsShared(t *testing.T) {
	r := New(Config{Categories: []Category{RPC}})
	a := r.CounterVec(RPC, "n_total", "", "m")
	b := r.CounterVec(RPC, "n_total", "", "m")
	a.With("x").Inc()
	b.With("x").Inc()
	fams := scrape(t, r.Handler(nil))
	if v := fams["besu_rpc_n_total"].GetMetric()[0].GetCounter().GetValue(); v != 2 {
		t.Fatalf("shared counter = %v, want 2", v)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a gauge under a counter's name did not panic")
		}
	}()
	r.Gauge(RPC, "n_total", "")
}

func TestTimersDisabled(t *testing.T) {
	r := New(Config{Categories: []Category{RPC}, TimersDisabled: true})
	r.Timer(RPC, "t", "").Observe(1)
	r.TimerVec(RPC, "tv", "", "a").With("1").Observe(1)
	r.Counter(RPC, "c_total", "").Inc()
	fams := scrape(t, r.Handler(nil))
	if fams["besu_rpc_t"] != nil || fams["besu_rpc_tv"] != nil {
		t.Error("timers exported with timers disabled")
	}
	if fams["besu_rpc_c_total"] == nil {
		t.Error("counter missing with timers disabled")
	}
}

func TestProcessAndRuntime(t *testing.T) {
	r := New(Config{Categories: []Category{Process, Runtime}})
	fams := scrape(t, r.Handler(nil))
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "go_goroutines", "go_memstats_heap_alloc_bytes"} {
		if fams[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	dm, err := r.DebugMetrics()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dm["process"].(map[string]any)["cpu_seconds_total"]; !ok {
		t.Errorf("debug_metrics process group: %v", dm["process"])
	}
	if _, ok := dm["go"].(map[string]any)["goroutines"]; !ok {
		t.Errorf("debug_metrics go group lacks goroutines")
	}
}

func TestParseCategories(t *testing.T) {
	got, err := ParseCategories(NodeCategories, []string{"rpc", " ETHEREUM", "jvm", "go", "RPC"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Category{RPC, Ethereum, Runtime}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := ParseCategories(NodeCategories, []string{"NOPE"}); err == nil || !strings.Contains(err.Error(), "TRANSACTION_POOL") {
		t.Fatalf("unknown category: %v", err)
	}
	if _, err := ParseCategories(SignerCategories, []string{"RPC"}); err == nil {
		t.Fatal("signer accepted the node's RPC category")
	}
	for _, c := range NodeDefaults {
		if c.Name == "rocksdb" || c.Name == "private_rocksdb" {
			t.Errorf("default categories include %s", c.Enum)
		}
	}
}

func TestDebugMetricsShape(t *testing.T) {
	r := New(Config{Categories: []Category{RPC, Ethereum, TransactionPool, Network, Synchronizer}})
	tv := r.TimerVec(RPC, "request_time", "", "methodName")
	tv.With("eth_blockNumber").Observe(0.0002)
	tv.With("eth_blockNumber").Observe(3)
	r.GaugeFunc(Ethereum, "blockchain_height", "", func() float64 { return 12 })
	r.CounterVec(TransactionPool, "transactions_added_total", "", "source").With("remote").Add(4)
	r.CounterVec(Network, "p2p_messages_inbound", "", "protocol", "name", "code").With("eth", "Status", "0").Inc()
	r.GaugeFunc(Synchronizer, "nan", "", func() float64 { return 0 * inf() })

	dm, err := r.DebugMetrics()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(dm)
	if err != nil {
		t.Fatalf("debug_metrics is not JSON: %v", err)
	}
	var got map[string]any
	json.Unmarshal(b, &got)

	at := func(path ...string) any {
		var v any = got
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: %s is not an object in %s", path, p, b)
			}
			v = m[p]
		}
		return v
	}
	if v := at("ethereum", "blockchain_height"); v != 12.0 {
		t.Errorf("ethereum.blockchain_height = %v", v)
	}
	if v := at("transaction_pool", "transactions_added_total", "remote"); v != 4.0 {
		t.Errorf("transactions_added_total.remote = %v", v)
	}
	if v := at("network", "p2p_messages_inbound", "eth", "Status", "0"); v != 1.0 {
		t.Errorf("p2p_messages_inbound.eth.Status.0 = %v", v)
	}
	if v := at("rpc", "request_time", "eth_blockNumber", "count"); v != 2.0 {
		t.Errorf("request_time count = %v", v)
	}
	if v := at("rpc", "request_time", "eth_blockNumber", "sum"); v != 3.0002 {
		t.Errorf("request_time sum = %v", v)
	}
	if v := at("rpc", "request_time", "eth_blockNumber", "bucket", "0.00025"); v != 1.0 {
		t.Errorf("bucket 0.00025 = %v", v)
	}
	if v := at("rpc", "request_time", "eth_blockNumber", "bucket", "+Inf"); v != 2.0 {
		t.Errorf("bucket +Inf = %v", v)
	}
	if v := at("synchronizer", "nan"); v != "NaN" {
		t.Errorf("NaN gauge = %v", v)
	}
}

func inf() float64 { var z float64; return 1 / z }

func TestHandlerRoutes(t *testing.T) {
	r := New(Config{Categories: []Category{RPC}})
	h := r.Handler(nil)
	for _, tc := range []struct {
		method, path, host string
		want               int
	}{
		{"GET", "/", "localhost:9545", http.StatusCreated},
		{"GET", "/metrics", "127.0.0.1:9545", http.StatusOK},
		{"GET", "/metrics", "evil.example", http.StatusForbidden},
		{"POST", "/metrics", "localhost", http.StatusMethodNotAllowed},
		{"GET", "/other", "localhost", http.StatusNotFound},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		req.Host = tc.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s %s Host %s: %d, want %d", tc.method, tc.path, tc.host, rec.Code, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Host = "anything"
	r.Handler([]string{"*"}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("allowlist * refused: %d", rec.Code)
	}
}

func TestServe(t *testing.T) {
	r := New(Config{Categories: []Category{RPC}})
	r.Counter(RPC, "c_total", "").Inc()
	s, err := r.Serve(ServerConfig{Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Port() == 0 || s.Host() != "127.0.0.1" {
		t.Fatalf("port %d host %q", s.Port(), s.Host())
	}
	resp, err := http.Get("http://" + s.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "besu_rpc_c_total 1") {
		t.Fatalf("body:\n%s", body)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + s.Addr() + "/metrics"); err == nil {
		t.Fatal("still serving after Close")
	}
	var none *Server
	if none.Close() != nil || none.Addr() != "" || none.Port() != 0 {
		t.Fatal("nil server")
	}
}

// fakeGateway records what a push gateway receives.
type fakeGateway struct {
	mu      sync.Mutex
	methods []string
	paths   []string
	bodies  []string
	got     chan struct{}
}

func (g *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.methods = append(g.methods, r.Method)
	g.paths = append(g.paths, r.URL.Path)
	g.bodies = append(g.bodies, string(b))
	g.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	select {
	case g.got <- struct{}{}:
	default:
	}
}

func TestPush(t *testing.T) {
	g := &fakeGateway{got: make(chan struct{}, 1)}
	srv := httptest.NewServer(g)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	host, port := addr[:strings.LastIndexByte(addr, ':')], addr[strings.LastIndexByte(addr, ':')+1:]
	var p int
	for _, c := range port {
		p = p*10 + int(c-'0')
	}

	r := New(Config{Categories: []Category{Ethereum}})
	r.GaugeFunc(Ethereum, "blockchain_height", "", func() float64 { return 5 })
	ps := r.StartPush(PushConfig{Host: host, Port: p, Interval: time.Hour})
	select {
	case <-g.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no push within 10s")
	}
	ps.Stop()
	ps.Stop() // idempotent

	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.methods) != 2 || g.methods[0] != http.MethodPost || g.methods[1] != http.MethodDelete {
		t.Fatalf("gateway saw %v, want POST then DELETE", g.methods)
	}
	if g.paths[0] != "/metrics/job/besu-client" {
		t.Errorf("push path %s", g.paths[0])
	}
	if !strings.Contains(g.bodies[0], "ethereum_blockchain_height") {
		t.Errorf("pushed body lacks the gauge")
	}
}

func TestHTTPMiddleware(t *testing.T) {
	r := New(Config{Categories: []Category{SignerHTTP}})
	m := r.HTTPRequestMetrics(SignerHTTP, "test", func(req *http.Request) []string { return []string{req.URL.Path} }, "endpoint")
	h := m.Middleware()(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/missing" {
			http.NotFound(w, req)
			return
		}
		io.WriteString(w, "ok")
	}))
	for _, p := range []string{"/a", "/a", "/missing"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
	}
	fams := scrape(t, r.Handler(nil))
	counts := map[string]float64{}
	for _, m := range fams["http_requests_total"].GetMetric() {
		var key []string
		for _, l := range m.GetLabel() {
			key = append(key, l.GetName()+"="+l.GetValue())
		}
		counts[strings.Join(key, ",")] = m.GetCounter().GetValue()
	}
	if counts["endpoint=/a,status=200"] != 2 || counts["endpoint=/missing,status=404"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	if fams["http_request_time"] == nil {
		t.Fatal("request timer missing")
	}
}

func TestNames(t *testing.T) {
	r := New(Config{Categories: []Category{RPC, Process}})
	r.TimerVec(RPC, "request_time", "", "methodName") // no series yet
	r.Counter(RPC, "c_total", "")
	r.Gauge(Blockchain, "off", "")
	names := strings.Join(r.Names(), " ")
	for _, want := range []string{"besu_rpc_request_time", "besu_rpc_c_total", "process_cpu_seconds_total"} {
		if !strings.Contains(names, want) {
			t.Errorf("Names lacks %s: %s", want, names)
		}
	}
	if strings.Contains(names, "besu_blockchain_off") {
		t.Error("Names lists a disabled category's metric")
	}
	var none *Registry
	if none.Names() != nil {
		t.Error("nil registry has names")
	}
}
