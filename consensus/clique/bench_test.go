package clique

import (
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// BenchmarkVerifyHeaders measures header verification as a syncing node
// does it: every header of a chain sealed in turn by three signers,
// verified in order by an engine that has seen none of them (its signer
// cache is cold, so every header costs a seal recovery), the signer state
// advancing one header at a time. Run it on one core:
//
//	go test -run XXX -bench VerifyHeaders -cpu 1 ./consensus/clique/
//
// headers/s is wall-clock; cpu-ns/op and headers/cpu-s count the process's
// CPU time instead, which holds on a machine shared with other work.
func BenchmarkVerifyHeaders(b *testing.B) {
	const length = 8192
	n := newTestNet(b, defaultCfg, "", "A", "B", "C")
	order := n.turnOrder("A", "B", "C")
	headers := make([]*types.Header, 0, length)
	for i := range length {
		h := n.next(block{signer: order[(i+1)%3]})
		n.chain.add(h)
		headers = append(headers, h)
	}
	genesis := n.chain.GetHeaderByNumber(0)
	var e *Engine
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		k := i % length
		if k == 0 {
			// A new engine for each pass over the chain: nothing cached.
			e = New(defaultCfg, Options{Clock: n.clock})
		}
		parent := genesis
		if k > 0 {
			parent = headers[k-1]
		}
		if err := e.VerifyHeader(n.chain, headers[k], parent, true); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "headers/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "headers/cpu-s")
}

// cpuTime is the process's CPU time so far (user and system, all threads).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
