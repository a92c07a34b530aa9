package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// scrapeMetrics parses a /metrics page with Prometheus's text parser.
func scrapeMetrics(t *testing.T, port int) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value is the value (a histogram's count) of the series of name whose
// labels include want, -1 when there is none.
func value(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
next:
	for _, m := range fams[name].GetMetric() {
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
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// Two basalt-privacy processes with metricsenabled: after a send from A to
// B (stored on both, pushed to B) and B's receive, each /metrics page
// parses with the Prometheus text parser and shows the requests by API and
// endpoint, storage and push latencies and the node table. /readiness is
// UP while both run, DOWN on A once B is gone (unless minPeers=0), and
// without metricsenabled nothing listens on metricsport.
func TestE2EMetricsAndReadiness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	am, bm := ptmtest.FreePort(t), ptmtest.FreePort(t)
	metricsConf := func(port int) string {
		return "metricsenabled = true\nmetricsport = " + strconv.Itoa(port) + "\n"
	}
	a := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Storage: "leveldb", Extra: metricsConf(am)})
	b := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{a.NodeURL()}, Extra: metricsConf(bm)})
	waitKnownNodes(t, 1, a, b)
	A, B := a.Keys[0], b.Keys[0]
	key := a.Send(t, []byte("for B"), A, B)
	if got, r, _ := b.Receive(key, &B); got == nil || string(got.Payload) != "for B" {
		t.Fatalf("B receive: %v", r)
	}
	a.Must(t, "GET", "/nope", "", nil)

	// The metrics port is in the ports file too.
	ports, _ := os.ReadFile(filepath.Join(dir, "a", "orion.ports"))
	if !strings.Contains(string(ports), "metrics-port="+strconv.Itoa(am)) {
		t.Errorf("ports file:\n%s", ports)
	}

	fa, fb := scrapeMetrics(t, am), scrapeMetrics(t, bm)
	for _, c := range []struct {
		fams   map[string]*dto.MetricFamily
		name   string
		labels []string
		min    float64
	}{
		{fa, "privacy_http_requests_total", []string{"api=client", "endpoint=/send", "status=200"}, 1},
		{fa, "privacy_http_requests_total", []string{"api=client", "endpoint=other", "status=404"}, 1},
		{fa, "privacy_http_request_time", []string{"api=client", "endpoint=/send"}, 1},
		{fa, "privacy_http_request_time", []string{"api=node", "endpoint=/partyinfo"}, 1},
		{fa, "privacy_storage_operation_time", []string{"store=payloads", "operation=put"}, 1},
		{fa, "privacy_storage_operation_time", []string{"store=knownnodes", "operation=put"}, 1},
		{fa, "privacy_peers_push_time", []string{"type=payload"}, 1},
		{fa, "privacy_peers_known_nodes", nil, 2},
		{fa, "privacy_peers_known_keys", nil, 2},
		{fa, "process_cpu_seconds_total", nil, 0},
		{fa, "go_goroutines", nil, 1},
		{fb, "privacy_http_request_time", []string{"api=node", "endpoint=/push"}, 1},
		{fb, "privacy_http_request_time", []string{"api=client", "endpoint=/receive"}, 1},
		{fb, "privacy_storage_operation_time", []string{"store=payloads", "operation=get"}, 1},
	} {
		if got := value(c.fams, c.name, c.labels...); got < c.min {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, got, c.min)
		}
	}
	if got := value(fa, "privacy_peers_push_failures_total", "type=payload"); got > 0 {
		t.Errorf("push failures = %v", got)
	}

	readiness := func(p *ptmtest.Process, query string) (int, map[string]any) {
		r := p.Must(t, "GET", "/readiness"+query, "", nil)
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("/readiness body %s", r.Body)
		}
		return r.Status, body
	}
	for _, p := range []*ptmtest.Process{a, b} {
		if s, body := readiness(p, ""); s != http.StatusOK || body["status"] != "UP" || body["storage"] != "UP" {
			t.Errorf("%s /readiness: %d %v", p.Conf.Dir, s, body)
		}
	}
	b.Stop(syscall.SIGTERM)
	if s, body := readiness(a, ""); s != http.StatusServiceUnavailable || body["status"] != "DOWN" || body["storage"] != "UP" {
		t.Errorf("A /readiness with B gone: %d %v", s, body)
	}
	if s, _ := readiness(a, "?minPeers=0"); s != http.StatusOK {
		t.Errorf("A /readiness?minPeers=0 with B gone: %d", s)
	}
	if s, _ := readiness(a, "?minPeers=x"); s != http.StatusServiceUnavailable {
		t.Errorf("A /readiness?minPeers=x: %d", s)
	}
	if r := a.Must(t, "GET", "/upcheck", "", nil); r.Status != http.StatusOK {
		t.Errorf("/upcheck: %v", r)
	}
}

// Without metricsenabled the instance opens no metrics listener.
func TestE2EMetricsOff(t *testing.T) {
	t.Parallel()
	port := ptmtest.FreePort(t)
	ptmtest.StartProcess(t, ptmtest.Conf{Dir: t.TempDir(), Keys: []string{"a"}, Extra: "metricsport = " + strconv.Itoa(port) + "\n"})
	c := &http.Client{Timeout: time.Second}
	if resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"); err == nil {
		resp.Body.Close()
		t.Fatal("a metrics listener without metricsenabled")
	}
}
