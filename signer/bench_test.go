package signer

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// benchClients is the number of concurrent clients of the benchmarks.
const benchClients = 32

// runClients sends b.N requests from benchClients goroutines over HTTP
// and reports requests per second.
func runClients(b *testing.B, url string, body func(i int64) string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxIdleConns: benchClients}}
	defer client.CloseIdleConnections()
	var (
		next   atomic.Int64
		failed atomic.Int64
		wg     sync.WaitGroup
	)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				resp, err := client.Post(url, "application/json", strings.NewReader(body(i)))
				if err != nil {
					failed.Add(1)
					continue
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(data), `"result"`) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed", f, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	// CPU time per request (user + system, the whole process: clients,
	// signer and fake node) depends less on what else the machine runs
	// than req/s does.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSendTransaction measures eth_sendTransaction through the signer
// (HTTP in, signing, HTTP to the node and back) against a node that accepts
// raw transactions at once without checking them, from 32 concurrent
// clients, all sending from one account. auto-nonce makes the signer ask
// the node for the nonce (two node round trips per call); given-nonce
// carries the nonce in the request (one).
//
//	go test -run XXX -bench SendTransaction -benchtime 20000x ./signer/
func BenchmarkSendTransaction(b *testing.B) {
	from, to := dev1.Hex(), dev2.Hex()
	for _, bc := range []struct {
		name  string
		nonce bool
	}{{"auto-nonce", false}, {"given-nonce", true}} {
		b.Run(bc.name, func(b *testing.B) {
			node := newFakeNode(b)
			node.instant = true
			s := signerFor(b, node)
			runClients(b, s.URL, func(i int64) string {
				tx := `{"from":"` + from + `","to":"` + to + `","gas":"0x5208","gasPrice":"0x3e8","value":"0x1"`
				if bc.nonce {
					tx += `,"nonce":"0x` + strconv.FormatInt(i, 16) + `"`
				}
				return `{"jsonrpc":"2.0","id":` + strconv.FormatInt(i, 10) + `,"method":"eth_sendTransaction","params":[` + tx + `}]}`
			})
		})
	}
}

// BenchmarkProxy measures a pass-through call (eth_blockNumber) for
// comparison: the proxying cost alone.
func BenchmarkProxy(b *testing.B) {
	node := newFakeNode(b)
	node.instant = true
	s := signerFor(b, node)
	runClients(b, s.URL, func(i int64) string {
		return `{"jsonrpc":"2.0","id":` + strconv.FormatInt(i, 10) + `,"method":"eth_blockNumber","params":[]}`
	})
}

// BenchmarkNodeDirect measures the fake node alone, the floor under the
// other two.
func BenchmarkNodeDirect(b *testing.B) {
	node := newFakeNode(b)
	node.instant = true
	runClients(b, node.srv.URL, func(i int64) string {
		return `{"jsonrpc":"2.0","id":` + strconv.FormatInt(i, 10) + `,"method":"eth_blockNumber","params":[]}`
	})
}
