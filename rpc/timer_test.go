package rpc

import (
	"context"
	"sync"
	"testing"

	"github.com/basaltchain/basalt/metrics"
)

// countingObserver counts observations.
type countingObserver struct {
	mu sync.Mutex
	n  int
}

func (o *countingObserver) Observe(float64) { o.mu.Lock(); o.n++; o.mu.Unlock() }

func (o *countingObserver) count() int { o.mu.Lock(); defer o.mu.Unlock(); return o.n }

func TestMethodTimer(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	obs := map[string]*countingObserver{}
	timer := func(m string) Observer {
		mu.Lock()
		defer mu.Unlock()
		asked[m]++
		if obs[m] == nil {
			obs[m] = &countingObserver{}
		}
		return obs[m]
	}
	srv, err := NewServer(testRegistry(t), Config{Timer: timer, Logger: quietLogger, APIs: []string{"ETH", "NET"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}`,
		`[{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":4,"method":"net_version"}]`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_panic","params":[]}`,
		`{"jsonrpc":"2.0","id":6,"method":"eth_fail","params":[]}`,
		`{"jsonrpc":"2.0","id":7,"method":"eth_getBalance","params":["nope"]}`,
		`{"jsonrpc":"2.0","id":8,"method":"eth_nope","params":[]}`,    // not found
		`{"jsonrpc":"2.0","id":9,"method":"admin_peers","params":[]}`, // not enabled
		`{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]}`,    // notification
	} {
		srv.HandleMessage(ctx, []byte(msg))
	}
	want := map[string]int{"eth_blockNumber": 3, "net_version": 1, "eth_panic": 1, "eth_fail": 1, "eth_getBalance": 1}
	mu.Lock()
	defer mu.Unlock()
	for m, n := range want {
		if asked[m] != 1 {
			t.Errorf("Timer asked %d times for %s, want once", asked[m], m)
		}
		if got := obs[m].count(); got != n {
			t.Errorf("%s timed %d times, want %d", m, got, n)
		}
	}
	if len(asked) != len(want) {
		t.Errorf("Timer asked for %v; want only the methods called", asked)
	}
}

func TestMethodTimerNilObserver(t *testing.T) {
	srv, err := NewServer(testRegistry(t), Config{Timer: func(string) Observer { return nil }, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := srv.HandleMessage(context.Background(), benchBlockNumberReq); len(resp) == 0 {
		t.Fatal("no answer")
	}
}

// BenchmarkDispatchTimer is BenchmarkDispatch's eth_blockNumber with the
// method timer off and on (a metrics.TimerVec, as the node wires it), on one
// goroutine and on all: the cost of the timer on the hottest path.
//
//	go test -run '^$' -bench DispatchTimer -benchmem ./rpc/
func BenchmarkDispatchTimer(b *testing.B) {
	reg := metrics.New(metrics.Config{Categories: []metrics.Category{metrics.RPC}})
	tv := reg.TimerVec(metrics.RPC, "request_time", "", "methodName")
	for _, tc := range []struct {
		name  string
		timer func(string) Observer
	}{
		{"off", nil},
		{"on", func(m string) Observer { return tv.With(m) }},
	} {
		srv := benchServer(b)
		if tc.timer != nil {
			var err error
			if srv, err = NewServer(benchRegistry(b), Config{Timer: tc.timer}); err != nil {
				b.Fatal(err)
			}
		}
		ctx := context.Background()
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				buf, _ = srv.process(ctx, benchBlockNumberReq, buf[:0])
			}
		})
		b.Run(tc.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 0, 4096)
				for pb.Next() {
					buf, _ = srv.process(ctx, benchBlockNumberReq, buf[:0])
				}
			})
		})
	}
}
