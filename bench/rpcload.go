package main

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// rpcOptions configure the rpc mode.
type rpcOptions struct {
	URL         string
	Methods     []string
	Concurrency []int
	Duration    time.Duration
	Warmup      time.Duration
	PID         int // server process, 0: find it by the URL's port
}

// rpcResult is one method at one concurrency.
type rpcResult struct {
	URL string `json:"url"`
	// Side is A or B in compare mode.
	Side        string  `json:"side,omitempty"`
	Method      string  `json:"method"`
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"` // sent, errors included (ReqPerSec counts answers only)
	Errors      int     `json:"errors"`
	FirstError  string  `json:"firstError,omitempty"`
	Seconds     float64 `json:"seconds"`
	ReqPerSec   float64 `json:"reqPerSec"`
	P50ms       float64 `json:"p50ms"`
	P90ms       float64 `json:"p90ms"`
	P99ms       float64 `json:"p99ms"`
	MaxMs       float64 `json:"maxMs"`
	// ServerCPUs is the server's CPU time over the run, -1 when its PID is
	// unknown; ServerCPUusPerReq the CPU microseconds per request.
	ServerCPUs        float64 `json:"serverCPUs"`
	ServerCPUusPerReq float64 `json:"serverCPUusPerReq"`
	GenCPUs           float64 `json:"generatorCPUs"`
}

// rpcMethods are the requests the rpc mode knows, by name. Each needs the
// setup's addresses.
func rpcBody(method string, holder, view common.Address) ([]byte, error) {
	switch method {
	case "eth_blockNumber", "eth_chainId", "net_version", "eth_gasPrice":
		return request(1, method)
	case "eth_getBalance":
		return request(1, method, holder, "latest")
	case "eth_getTransactionCount":
		return request(1, method, holder, "latest")
	case "eth_call":
		// A 4-byte selector to the 10-byte view contract.
		return request(1, method, map[string]any{"to": view, "data": "0x70a08231"}, "latest")
	case "eth_getBlockByNumber":
		return request(1, method, "latest", false)
	case "eth_getCode":
		return request(1, method, view, "latest")
	}
	return nil, fmt.Errorf("unknown method %q (known: eth_blockNumber, eth_chainId, net_version, eth_gasPrice, eth_getBalance, eth_getTransactionCount, eth_call, eth_getBlockByNumber, eth_getCode)", method)
}

// rpcSetup deploys the view contract if eth_call or eth_getCode is
// measured and returns the addresses the requests use.
func rpcSetup(ctx context.Context, c *client, o rpcOptions, keyHex string) (holder, view common.Address, err error) {
	key, err := parseKey(keyHex)
	if err != nil {
		return holder, view, fmt.Errorf("--key: %w", err)
	}
	holder = newAccount(key).addr
	if !slices.Contains(o.Methods, "eth_call") && !slices.Contains(o.Methods, "eth_getCode") {
		return holder, view, nil
	}
	a, err := funder(ctx, c, key, new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)))
	if err != nil {
		return holder, view, err
	}
	ci, err := readChain(ctx, c)
	if err != nil {
		return holder, view, err
	}
	view, err = deployView(ctx, c, ci, a)
	return a.addr, view, err
}

// runRPC measures every method at every concurrency against one URL.
func runRPC(ctx context.Context, o rpcOptions, keyHex string, logf func(string, ...any)) ([]rpcResult, error) {
	maxConc := slices.Max(o.Concurrency)
	c := newClient(o.URL, maxConc)
	defer c.close()
	holder, view, err := rpcSetup(ctx, c, o, keyHex)
	if err != nil {
		return nil, err
	}
	pid := o.PID
	if pid == 0 {
		pid = serverPID(o.URL)
	}
	var out []rpcResult
	for _, m := range o.Methods {
		body, err := rpcBody(m, holder, view)
		if err != nil {
			return nil, err
		}
		for _, conc := range o.Concurrency {
			r := closedLoop(ctx, c, body, conc, o.Warmup, o.Duration, pid)
			r.URL, r.Method = o.URL, m
			logf("%-24s c=%-4d %9.0f req/s  p50 %6.2f  p90 %6.2f  p99 %6.2f  max %7.2f ms  errors %d  server CPU %.1f µs/req",
				m, conc, r.ReqPerSec, r.P50ms, r.P90ms, r.P99ms, r.MaxMs, r.Errors, r.ServerCPUusPerReq)
			out = append(out, r)
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
		}
	}
	return out, nil
}

// closedLoop runs conc workers, each sending body and waiting for the
// answer before sending again, for warmup (not recorded) and then d.
func closedLoop(ctx context.Context, c *client, body []byte, conc int, warmup, d time.Duration, pid int) rpcResult {
	type tally struct {
		lat      []time.Duration
		errs     int
		firstErr string
	}
	run := func(d time.Duration, record bool) ([]tally, time.Duration) {
		tallies := make([]tally, conc)
		start := time.Now()
		end := start.Add(d)
		var wg sync.WaitGroup
		for w := range conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := &tallies[w]
				if record {
					t.lat = make([]time.Duration, 0, 4096)
				}
				for ctx.Err() == nil {
					t0 := time.Now()
					if t0.After(end) {
						return
					}
					out, err := c.post(ctx, body)
					lat := time.Since(t0)
					if err == nil && !bytes.Contains(out, []byte(`"result"`)) {
						err = fmt.Errorf("%.200s", out)
					}
					if !record {
						continue
					}
					t.lat = append(t.lat, lat)
					if err != nil {
						if t.errs == 0 {
							t.firstErr = err.Error()
						}
						t.errs++
					}
				}
			}()
		}
		wg.Wait()
		return tallies, time.Since(start)
	}
	if warmup > 0 {
		run(warmup, false)
	}
	meter := startCPU(pid)
	tallies, elapsed := run(d, true)
	server, self := meter.stop()

	var all []time.Duration
	r := rpcResult{Concurrency: conc, Seconds: elapsed.Seconds(), ServerCPUs: -1, ServerCPUusPerReq: -1, GenCPUs: self.Seconds()}
	for _, t := range tallies {
		all = append(all, t.lat...)
		r.Errors += t.errs
		if r.FirstError == "" {
			r.FirstError = t.firstErr
		}
	}
	r.Requests = len(all)
	r.ReqPerSec = float64(r.Requests-r.Errors) / elapsed.Seconds() // answered requests only
	slices.Sort(all)
	r.P50ms, r.P90ms, r.P99ms = ms(quantile(all, 0.50)), ms(quantile(all, 0.90)), ms(quantile(all, 0.99))
	if len(all) > 0 {
		r.MaxMs = ms(all[len(all)-1])
	}
	if server >= 0 {
		r.ServerCPUs = server.Seconds()
		if r.Requests > 0 {
			r.ServerCPUusPerReq = float64(server.Microseconds()) / float64(r.Requests)
		}
	}
	return r
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
