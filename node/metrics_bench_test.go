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
// node with metrics off and one with metrics on, in rounds that run both
// back to back (off first in even rounds, on first in odd ones). Each
// round's on/off ratio compares runs a moment apart, so load that other
// processes put on the machine, which drifts over seconds, cancels out of
// the median ratio where it would swamp a comparison of separate medians.
// It also prints the median req/s of each and the process CPU time per
// request (server and clients together). It measures, it does not assert,
// and runs only when asked:
//
//	BASALT_METRICS_BENCH=1 go test -run TestMetricsOverhead -v ./node/
//
// BASALT_METRICS_BENCH_ROUNDS sets the rounds (default 20);
// -test.benchtime the length of each run (default 1s).
func TestMetricsOverhead(t *testing.T) {
	if os.Getenv("BASALT_METRICS_BENCH") == "" {
		t.Skip("set BASALT_METRICS_BENCH=1 to measure")
	}
	rounds := 20
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
		var ratios, cpuRatios []float64
		var cpu, reqs [2]float64
		for r := range rounds {
			var roundCPU [2]float64
			for k := range 2 {
				i := k ^ (r & 1) // alternate which goes first
				before, n0 := cpuSeconds(), benchRequests.Load()
				res := testing.Benchmark(func(b *testing.B) { drive(b, urls[i], c.body) })
				used, n := cpuSeconds()-before, float64(benchRequests.Load()-n0)
				cpu[i] += used
				reqs[i] += n
				roundCPU[i] = used / n
				rates[i] = append(rates[i], float64(res.N)/res.T.Seconds())
			}
			ratios = append(ratios, rates[1][r]/rates[0][r])
			cpuRatios = append(cpuRatios, roundCPU[0]/roundCPU[1])
		}
		t.Logf("%s, GOMAXPROCS=%d, %d keep-alive clients, %d rounds", c.name, runtime.GOMAXPROCS(0), benchClients, rounds)
		t.Logf("  metrics off: median %7.0f req/s (runs %s)  CPU %5.1f µs/req", median(rates[0]), span(rates[0]), cpu[0]/reqs[0]*1e6)
		t.Logf("  metrics on:  median %7.0f req/s (runs %s)  CPU %5.1f µs/req", median(rates[1]), span(rates[1]), cpu[1]/reqs[1]*1e6)
		t.Logf("  on/off, median of the rounds' ratios: %5.1f%% by req/s (quartiles %s), %5.1f%% by CPU per request",
			100*median(ratios), quartiles(ratios), 100*median(cpuRatios))
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func quartiles(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.1f%%..%.1f%%", 100*s[len(s)/4], 100*s[(3*len(s))/4])
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
