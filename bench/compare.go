package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
)

// compareResult holds every run of both endpoints and the ratios A/B.
type compareResult struct {
	A      string       `json:"a"`
	B      string       `json:"b"`
	RPC    []rpcResult  `json:"rpc"`
	TPS    []*tpsResult `json:"tps,omitempty"`
	Ratios []ratio      `json:"ratios"`
}

// ratio is one figure of A over B across the rounds: Min and Max of the
// per-round ratios, and each side's range.
type ratio struct {
	Figure string  `json:"figure"`
	AMin   float64 `json:"aMin"`
	AMax   float64 `json:"aMax"`
	BMin   float64 `json:"bMin"`
	BMax   float64 `json:"bMax"`
	Min    float64 `json:"ratioMin"`
	Max    float64 `json:"ratioMax"`
}

// runCompare runs the load against A then B, rounds times.
func runCompare(ctx context.Context, o rpcOptions, t tpsOptions, urlB string, rounds int, withTPS bool, key string, logf func(string, ...any)) (*compareResult, error) {
	res := &compareResult{A: o.URL, B: urlB}
	urls := []string{o.URL, urlB}
	for round := 1; round <= rounds; round++ {
		for i, u := range urls {
			side := "AB"[i : i+1]
			logf("round %d: %s = %s", round, side, u)
			ro := o
			ro.URL, ro.PID = u, 0
			rs, err := runRPC(ctx, ro, key, logf)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", side, u, err)
			}
			for j := range rs {
				rs[j].Side = side
			}
			res.RPC = append(res.RPC, rs...)
			if withTPS {
				to := t
				to.URL, to.PID = u, 0
				r, err := runTPS(ctx, to, key, logf)
				if err != nil {
					return nil, fmt.Errorf("%s (%s): %w", side, u, err)
				}
				r.Side = side
				res.TPS = append(res.TPS, r)
			}
		}
	}
	res.Ratios = ratios(res)
	return res, nil
}

// ratios pairs A's and B's results round by round.
func ratios(r *compareResult) []ratio {
	vals := map[string][2][]float64{}
	var order []string
	add := func(fig string, side int, v float64) {
		if _, ok := vals[fig]; !ok {
			order = append(order, fig)
		}
		p := vals[fig]
		p[side] = append(p[side], v)
		vals[fig] = p
	}
	for _, x := range r.RPC {
		side := 0
		if x.Side == "B" {
			side = 1
		}
		name := fmt.Sprintf("%s c=%d", x.Method, x.Concurrency)
		add(name+" req/s", side, x.ReqPerSec)
		add(name+" p50 ms", side, x.P50ms)
		add(name+" p99 ms", side, x.P99ms)
		if x.ServerCPUusPerReq > 0 {
			add(name+" server CPU µs/req", side, x.ServerCPUusPerReq)
		}
	}
	for _, x := range r.TPS {
		side := 0
		if x.Side == "B" {
			side = 1
		}
		add("tps end-to-end tx/s", side, x.TPS)
		add("tps submit tx/s", side, x.SubmitRate)
		if x.ServerCPUusPerTx > 0 {
			add("tps server CPU µs/tx", side, x.ServerCPUusPerTx)
		}
	}
	var out []ratio
	for _, fig := range order {
		p := vals[fig]
		n := min(len(p[0]), len(p[1]))
		if n == 0 {
			continue
		}
		q := ratio{Figure: fig, AMin: math.Inf(1), BMin: math.Inf(1), Min: math.Inf(1), AMax: math.Inf(-1), BMax: math.Inf(-1), Max: math.Inf(-1)}
		for i := range n {
			a, b := p[0][i], p[1][i]
			q.AMin, q.AMax = math.Min(q.AMin, a), math.Max(q.AMax, a)
			q.BMin, q.BMax = math.Min(q.BMin, b), math.Max(q.BMax, b)
			if b > 0 {
				q.Min, q.Max = math.Min(q.Min, a/b), math.Max(q.Max, a/b)
			}
		}
		if math.IsInf(q.Min, 0) {
			q.Min, q.Max = 0, 0
		}
		out = append(out, q)
	}
	return out
}

func printRatios(w io.Writer, r *compareResult) {
	fmt.Fprintf(w, "\nA = %s\nB = %s\n", r.A, r.B)
	fmt.Fprintf(w, "%-46s %21s %21s %13s\n", "figure", "A (min–max)", "B (min–max)", "A/B")
	fmt.Fprintln(w, strings.Repeat("-", 104))
	for _, q := range r.Ratios {
		fmt.Fprintf(w, "%-46s %10.2f–%-10.2f %10.2f–%-10.2f %6.2f–%-6.2f\n", q.Figure, q.AMin, q.AMax, q.BMin, q.BMax, q.Min, q.Max)
	}
}
