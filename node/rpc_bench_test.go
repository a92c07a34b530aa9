package node

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/basaltchain/basalt/config"
)

// benchClients is the number of concurrent keep-alive clients, as the
// issue's JSON-RPC benchmark asks.
const benchClients = 64

// BenchmarkNodeRPC measures the running node's JSON-RPC (real chain, real
// methods) against a bare net/http handler returning a constant response:
//
//	go test -run '^$' -bench NodeRPC -benchtime 5s ./node/
func BenchmarkNodeRPC(b *testing.B) {
	dir := b.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            config.DevGenesis(),
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"*"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC.HTTPEnabled = true
	cfg.RPC.HTTPHost = "127.0.0.1"
	n, err := New(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := n.Start(); err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	url := "http://" + n.HTTPAddr()
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x0"}`))
	})}
	ln, bareURL := listen(b)
	go bare.Serve(ln)
	defer bare.Close()

	blockNumber := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	getBalance := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","latest"]}`)
	b.Run("bare", func(b *testing.B) { drive(b, bareURL, blockNumber) })
	b.Run("eth_blockNumber", func(b *testing.B) { drive(b, url, blockNumber) })
	b.Run("eth_getBalance", func(b *testing.B) { drive(b, url, getBalance) })
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
