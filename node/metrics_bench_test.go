package node

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// TestMetricsOverhead measures what --metrics-enabled costs the JSON-RPC
// hot path: eth_blockNumber and eth_call at 64 keep-alive clients against a
// node with metrics off and one with metrics on, in alternating rounds (off
// then on, then on then off, ...) so that drift in the machine's load hits
// both alike. It prints the median req/s of each and the process CPU time
// per request (server and clients), which other load on the machine
// disturbs much less than throughput. It measures, it does not assert, and
// runs only when asked:
//
//	BASALT_METRICS_BENCH=1 go test -run TestMetricsOverhead -v ./node/
//
// BASALT_METRICS_BENCH_ROUNDS sets the rounds (default 8); -test.benchtime
// the length of each run (default 1s).
func TestMetricsOverhead(t *testing.T) {
	if os.Getenv("BASALT_METRICS_BENCH") == "" {
		t.Skip("set BASALT_METRICS_BENCH=1 to measure")
	}
	rounds := 8
	if r, err := strconv.Atoi(os.Getenv("BASALT_METRICS_BENCH_ROUNDS")); err == nil && r > 0 {
		rounds = r
	}
	g, call := viewCallGenesis()
	urls := [2]string{benchNode(t, g, false), benchNode(t, g, true)}
	for _, c := range []struct {
		name string
		body []byte
	}{{"eth_blockNumber", benchBlockNumber}, {"eth_call", call}} {
		var rates [2][]float64
		var cpu, reqs [2]float64
		for r := range rounds {
			for k := range 2 {
				i := k ^ (r & 1) // alternate which goes first
				before, n0 := cpuSeconds(), benchRequests.Load()
				res := testing.Benchmark(func(b *testing.B) { drive(b, urls[i], c.body) })
				cpu[i] += cpuSeconds() - before
				reqs[i] += float64(benchRequests.Load() - n0)
				rates[i] = append(rates[i], float64(res.N)/res.T.Seconds())
			}
		}
		med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
		off, on := med(rates[0]), med(rates[1])
		cpuOff, cpuOn := cpu[0]/reqs[0]*1e6, cpu[1]/reqs[1]*1e6
		t.Logf("%s, GOMAXPROCS=%d, %d keep-alive clients, %d alternating rounds", c.name, runtime.GOMAXPROCS(0), benchClients, rounds)
		t.Logf("  metrics off: median %7.0f req/s (runs %s)  CPU %5.1f µs/req", off, span(rates[0]), cpuOff)
		t.Logf("  metrics on:  median %7.0f req/s (runs %s)  CPU %5.1f µs/req", on, span(rates[1]), cpuOn)
		t.Logf("  on/off: %5.1f%% by median req/s, %5.1f%% by CPU per request", 100*on/off, 100*cpuOff/cpuOn)
	}
}

func span(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.0f..%.0f", s[0], s[len(s)-1])
}

// cpuSeconds is the user+system CPU time of this process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
