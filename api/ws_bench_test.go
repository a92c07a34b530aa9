package api

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// BenchmarkNewHeadsFanout measures the delivery of newHeads notifications
// to 1,000 WebSocket subscribers (one connection each, over loopback): the
// time from the start of a block's insertion to its notification's arrival
// at each client, reported as p50, p99 and max over all deliveries, and
// the CPU time per block of the whole process (server and the 1,000
// in-process clients).
//
//	go test -run '^$' -bench NewHeadsFanout -benchtime 50x ./api/
func BenchmarkNewHeadsFanout(b *testing.B) {
	const subscribers = 1000
	db := chain.NewMemoryDatabase()
	b.Cleanup(func() { db.Close() })
	c := chaintest.Open(b, db)
	sys := filters.New(c.Chain, nil, filters.Config{})
	sys.Start()
	b.Cleanup(sys.Stop)
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c.Chain, Filters: sys})...); err != nil {
		b.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{})
	if err != nil {
		b.Fatal(err)
	}
	h := rpc.NewWSHandler(srv, rpc.WSConfig{MaxConnections: -1})
	ts := httptest.NewServer(h)
	b.Cleanup(func() { ts.Close(); h.Close() })
	url := "ws" + strings.TrimPrefix(ts.URL, "http")

	var (
		mu        sync.Mutex
		latencies []time.Duration
		start     atomic.Int64 // insertion start of the current block, unix ns
		received  sync.WaitGroup
	)
	conns := make([]*websocket.Conn, subscribers)
	for i := range conns {
		conn, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			b.Fatalf("dial %d: %v", i, err)
		}
		conns[i] = conn
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
			b.Fatal(err)
		}
		if _, msg, err := conn.ReadMessage(); err != nil || !strings.Contains(string(msg), `"result":"0x`) {
			b.Fatalf("subscribe %d: %s %v", i, msg, err)
		}
	}
	var readers sync.WaitGroup
	for _, conn := range conns {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				d := time.Duration(time.Now().UnixNano() - start.Load())
				if !strings.HasPrefix(string(msg), `{"jsonrpc":"2.0","method":"eth_subscription"`) {
					panic(fmt.Sprintf("unexpected message %.200s", msg))
				}
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
				received.Done()
			}
		}()
	}
	b.Cleanup(func() {
		for _, conn := range conns {
			conn.Close()
		}
		readers.Wait()
	})

	cpu := cpuTime()
	for b.Loop() {
		received.Add(subscribers)
		start.Store(time.Now().UnixNano())
		c.Append()
		received.Wait()
	}
	cpuPerBlock := float64(cpuTime()-cpu) / float64(time.Millisecond) / float64(b.N)
	b.StopTimer()
	b.ReportMetric(cpuPerBlock, "cpu-ms/block")
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(len(latencies))/float64(b.N), "deliveries/block")
}
