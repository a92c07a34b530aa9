package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
)

// clients is the number of concurrent clients of the benchmarks.
const clients = 32

// BenchmarkThroughput measures, on real processes, requests per second at 32
// concurrent clients for:
//
//	send:    /send of a 1 KiB payload from instance A to 2 keys hosted on
//	         instance B (encrypt, push to B — stored durably there — and
//	         store durably on A);
//	receive: /receive on B of such payloads (read and decrypt).
//
// with Pebble stores and with PostgreSQL stores (skipped without
// BASALT_TEST_POSTGRES_URL). Run:
//
//	go test ./ptm/e2e -run '^$' -bench Throughput -benchtime 5s
func BenchmarkThroughput(b *testing.B) {
	b.Run("pebble", func(b *testing.B) { benchThroughput(b, "leveldb", "leveldb") })
	b.Run("postgres", func(b *testing.B) {
		benchThroughput(b, "sql:"+ptmtest.PostgresSchema(b), "sql:"+ptmtest.PostgresSchema(b))
	})
}

func benchThroughput(b *testing.B, storeA, storeB string) {
	dir := b.TempDir()
	a := ptmtest.StartProcess(b, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Storage: storeA, Extra: "verbosity = 0"})
	bb := ptmtest.StartProcess(b, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b1", "b2"}, Storage: storeB, OtherNodes: []string{a.NodeURL()}, Extra: "verbosity = 0"})
	ptmtest.WaitFor(b, 20*time.Second, "discovery", func() bool {
		r, err := a.Do("GET", "/knownnodes", "", nil)
		var n []map[string]string
		return err == nil && json.Unmarshal(r.Body, &n) == nil && len(n) == 2
	})
	A, B1, B2 := a.Keys[0], bb.Keys[0], bb.Keys[1]
	payload := make([]byte, 1024)
	rand.Read(payload)
	sendBody, _ := json.Marshal(map[string]any{"payload": payload, "from": A.String(), "to": ptmtest.Strings([]keys.PublicKey{B1, B2})})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * clients, MaxIdleConnsPerHost: 2 * clients}, Timeout: 30 * time.Second}
	post := func(url, mediaType string, body []byte) ([]byte, error) {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", mediaType)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, data)
		}
		return data, err
	}
	send := func() (string, error) {
		data, err := post(a.URL+"/send", "application/json", sendBody)
		if err != nil {
			return "", err
		}
		var out struct{ Key string }
		return out.Key, json.Unmarshal(data, &out)
	}
	// Warm up (connections, the legacy group) and keep keys to receive.
	var keysSent []string
	for range 256 {
		k, err := send()
		if err != nil {
			b.Fatal(err)
		}
		keysSent = append(keysSent, k)
	}
	parallelism := (clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)

	b.Run("send", func(b *testing.B) {
		b.SetParallelism(parallelism)
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := send(); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
	b.Run("receive", func(b *testing.B) {
		bodies := make([][]byte, len(keysSent))
		for i, k := range keysSent {
			to := B1
			if i%2 == 1 {
				to = B2
			}
			bodies[i], _ = json.Marshal(map[string]any{"key": k, "to": to.String()})
		}
		var next atomic.Uint64
		b.SetParallelism(parallelism)
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				body := bodies[next.Add(1)%uint64(len(bodies))]
				if _, err := post(bb.URL+"/receive", "application/vnd.orion.v1+json", body); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}

// BenchmarkSendThreePeers measures /send req/s at 32 concurrent clients on
// real processes: instance A sends a 1 KiB payload to one key on each of
// three other instances (B, C, D), so every send encrypts for three
// recipients and pushes to three peers. It is the figure issue 23 compares
// before and after peers must prove their keys: discovery and proof must not
// slow sends. "memory" isolates the CPU cost of the send path; "pebble" adds
// the durable writes a production instance does. Run:
//
//	go test ./ptm/e2e -run '^$' -bench SendThreePeers -benchtime 5s -count 5
func BenchmarkSendThreePeers(b *testing.B) {
	for _, store := range []string{"memory", "leveldb"} {
		b.Run(store, func(b *testing.B) { benchSendThreePeers(b, store) })
	}
}

func benchSendThreePeers(b *testing.B, store string) {
	dir := b.TempDir()
	quiet := "verbosity = 0"
	a := ptmtest.StartProcess(b, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Storage: store, Extra: quiet})
	var peers []*ptmtest.Process
	for _, name := range []string{"b", "c", "d"} {
		peers = append(peers, ptmtest.StartProcess(b, ptmtest.Conf{Dir: filepath.Join(dir, name), Keys: []string{name}, Storage: store, OtherNodes: []string{a.NodeURL()}, Extra: quiet}))
	}
	ptmtest.WaitFor(b, 30*time.Second, "discovery of three peers", func() bool {
		r, err := a.Do("GET", "/knownnodes", "", nil)
		var n []map[string]string
		return err == nil && json.Unmarshal(r.Body, &n) == nil && len(n) == 3
	})
	to := []keys.PublicKey{peers[0].Keys[0], peers[1].Keys[0], peers[2].Keys[0]}
	payload := make([]byte, 1024)
	rand.Read(payload)
	body, _ := json.Marshal(map[string]any{"payload": payload, "from": a.Keys[0].String(), "to": ptmtest.Strings(to)})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * clients, MaxIdleConnsPerHost: 2 * clients}, Timeout: 30 * time.Second}
	send := func() error {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", a.URL+"/send", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d: %s", resp.StatusCode, data)
		}
		return nil
	}
	for range 128 { // warm up connections and the legacy group
		if err := send(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := send(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}
