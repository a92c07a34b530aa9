package node

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
)

// peakHeap samples the live heap while fn runs and returns the highest
// sample above the heap before fn, in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var s runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&s)
				if s.HeapAlloc > peak.Load() {
					peak.Store(s.HeapAlloc)
				}
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// BenchmarkDebugTraceTransaction traces a transaction of 1,000,000 gas (a
// loop of arithmetic and writes to 8 words of memory, ~300,000 steps):
// Basalt's debug_traceTransaction over HTTP from a node in this process,
// answer read in full, with every capture, without memory, and without
// memory and stack; beside go-ethereum's struct logger replaying the same
// block in process (core.ApplyTransaction) and encoding its result, with
// memory on and off. peak-MB is the highest live heap above the start
// seen while one trace runs (node and client together for Basalt);
// trace-MB is the size of the answer.
//
//	go test ./node -run '^$' -bench BenchmarkDebugTraceTransaction -benchtime 3x
func BenchmarkDebugTraceTransaction(b *testing.B) {
	e := startDebugNode(b, 0)
	tx := e.tx(b, loopAddr, nil, 1_000_000)
	e.block(b, tx)
	var gas struct{ GasUsed string }
	_ = json.Unmarshal(e.call(b, "eth_getTransactionReceipt", tx.Hash()), &gas)
	b.Logf("transaction gas used: %s", gas.GasUsed)

	basalt := func(opts map[string]any) func(b *testing.B) {
		return func(b *testing.B) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "debug_traceTransaction", "params": []any{tx.Hash(), opts}})
			var size int64
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					resp, err := http.Post("http://"+e.n.HTTPAddr(), "application/json", bytes.NewReader(body))
					if err != nil {
						b.Fatal(err)
					}
					size, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(size)/(1<<20), "trace-MB")
		}
	}
	geth := func(cfg *logger.Config) func(b *testing.B) {
		return func(b *testing.B) {
			var size int
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					l := logger.NewStructLogger(cfg)
					gethReplay(b, e.g, []*types.Block{e.blocks[0]}, func(int, int) *tracing.Hooks { return l.Hooks() })
					res, err := l.GetResult()
					if err != nil {
						b.Fatal(err)
					}
					size = len(res)
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(size)/(1<<20), "trace-MB")
		}
	}
	b.Run("basalt/memory+stack+storage", basalt(map[string]any{}))
	b.Run("basalt/stack+storage", basalt(map[string]any{"disableMemory": true}))
	b.Run("basalt/storage", basalt(map[string]any{"disableMemory": true, "disableStack": true}))
	b.Run("basalt/callTracer", basalt(map[string]any{"tracer": "callTracer"}))
	b.Run("geth/memory+stack+storage", geth(&logger.Config{EnableMemory: true}))
	b.Run("geth/stack+storage", geth(&logger.Config{}))
	b.Run("geth/storage", geth(&logger.Config{DisableStack: true}))
}
