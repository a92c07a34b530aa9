package node

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/basaltchain/basalt/config"
)

// benchClients is the number of concurrent keep-alive clients, as the
// issue's JSON-RPC benchmark asks.
const benchClients = 64

// benchRequests counts every request drive sends, calibration runs
// included (TestMetricsOverhead divides CPU time by it).
var benchRequests atomic.Int64

// BenchmarkNodeRPC measures the running node's JSON-RPC (real chain, real
// methods) against a bare net/http handler returning a constant response,
// each method with metrics off and on ("+metrics": --metrics-enabled, the
// JSON-RPC timer on every call):
//
//	go test -run '^$' -bench NodeRPC -benchtime 5s ./node/
func BenchmarkNodeRPC(b *testing.B) {
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x0"}`))
	})}
	ln, bareURL := listen(b)
	go bare.Serve(ln)
	defer bare.Close()

	b.Run("bare", func(b *testing.B) { drive(b, bareURL, benchBlockNumber) })
	for _, m := range []struct {
		name string
		body []byte
	}{{"eth_blockNumber", benchBlockNumber}, {"eth_getBalance", benchGetBalance}} {
		for _, metrics := range []bool{false, true} {
			name := m.name
			if metrics {
				name += "+metrics"
			}
			// A node of its own for each run, closed after it: two nodes
			// in one process measure the second one slower whatever it is.
			b.Run(name, func(b *testing.B) { drive(b, benchNode(b, config.DevGenesis(), metrics), m.body) })
		}
	}
}

var (
	benchBlockNumber = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	benchGetBalance  = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","latest"]}`)
)

// benchNode starts a node on genesis g with JSON-RPC over HTTP, and with
// the metrics service when metrics is true, and returns its URL. It is
// closed when the benchmark ends.
func benchNode(tb testing.TB, g *config.Genesis, metrics bool) string {
	dir := tb.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            g,
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"*"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC.HTTPEnabled = true
	cfg.RPC.HTTPHost = "127.0.0.1"
	cfg.Metrics = config.MetricsConfig{Enabled: metrics, Host: "127.0.0.1"}
	n, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	if err := n.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { n.Close() })
	return "http://" + n.HTTPAddr()
}

func drive(b *testing.B, url string, body []byte) {
	tr := &http.Transport{MaxIdleConns: benchClients, MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchRequests.Add(1)
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
