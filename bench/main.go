// Command bench measures a node over JSON-RPC — Basalt or any other
// Ethereum client — and its block import:
//
//	go run ./bench rpc     --url http://127.0.0.1:8545   # req/s and latency per method and concurrency
//	go run ./bench tps     --url http://127.0.0.1:8545   # a burst of transfers, submit rate and end-to-end TPS
//	go run ./bench import  --genesis G --chain C --client basalt:./basalt --client geth:/tmp/geth
//	go run ./bench compare --a URL --b URL               # the same rpc (and tps) load on two nodes, ratios
//	go run ./bench bft     --validators 30 --duration 2m # a network's blocks, round changes, CPU and RSS per node
//
// Each mode logs as it goes on stderr and ends with one JSON line on stdout
// holding every figure. See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basaltchain/basalt/config"
)

// defaultKey is the first funded account of Basalt's (and Besu's) dev
// network, whose key is public. Against a node where it holds nothing the
// harness funds it from the node's first unlocked account (go-ethereum
// --dev).
var defaultKey = config.DevAccounts[0].PrivateKey

const usage = `usage: bench MODE [options]

Modes:
  rpc      closed-loop keep-alive load per method and concurrency
  tps      a burst of pre-signed transfers; submit rate and end-to-end TPS
  import   block import of a chain file by one or more clients (Mgas/s)
  compare  the same rpc (and tps) load against two URLs, one after the other
  network  the tps load against a network of basalt network up (started if none runs)
  bft      a network of N validators (basalt network up): block interval, round changes,
           CPU and RSS per node, optionally under a steady transfer rate (latency); a long
           --duration is the soak: the RSS slope per node

Run "bench MODE -h" for a mode's options.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// listFlag is a comma-separated, repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func ints(l []string) ([]int, error) {
	out := make([]int, len(l))
	for i, s := range l {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", s)
		}
		out[i] = n
	}
	return out, nil
}

// run is the command with its arguments and outputs (the smoke test calls
// it in-process).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return errors.New("no mode given")
		}
		return nil
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, time.Now().Format("15:04:05.000")+" "+format+"\n", a...)
	}
	mode := args[0]
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	fs.SetOutput(stderr)

	var (
		url, urlB, key   string
		methods, concs   listFlag
		duration, warmup time.Duration
		pid              int
		tpsO             tpsOptions
		rounds           int
		withTPS          bool
		impO             importOptions
		clients          listFlag
		netO             networkOptions
		bftO             bftOptions
	)
	addRPC := func() {
		fs.Var(&methods, "methods", "methods to load (comma-separated; default eth_blockNumber,eth_getBalance,eth_call,eth_getBlockByNumber)")
		fs.Var(&concs, "concurrency", "closed-loop clients (comma-separated list; default 1,16,64)")
		fs.DurationVar(&duration, "duration", 10*time.Second, "measured time per method and concurrency")
		fs.DurationVar(&warmup, "warmup", time.Second, "unmeasured load before each measurement")
	}
	addTPS := func() {
		fs.IntVar(&tpsO.Txs, "txs", 10000, "transfers to send")
		fs.IntVar(&tpsO.Senders, "senders", 160, "accounts sending them")
		fs.IntVar(&tpsO.Workers, "workers", 64, "concurrent submitters")
		fs.IntVar(&tpsO.Batch, "batch", 1, "transactions per JSON-RPC request (a batch when above 1)")
		fs.IntVar(&tpsO.Stage, "stage", 100, "senders funded per stage (the funder's pending transactions stay below the pool's per-sender limit)")
		fs.StringVar(&tpsO.Seed, "seed", "basalt bench", "seed the sender keys derive from")
		fs.DurationVar(&tpsO.Timeout, "timeout", 3*time.Minute, "how long to wait for every accepted transfer to be mined")
		fs.Float64Var(&tpsO.Rate, "rate", 0, "offer the transactions at this steady rate (tx/s, open loop) and report submission-to-block latency from the scheduled times; 0 sends as fast as the workers can")
		fs.StringVar(&tpsO.Kind, "kind", "transfer", "transactions: transfer (ether) or erc20 (token transfers of bench/erc20/Token.sol, deployed by the harness)")
	}
	// addNetwork: the network of the network and bft modes, the one running
	// in --dir or one the harness starts there (and stops afterwards).
	addNetwork := func(consensusUsage string) {
		fs.StringVar(&netO.Dir, "dir", "./basalt-network", "directory of the network (basalt network up --dir)")
		fs.StringVar(&netO.Basalt, "basalt", defaultBasalt(), "basalt binary that starts a network when none runs in --dir")
		fs.IntVar(&netO.Validators, "validators", 4, "validators of a network the harness starts")
		fs.StringVar(&netO.Consensus, "consensus", "qbft", consensusUsage)
		fs.IntVar(&netO.BasePort, "base-port", 8545, "base port of a network the harness starts (10 ports a validator)")
	}
	fs.StringVar(&key, "key", defaultKey, "hex private key of a funded account (the dev network's first by default)")
	switch mode {
	case "rpc":
		fs.StringVar(&url, "url", "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
		fs.IntVar(&pid, "pid", 0, "server process ID for its CPU time (default: the local process listening on the URL's port)")
		addRPC()
	case "tps":
		fs.StringVar(&url, "url", "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
		fs.IntVar(&pid, "pid", 0, "server process ID for its CPU time (default: the local process listening on the URL's port)")
		addTPS()
	case "compare":
		fs.StringVar(&url, "a", "", "first JSON-RPC endpoint (A)")
		fs.StringVar(&urlB, "b", "", "second JSON-RPC endpoint (B)")
		fs.IntVar(&rounds, "rounds", 2, "rounds of A then B (A,B,A,B…), so that noise falls on both")
		fs.BoolVar(&withTPS, "tps", false, "run the tps load as well")
		addRPC()
		addTPS()
	case "network":
		addNetwork("consensus of a network the harness starts")
		fs.StringVar(&netO.BlockPeriod, "block-period", "", "block period of a network the harness starts (network up --block-period, e.g. 250ms)")
		fs.StringVar(&netO.GoQuorum, "goquorum", "", "GoQuorum 24.4.1 geth binary: after Basalt, the same load on 4 GoQuorum QBFT validators")
		fs.IntVar(&netO.GoQuorumPort, "goquorum-base-port", 23300, "base port of the GoQuorum network (40 ports)")
		addTPS()
	case "bft":
		addNetwork("consensus of a network the harness starts (qbft or ibft2)")
		fs.DurationVar(&bftO.Warmup, "warmup", 10*time.Second, "time after the network is up (and senders funded) before measuring")
		fs.DurationVar(&bftO.Duration, "duration", time.Minute, "measured time (a soak: an hour)")
		fs.Float64Var(&bftO.Rate, "rate", 0, "transfers offered per second, spread over the nodes (0: idle)")
		fs.IntVar(&bftO.Senders, "senders", 200, "accounts sending the transfers")
		fs.DurationVar(&bftO.Sample, "sample", 5*time.Second, "RSS sampling period")
		fs.StringVar(&bftO.Seed, "seed", "basalt bench bft", "seed the sender keys derive from")
	case "import":
		fs.StringVar(&impO.Genesis, "genesis", "", "genesis file (go-ethereum or Besu spelling)")
		fs.StringVar(&impO.Chain, "chain", "", "chain file: concatenated RLP blocks after the genesis")
		fs.Var(&clients, "client", "NAME:PATH of a client binary, NAME basalt or geth, optionally with a suffix (basalt-main) (repeatable; runs are interleaved)")
		fs.IntVar(&impO.Runs, "runs", 3, "imports per client (the median is reported)")
		fs.IntVar(&impO.Generate, "generate", 0, "without --chain: generate a dev-network chain of this many blocks (Basalt only)")
		fs.IntVar(&impO.GenerateTxs, "generate-txs", 100, "transfers per generated block")
		fs.StringVar(&impO.WorkDir, "workdir", "", "where data directories go (default a temporary directory)")
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown mode %q", mode)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if len(methods) == 0 {
		methods = listFlag{"eth_blockNumber", "eth_getBalance", "eth_call", "eth_getBlockByNumber"}
	}
	if len(concs) == 0 {
		concs = listFlag{"1", "16", "64"}
	}
	cs, err := ints(concs)
	if err != nil {
		return fmt.Errorf("--concurrency: %w", err)
	}
	rpcO := rpcOptions{URL: url, Methods: methods, Concurrency: cs, Duration: duration, Warmup: warmup, PID: pid}
	tpsO.URL, tpsO.PID = url, pid

	var result any
	switch mode {
	case "rpc":
		rs, err := runRPC(ctx, rpcO, key, logf)
		if err != nil {
			return err
		}
		result = map[string]any{"mode": mode, "rpc": rs}
	case "tps":
		r, err := runTPS(ctx, tpsO, key, logf)
		if r != nil {
			emit(stdout, map[string]any{"mode": mode, "tps": r})
		}
		return err
	case "network":
		r, err := runNetwork(ctx, netO, tpsO, logf)
		if r != nil {
			emit(stdout, map[string]any{"mode": mode, "network": r})
		}
		return err
	case "bft":
		r, err := runBFT(ctx, netO, bftO, logf)
		if r != nil {
			emit(stdout, map[string]any{"mode": mode, "bft": r})
		}
		return err
	case "import":
		impO.Clients = clients
		r, err := runImport(ctx, impO, logf)
		if err != nil {
			return err
		}
		result = map[string]any{"mode": mode, "import": r}
	case "compare":
		if url == "" || urlB == "" {
			return errors.New("compare needs --a and --b")
		}
		r, err := runCompare(ctx, rpcO, tpsO, urlB, rounds, withTPS, key, logf)
		if err != nil {
			return err
		}
		printRatios(stderr, r)
		result = map[string]any{"mode": mode, "compare": r}
	}
	emit(stdout, result)
	return nil
}

// emit writes the final JSON line.
func emit(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintln(w, string(b))
}
