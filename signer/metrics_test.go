package signer

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/signer/downstream"
)

// scrapeRegistry parses the registry's /metrics page with Prometheus's text
// parser.
func scrapeRegistry(t *testing.T, r *metrics.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Host = "localhost"
	r.Handler(nil).ServeHTTP(rec, req)
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func seriesValue(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

func TestSignerMetrics(t *testing.T) {
	node := newFakeNode(t)
	reg := metrics.New(metrics.Config{Categories: metrics.SignerCategories})
	u, _ := url.Parse(node.srv.URL)
	port, _ := strconv.Atoi(u.Port())
	ds := downstream.New(downstream.Config{Host: u.Hostname(), Port: port, Path: "/", Timeout: 2 * time.Second,
		Observe: DownstreamObserver(reg)})
	s := signerFor(t, node, func(c *Config) { c.Downstream, c.Metrics = ds, reg })

	// A send whose first nonce the node refuses: one retry.
	node.mu.Lock()
	node.pool[dev1] = map[uint64]bool{0: true}
	node.mu.Unlock()
	lag := true
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" && lag {
			lag = false
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(result(env.ID, "0x0"))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()}).str(t)
	node.setHook(nil)
	call(t, s.URL, "eth_accounts")
	call(t, s.URL, "eth_blockNumber")
	call(t, s.URL, "eth_madeUpMethod")
	post(t, s.URL, `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]`)
	post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, "Host", "evil.example")
	for _, p := range []string{"/upcheck", "/readiness", "/some/path"} {
		resp, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	fams := scrapeRegistry(t, reg)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"signing_request_time", []string{"methodName=eth_sendTransaction"}, 1},
		{"signing_request_time", []string{"methodName=eth_accounts"}, 1},
		{"signing_request_time", []string{"methodName=eth_blockNumber"}, 1},
		{"signing_request_time", []string{"methodName=other"}, 1},
		{"signing_request_time", []string{"methodName=batch"}, 1},
		{"signing_nonce_retries_total", nil, 1},
		{"http_requests_total", []string{"endpoint=/", "status=200"}, 5},
		{"http_requests_total", []string{"endpoint=/", "status=403"}, 1},
		{"http_requests_total", []string{"endpoint=/upcheck", "status=200"}, 1},
		{"http_requests_total", []string{"endpoint=/readiness", "status=200"}, 1},
		{"http_requests_total", []string{"endpoint=relay"}, 1},
		{"http_request_time", []string{"endpoint=/"}, 6},
	} {
		if got := seriesValue(fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// Calls: eth_getTransactionCount twice, fees, two sends, the readiness
	// probe's eth_chainId. Relays: eth_blockNumber, the unknown method, the
	// batch, /some/path.
	if got := seriesValue(fams, "signing_downstream_request_time", "operation=call"); got < 5 {
		t.Errorf("downstream calls timed %v times", got)
	}
	if got := seriesValue(fams, "signing_downstream_request_time", "operation=relay"); got != 4 {
		t.Errorf("downstream relays timed %v times, want 4", got)
	}
	if fams["process_cpu_seconds_total"] == nil || fams["go_goroutines"] == nil {
		t.Error("process or runtime metrics missing")
	}
	if fams["signing_request_time"].GetMetric() != nil {
		for _, m := range fams["signing_request_time"].GetMetric() {
			if v := m.GetLabel()[0].GetValue(); v == "eth_madeUpMethod" {
				t.Error("an unknown method name became a label value")
			}
		}
	}

	// The node goes away: failures by kind. The first call after the close
	// may still go out on a kept-alive connection the client has not seen
	// closed, written and then cut: that is a broken exchange (the node may
	// have had it), not a refused connection. The second one must dial.
	node.srv.Close()
	call(t, s.URL, "eth_blockNumber")
	call(t, s.URL, "eth_blockNumber")
	fams = scrapeRegistry(t, reg)
	connect := seriesValue(fams, "signing_downstream_failures_total", "operation=relay", "kind=connect")
	broken := max(seriesValue(fams, "signing_downstream_failures_total", "operation=relay", "kind=broken"), 0)
	if connect < 1 || connect+broken != 2 {
		t.Errorf("connect failures = %v, broken %v; want 2 failures, at least the second a connect failure", connect, broken)
	}
}

func TestSignerReadiness(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	get := func() (int, string) {
		resp, err := http.Get(s.URL + "/readiness")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get(); status != http.StatusOK || body != `{"status":"UP"}` {
		t.Fatalf("ready: %d %s", status, body)
	}
	if n := node.count("eth_chainId"); n != 1 {
		t.Errorf("probe asked eth_chainId %d times", n)
	}
	node.mu.Lock()
	node.chainID = big.NewInt(5)
	node.mu.Unlock()
	if status, body := get(); status != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"DOWN"`) || !strings.Contains(body, "not --chain-id 1337") {
		t.Errorf("other chain: %d %s", status, body)
	}
	node.srv.Close()
	if status, body := get(); status != http.StatusServiceUnavailable || !strings.Contains(body, "cannot connect") {
		t.Errorf("node down: %d %s", status, body)
	}
}
