package node

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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
// -test.benchtime the length of each run (default 1s);
// BASALT_METRICS_BENCH_CONTROL=1 turns metrics off on the second node too,
// which shows how far apart two equal nodes measure.
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
	if os.Getenv("BASALT_METRICS_BENCH_CONTROL") != "" {
		// A control run: two nodes with metrics off, to see how far apart
		// two equal nodes measure on this machine.
		urls[1] = benchNode(t, g, false)
		t.Log("control run: both nodes have metrics off")
	}
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

		// Both at once: half the clients on each node for the same
		// seconds. The nodes share the cores and whatever else loads the
		// machine at that moment, so the ratio of what they complete is
		// the ratio of their costs per request.
		var shared []float64
		var sharedRates [2][]float64
		for r := range max(rounds/2, 3) {
			// Alternate which node's clients start first.
			var done [2]float64
			if r&1 == 0 {
				done = driveBoth(t, urls, c.body, benchClients/2, time.Second)
			} else {
				d := driveBoth(t, [2]string{urls[1], urls[0]}, c.body, benchClients/2, time.Second)
				done = [2]float64{d[1], d[0]}
			}
			shared = append(shared, done[1]/done[0])
			sharedRates[0] = append(sharedRates[0], done[0])
			sharedRates[1] = append(sharedRates[1], done[1])
		}
		t.Logf("  both at once, %d clients each, 1 s rounds: off median %.0f req/s, on median %.0f req/s; on/off median %5.1f%% (quartiles %s)",
			benchClients/2, median(sharedRates[0]), median(sharedRates[1]), 100*median(shared), quartiles(shared))
	}
}

// driveBoth runs clients keep-alive clients against each of urls at once
// for d and returns each one's completed requests per second.
func driveBoth(t *testing.T, urls [2]string, body []byte, clients int, d time.Duration) [2]float64 {
	var counts [2]atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, url := range urls {
		tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		for range clients {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					resp, err := client.Post(url, "application/json", bytes.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					counts[i].Add(1)
				}
			})
		}
	}
	time.Sleep(d / 5) // connections up, caches warm
	start := [2]int64{counts[0].Load(), counts[1].Load()}
	time.Sleep(d)
	end := [2]int64{counts[0].Load(), counts[1].Load()}
	close(stop)
	wg.Wait()
	return [2]float64{float64(end[0]-start[0]) / d.Seconds(), float64(end[1]-start[1]) / d.Seconds()}
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
