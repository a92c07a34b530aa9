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
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/qbft"
)

// Both networks: chain id and block gas limit of `network up`.
const (
	chainID  = 1337
	gasLimit = 0x2FAF0800
	devKey   = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
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
		"--txs", strconv.Itoa(o.txs), "--tps", strconv.Itoa(o.tps), "--chain-id", strconv.Itoa(chainID), "--out", out)
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

// runGoQuorum starts 4 GoQuorum QBFT validators (test/goquorum/README.md:
// forks to Berlin, isQuorum, no privacy manager) with WebSocket on node 1,
// and runs the workload against it for each worker count.
func runGoQuorum(ctx context.Context, o options) ([]round, error) {
	keys, err := validatorKeys(4)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(o.out, "goquorum")
	genesis, err := writeGenesis(dir, keys)
	if err != nil {
		return nil, err
	}
	var enodes []string
	type node struct {
		dir           string
		p2p, http, ws int
		key           *ecdsa.PrivateKey
	}
	nodes := make([]node, len(keys))
	for i, k := range keys {
		base := o.basePort + 10*i
		n := node{dir: filepath.Join(dir, fmt.Sprintf("node%d", i+1)), http: base, ws: base + 1, p2p: base + 4, key: k}
		nodes[i] = n
		if err := os.MkdirAll(n.dir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(n.dir, "nodekey"), []byte(fmt.Sprintf("%x", crypto.FromECDSA(k))), 0o600); err != nil {
			return nil, err
		}
		toml := fmt.Sprintf("[Node.P2P]\nListenAddr = \"127.0.0.1:%d\"\n", n.p2p)
		if err := os.WriteFile(filepath.Join(n.dir, "config.toml"), []byte(toml), 0o644); err != nil {
			return nil, err
		}
		if out, err := exec.Command(o.goquorum, "--datadir", n.dir, "init", genesis).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("geth init: %v\n%s", err, out)
		}
		enodes = append(enodes, fmt.Sprintf("enode://%x@127.0.0.1:%d?discport=0", crypto.FromECDSAPub(&k.PublicKey)[1:], n.p2p))
	}
	list, _ := json.Marshal(enodes)
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = p.Process.Signal(syscall.SIGTERM)
		}
		for _, p := range procs {
			// A node buried under its queued notifications may not
			// stop on SIGTERM.
			t := time.AfterFunc(30*time.Second, func() { _ = p.Process.Kill() })
			_ = p.Wait()
			t.Stop()
		}
	}()
	for _, n := range nodes {
		for _, f := range []string{"static-nodes.json", "permissioned-nodes.json"} {
			if err := os.WriteFile(filepath.Join(n.dir, f), list, 0o644); err != nil {
				return nil, err
			}
		}
		logFile, err := os.Create(filepath.Join(n.dir, "geth.log"))
		if err != nil {
			return nil, err
		}
		defer logFile.Close()
		cmd := exec.Command(o.goquorum,
			"--config", filepath.Join(n.dir, "config.toml"), "--datadir", n.dir,
			"--nodekey", filepath.Join(n.dir, "nodekey"), "--networkid", strconv.Itoa(chainID),
			"--syncmode", "full", "--nodiscover", "--nat", "none", "--maxpeers", "32",
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(n.http),
			"--http.api", "admin,eth,net,web3,istanbul", "--http.vhosts", "localhost,127.0.0.1",
			"--ws", "--ws.addr", "127.0.0.1", "--ws.port", strconv.Itoa(n.ws), "--ws.api", "eth,net,web3", "--ws.origins", "*",
			"--ipcdisable", "--mine", "--miner.threads", "1", "--miner.gasprice", "0",
			"--miner.gastarget", strconv.Itoa(gasLimit), "--miner.gaslimit", strconv.Itoa(gasLimit),
			"--verbosity", "2")
		cmd.Env = append(os.Environ(), "PRIVATE_CONFIG=ignore")
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		procs = append(procs, cmd)
	}
	// GoQuorum queues WebSocket notifications without bound: under
	// Caliper's load its node can grow by gigabytes. Stop the run before
	// it takes the machine's memory.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			for i, p := range procs {
				if rss := residentBytes(p.Process.Pid); rss > o.maxRSS {
					logf("GoQuorum node%d holds %d MB (over --max-rss): stopping the run", i+1, rss>>20)
					_ = p.Process.Kill()
					cancel()
					return
				}
			}
			time.Sleep(2 * time.Second)
		}
	}()
	logf("GoQuorum validators started in %s; waiting for block 2", dir)
	if err := waitBlock(ctx, fmt.Sprintf("http://127.0.0.1:%d", nodes[0].http), 2, 2*time.Minute); err != nil {
		return nil, err
	}
	return runAll(ctx, o, "GoQuorum", fmt.Sprintf("ws://127.0.0.1:%d", nodes[0].ws))
}

// residentBytes is a process's resident memory (Linux), 0 if unknown.
func residentBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// waitBlock waits until the node at url has block n.
func waitBlock(ctx context.Context, url string, n uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
		if err == nil {
			var r struct{ Result hexutil.Uint64 }
			_ = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if uint64(r.Result) >= n {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("%s did not reach block %d within %v", url, n, timeout)
}

// validatorKeys returns deterministic keys whose address byte order and
// EIP-55 string order agree (test/goquorum/README.md says why).
func validatorKeys(count int) ([]*ecdsa.PrivateKey, error) {
	var keys []*ecdsa.PrivateKey
	var addrs []common.Address
	for i := range count {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("basalt-caliper-bench-%d", i))))
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	byBytes := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	byString := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return strings.Compare(a.Hex(), b.Hex()) })
	if !slices.Equal(byBytes, byString) {
		return nil, fmt.Errorf("validator keys: byte order %v differs from checksum order %v", byBytes, byString)
	}
	return keys, nil
}

// writeGenesis writes a GoQuorum QBFT genesis: forks to Berlin, isQuorum
// (gas is free: Caliper sends at gas price 0, as on `network up`), the
// validators in the QBFT extraData, one-second blocks, the dev account
// (the contract's deployer) funded.
func writeGenesis(dir string, keys []*ecdsa.PrivateKey) (string, error) {
	var validators []common.Address
	for _, k := range keys {
		validators = append(validators, crypto.PubkeyToAddress(k.PublicKey))
	}
	slices.SortFunc(validators, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	dev, err := crypto.HexToECDSA(devKey)
	if err != nil {
		return "", err
	}
	g := map[string]any{
		"config": map[string]any{
			"chainId":        chainID,
			"homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
			"byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
			"berlinBlock": 0,
			"isQuorum":    true,
			"qbft": map[string]any{
				"blockperiodseconds": 1, "epochlength": 30000, "requesttimeoutseconds": 4, "ceil2Nby3Block": 0,
			},
		},
		"nonce": "0x0", "timestamp": "0x0",
		"extraData":  hexutil.Encode(qbft.EncodeValidators(validators)),
		"gasLimit":   hexutil.EncodeUint64(gasLimit),
		"difficulty": "0x1",
		"mixHash":    qbft.MixDigest.Hex(),
		"coinbase":   common.Address{}.Hex(),
		"alloc": map[string]any{
			crypto.PubkeyToAddress(dev.PublicKey).Hex(): map[string]string{"balance": "0xad78ebc5ac6200000000"},
		},
		"number": "0x0", "gasUsed": "0x0", "parentHash": common.Hash{}.Hex(),
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "genesis.json")
	return path, os.WriteFile(path, data, 0o644)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	logf(format, args...)
	os.Exit(2)
}
