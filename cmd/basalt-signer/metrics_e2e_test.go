package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	devnet "github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// basalt-signer with --metrics-enabled in front of a real mining node:
// after a send and some relayed calls its /metrics page (port in the ports
// file, as EthSigner writes it) parses with the Prometheus text parser,
// with requests by method and endpoint, downstream latency and the runtime;
// /readiness is up while the node answers and down once it is gone.
func TestSignerMetricsAndReadiness(t *testing.T) {
	node := testnode.Start(t, t.TempDir(), "--network=dev", "--miner-enabled",
		"--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	dir := t.TempDir()
	kf, pf := writeKeystore(t, dir, "dev1", devKey(t, 1), "correct horse")
	signer := startSigner(t, append(downstreamArgs(t, node.URL), "--metrics-enabled", "--metrics-port=0",
		"file-based-signer", "-k", kf, "-p", pf)...)

	var hash string
	callOK(t, signer.URL, &hash, "eth_sendTransaction", map[string]any{
		"from": devnet.DevAccounts[1].Address.Hex(), "to": devnet.DevAccounts[0].Address.Hex(), "value": "0x1",
		"gasPrice": hexutil.EncodeBig(aboveBaseFee(t, node)), "gas": "0x5208"})
	waitMined(t, node, hash)
	var bn string
	for range 3 {
		callOK(t, signer.URL, &bn, "eth_blockNumber")
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get(signer.URL + "/readiness"); status != http.StatusOK || body != `{"status":"UP"}` {
		t.Fatalf("/readiness with the node up: %d %s", status, body)
	}

	// The metrics port is in the ports file.
	ports, err := os.ReadFile(filepath.Join(signer.DataPath, portsFile))
	if err != nil {
		t.Fatal(err)
	}
	var metricsURL string
	for _, line := range strings.Split(string(ports), "\n") {
		if p, ok := strings.CutPrefix(line, "metrics-port="); ok {
			metricsURL = "http://127.0.0.1:" + strings.TrimSpace(p) + "/metrics"
		}
	}
	if metricsURL == "" {
		t.Fatalf("no metrics-port in the ports file:\n%s", ports)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	count := func(name string, label, value string) float64 {
		for _, m := range fams[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					if m.Histogram != nil {
						return float64(m.GetHistogram().GetSampleCount())
					}
					return m.GetCounter().GetValue()
				}
			}
		}
		return 0
	}
	for _, c := range []struct {
		name, label, value string
		min                float64
	}{
		{"signing_request_time", "methodName", "eth_sendTransaction", 1},
		{"signing_request_time", "methodName", "eth_blockNumber", 3},
		{"signing_downstream_request_time", "operation", "call", 2},
		{"signing_downstream_request_time", "operation", "relay", 3},
		{"http_requests_total", "endpoint", "/", 4},
		{"http_request_time", "endpoint", "/readiness", 1},
	} {
		if got := count(c.name, c.label, c.value); got < c.min {
			t.Errorf("%s{%s=%q} = %v, want at least %v", c.name, c.label, c.value, got, c.min)
		}
	}
	for _, name := range []string{"signing_nonce_retries_total", "process_cpu_seconds_total", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	if f := fams["signing_request_time"]; f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("signing_request_time type %v", f.GetType())
	}

	node.Stop(syscall.SIGTERM)
	if status, body := get(signer.URL + "/readiness"); status != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"DOWN"`) {
		t.Errorf("/readiness with the node gone: %d %s", status, body)
	}
	if status, _ := get(signer.URL + "/upcheck"); status != http.StatusOK {
		t.Errorf("/upcheck with the node gone: %d", status)
	}
}

// Without --metrics-enabled the signer keeps no metrics: no metrics port in
// the ports file, and its own metrics path is relayed to the node like any
// other.
func TestSignerMetricsOff(t *testing.T) {
	node := testnode.Start(t, t.TempDir(), "--network=dev")
	dir := t.TempDir()
	kf, pf := writeKeystore(t, dir, "dev1", devKey(t, 1), "pw")
	signer := startSigner(t, append(downstreamArgs(t, node.URL), "file-based-signer", "-k", kf, "-p", pf)...)
	ports, err := os.ReadFile(filepath.Join(signer.DataPath, portsFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(ports), "metrics-port") {
		t.Errorf("ports file with metrics off:\n%s", ports)
	}
	resp, err := http.Get(signer.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound { // the node's answer to an unknown path
		t.Errorf("GET /metrics on the signer port: %d", resp.StatusCode)
	}
}
