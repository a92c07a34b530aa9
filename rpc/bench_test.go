package rpc

// Throughput of the JSON-RPC server over real loopback HTTP, against a bare
// net/http handler that reads the body and writes a constant JSON-RPC
// response (the ceiling any Go HTTP JSON-RPC server can reach on the same
// machine). Both are driven by 64 concurrent keep-alive clients.
//
//	go test -run '^$' -bench 'HTTP' -benchtime 5s ./rpc/
//
// reports req/s for each. To print the ratios as well:
//
//	BASALT_RPC_BENCH=1 go test -run TestHTTPThroughputRatio -v ./rpc/
//
// Dispatch alone, without HTTP (ns/op, allocations):
//
//	go test -run '^$' -bench Dispatch -benchmem ./rpc/

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpctypes"
)

const benchClients = 64

// benchRequests counts every request benchHTTP sends, including those of
// the calibration runs testing.Benchmark makes before its final one.
var benchRequests atomic.Int64

var (
	benchBlockNumberReq = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	benchGetBalanceReq  = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x7e5f4552091a69125d5dfcb7b8c2659029395bdf","latest"]}`)
	benchBareResp       = []byte(`{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)
)

// benchBlockParam is a block parameter shaped like the api package's: a tag
// or a hex quantity.
type benchBlockParam struct {
	tag    string
	number uint64
}

func (p *benchBlockParam) UnmarshalJSON(in []byte) error {
	var s string
	if err := json.Unmarshal(in, &s); err != nil {
		return rpctypes.ErrInvalidBlockNumberParams
	}
	switch s {
	case "latest", "earliest", "pending", "safe", "finalized":
		p.tag = s
		return nil
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil {
		return rpctypes.ErrInvalidBlockNumberParams
	}
	p.number = n
	return nil
}

// benchServer returns a JSON-RPC server with eth_blockNumber and an
// eth_getBalance-shaped method.
func benchServer(tb testing.TB) *Server {
	srv, err := NewServer(benchRegistry(tb), Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// benchRegistry registers benchServer's methods.
func benchRegistry(tb testing.TB) *Registry {
	var head atomic.Uint64
	head.Store(0x1234)
	reg := NewRegistry()
	err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{
		{Name: "eth_blockNumber", Fn: func() (hexutil.Uint64, error) {
			return hexutil.Uint64(head.Load()), nil
		}},
		{Name: "eth_getBalance", Fn: func(ctx context.Context, addr common.Address, block benchBlockParam) (*hexutil.Big, error) {
			return (*hexutil.Big)(addr.Big()), nil
		}, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockNumberParams}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

var bareHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(benchBareResp)
})

// benchHTTP drives h with benchClients concurrent keep-alive clients posting
// body, and reports req/s.
func benchHTTP(b *testing.B, h http.Handler, body []byte) {
	ts := httptest.NewServer(h)
	defer ts.Close()
	tr := &http.Transport{
		MaxIdleConns:        benchClients,
		MaxIdleConnsPerHost: benchClients,
		MaxConnsPerHost:     benchClients,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			benchRequests.Add(1)
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func BenchmarkHTTP(b *testing.B) {
	srv := benchServer(b)
	h := NewHTTPHandler(srv, HTTPConfig{})
	b.Run("bare", func(b *testing.B) { benchHTTP(b, bareHandler, benchBlockNumberReq) })
	b.Run("eth_blockNumber", func(b *testing.B) { benchHTTP(b, h, benchBlockNumberReq) })
	b.Run("eth_getBalance", func(b *testing.B) { benchHTTP(b, h, benchGetBalanceReq) })
}

// TestHTTPThroughputRatio prints the throughput of the server relative to
// the bare handler. It measures, it does not assert (performance is judged
// by people reading benchmark output, not by timed tests), and runs only with
// BASALT_RPC_BENCH=1. The runs alternate so that drift in machine load hits
// all alike; besides the median req/s it prints the process CPU time per
// request (server and clients together), which other load on the machine
// disturbs much less than wall-clock throughput.
func TestHTTPThroughputRatio(t *testing.T) {
	if os.Getenv("BASALT_RPC_BENCH") == "" {
		t.Skip("set BASALT_RPC_BENCH=1 to measure")
	}
	srv := benchServer(t)
	h := NewHTTPHandler(srv, HTTPConfig{})
	cases := []struct {
		name string
		h    http.Handler
		body []byte
	}{
		{"bare net/http", bareHandler, benchBlockNumberReq},
		{"eth_blockNumber", h, benchBlockNumberReq},
		{"eth_getBalance", h, benchGetBalanceReq},
	}
	const rounds = 5
	rates := make([][]float64, len(cases))
	cpu := make([]float64, len(cases)) // CPU seconds
	reqs := make([]float64, len(cases))
	for range rounds {
		for i, c := range cases {
			before, n0 := cpuTime(), benchRequests.Load()
			r := testing.Benchmark(func(b *testing.B) { benchHTTP(b, c.h, c.body) })
			cpu[i] += cpuTime() - before
			reqs[i] += float64(benchRequests.Load() - n0)
			rates[i] = append(rates[i], float64(r.N)/r.T.Seconds())
		}
	}
	t.Logf("GOMAXPROCS=%d, %d keep-alive clients, %d alternating rounds", runtime.GOMAXPROCS(0), benchClients, rounds)
	var bareRate, bareCPU float64
	for i, c := range cases {
		slices.Sort(rates[i])
		med := rates[i][len(rates[i])/2]
		perReq := cpu[i] / reqs[i] * 1e6
		if i == 0 {
			bareRate, bareCPU = med, perReq
			t.Logf("%-16s median %7.0f req/s (runs %.0f..%.0f)  CPU %5.1f µs/req", c.name, med, rates[i][0], rates[i][len(rates[i])-1], perReq)
			continue
		}
		t.Logf("%-16s median %7.0f req/s (runs %.0f..%.0f)  CPU %5.1f µs/req  -> %3.0f%% of bare by req/s, %3.0f%% by CPU/req",
			c.name, med, rates[i][0], rates[i][len(rates[i])-1], perReq, 100*med/bareRate, 100*bareCPU/perReq)
	}
}

// cpuTime returns the user+system CPU time of this process in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func BenchmarkDispatch(b *testing.B) {
	srv := benchServer(b)
	ctx := context.Background()
	batch := []byte("[" + string(benchBlockNumberReq) + "," + string(benchGetBalanceReq) + "]")
	for _, tc := range []struct {
		name string
		msg  []byte
	}{
		{"eth_blockNumber", benchBlockNumberReq},
		{"eth_getBalance", benchGetBalanceReq},
		{"batch2", batch},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				buf, _ = srv.process(ctx, tc.msg, buf[:0])
			}
		})
	}
}
