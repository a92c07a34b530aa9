// Command caliper runs Hyperledger Caliper's simple workload (test/caliper:
// open, query, transfer) at a fixed rate against a default `basalt network
// up` (4 QBFT validators) and, with --goquorum, against a 4-validator
// GoQuorum QBFT network on the same machine, with 1 and 4 workers each,
// and prints one Markdown table of every round (bench/README.md).
//
//	go build -o /tmp/calbin/ ./cmd/basalt ./cmd/basalt-privacy ./cmd/basalt-signer
//	go run ./bench/caliper --basalt /tmp/calbin/basalt --goquorum /tmp/quorum/geth
//
// test/caliper's npm packages must be installed (`npm ci` there).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basaltchain/basalt/bench/quorumnet"
)

type options struct {
	basalt, goquorum, runJS, out string
	workers                      []int
	txs, tps, basePort           int
	maxRSS                       int64 // bytes; a GoQuorum node past it ends the run
}

// round is one line of run.js's output, with what it ran against.
type round struct {
	Client        string  `json:"client"`
	Workers       int     `json:"workers"`
	Round         string  `json:"round"`
	Succ          int     `json:"succ"`
	Fail          int     `json:"fail"`
	SendTPS       float64 `json:"sendTPS"`
	MaxLatency    float64 `json:"maxLatency"`
	AvgLatency    float64 `json:"avgLatency"`
	ThroughputTPS float64 `json:"throughputTPS"`
	Load          string  `json:"load"` // /proc/loadavg when the run ended
}

func main() {
	var o options
	var workers string
	flag.StringVar(&o.basalt, "basalt", "basalt", "basalt binary (basalt-privacy and basalt-signer beside it or on PATH); empty: GoQuorum only")
	flag.StringVar(&o.goquorum, "goquorum", "", "GoQuorum 24.4.1 geth binary; empty: Basalt only")
	flag.StringVar(&o.runJS, "run-js", "test/caliper/run.js", "test/caliper's run.js")
	flag.StringVar(&o.out, "out", "", "work directory (default: a new temporary one)")
	flag.StringVar(&workers, "workers", "1,4", "Caliper worker counts, one run each")
	flag.IntVar(&o.txs, "txs", 10000, "transactions per round")
	flag.IntVar(&o.tps, "tps", 1000, "fixed rate, transactions per second (all workers)")
	flag.IntVar(&o.basePort, "base-port", 23100, "first of the 40 ports of each network")
	flag.Int64Var(&o.maxRSS, "max-rss", 4<<30, "stop the GoQuorum run when one of its nodes holds more memory than this (bytes): the machine is shared")
	flag.Parse()
	for _, w := range strings.Split(workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 {
			fatalf("--workers: %q", workers)
		}
		o.workers = append(o.workers, n)
	}
	if o.out == "" {
		dir, err := os.MkdirTemp("", "caliper-bench-")
		if err != nil {
			fatalf("%v", err)
		}
		o.out = dir
	}
	var err error
	if o.runJS, err = filepath.Abs(o.runJS); err != nil {
		fatalf("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var all []round
	if o.basalt != "" {
		rs, err := runBasalt(ctx, o)
		all = append(all, rs...)
		if err != nil {
			logf("basalt: %v", err)
		}
	}
	if o.goquorum != "" && ctx.Err() == nil {
		rs, err := runGoQuorum(ctx, o)
		all = append(all, rs...)
		if err != nil {
			logf("goquorum: %v", err)
		}
	}
	fmt.Printf("| client | workers | round | succ | fail | send TPS | throughput TPS | avg latency (s) | max latency (s) | load avg (1/5/15 min) |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range all {
		fmt.Printf("| %s | %d | %s | %d | %d | %.1f | %.1f | %.2f | %.2f | %s |\n", r.Client, r.Workers, r.Round, r.Succ, r.Fail, r.SendTPS, r.ThroughputTPS, r.AvgLatency, r.MaxLatency, r.Load)
	}
}

// runBasalt starts `basalt network up` with its defaults and runs the
// workload against node 1's WebSocket for each worker count.
func runBasalt(ctx context.Context, o options) ([]round, error) {
	dir := filepath.Join(o.out, "basalt-network")
	up := exec.CommandContext(ctx, o.basalt, "network", "up", "--detach", "--dir", dir, "--base-port", strconv.Itoa(o.basePort))
	if out, err := up.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("network up: %v\n%s", err, out)
	}
	defer func() {
		if out, err := exec.Command(o.basalt, "network", "down", "--dir", dir).CombinedOutput(); err != nil {
			logf("network down: %v\n%s", err, out)
		}
	}()
	return runAll(ctx, o, "Basalt", fmt.Sprintf("ws://127.0.0.1:%d", o.basePort+1))
}

func runAll(ctx context.Context, o options, client, url string) ([]round, error) {
	var all []round
	for _, w := range o.workers {
		rs, err := runCaliper(ctx, o, client, url, w)
		all = append(all, rs...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// runCaliper runs test/caliper/run.js once.
func runCaliper(ctx context.Context, o options, client, url string, workers int) ([]round, error) {
	out := filepath.Join(o.out, fmt.Sprintf("%s-%dw", strings.ToLower(client), workers))
	logf("%s, %d workers: %d transactions a round at %d tx/s (log: %s/caliper.log)", client, workers, o.txs, o.tps, out)
	cmd := exec.CommandContext(ctx, "node", o.runJS, "--url", url, "--workers", strconv.Itoa(workers),
		"--txs", strconv.Itoa(o.txs), "--tps", strconv.Itoa(o.tps), "--chain-id", strconv.Itoa(quorumnet.ChainID), "--out", out)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	load, _ := os.ReadFile("/proc/loadavg")
	var rs []round
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		r := round{Client: client, Workers: workers, Load: strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " ")}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Round != "" {
			rs = append(rs, r)
			logf("  %s: %d succeeded, %d failed, %.1f tx/s sent, %.1f tx/s throughput", r.Round, r.Succ, r.Fail, r.SendTPS, r.ThroughputTPS)
		}
	}
	if err != nil {
		return rs, fmt.Errorf("run.js: %v", err)
	}
	return rs, nil
}

// runGoQuorum starts 4 GoQuorum QBFT validators (bench/quorumnet) and
// runs the workload against node 1's WebSocket for each worker count.
func runGoQuorum(ctx context.Context, o options) ([]round, error) {
	n, err := quorumnet.Start(ctx, quorumnet.Options{Geth: o.goquorum, Dir: filepath.Join(o.out, "goquorum"),
		BasePort: o.basePort, Log: logf})
	if n != nil {
		defer n.Stop()
	}
	if err != nil {
		return nil, err
	}
	// GoQuorum queues WebSocket notifications without bound: under
	// Caliper's load its node can grow by gigabytes. Stop the run before
	// it takes the machine's memory.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			for i, pid := range n.PIDs() {
				if rss := quorumnet.ResidentBytes(pid); rss > o.maxRSS {
					logf("GoQuorum node%d holds %d MB (over --max-rss): stopping the run", i+1, rss>>20)
					n.Kill(i)
					cancel()
					return
				}
			}
			time.Sleep(2 * time.Second)
		}
	}()
	return runAll(ctx, o, "GoQuorum", n.WS[0])
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	logf(format, args...)
	os.Exit(2)
}
