package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// tpsOptions configure the tps mode.
type tpsOptions struct {
	URL     string
	Txs     int
	Senders int
	Workers int
	Batch   int // transactions per JSON-RPC batch, 1 for single requests
	// Stage is how many senders are funded before the harness waits for
	// their funding to be mined: the funder's transactions must stay within
	// the pool's per-sender nonce limit (Besu's and Basalt's default 200).
	Stage   int
	Seed    string
	Timeout time.Duration
	PID     int
	// Rate, when above 0, offers the transactions at this steady rate
	// (tx/s, open loop) instead of as fast as the workers send; each
	// transaction's latency runs from its scheduled time.
	Rate float64
	// Kind is "transfer" (ether, 21,000 gas) or "erc20" (a token
	// transfer of bench/erc20/Token.sol, which the harness deploys).
	Kind string
}

// tpsResult is one tps run.
type tpsResult struct {
	URL          string         `json:"url"`
	Side         string         `json:"side,omitempty"` // A or B in compare mode
	Txs          int            `json:"txs"`
	Senders      int            `json:"senders"`
	Workers      int            `json:"workers"`
	Batch        int            `json:"batch"`
	Kind         string         `json:"kind"`
	OfferedRate  float64        `json:"offeredPerSec,omitempty"`
	Accepted     int            `json:"accepted"`
	Refused      int            `json:"refused"`
	RefusedBy    map[string]int `json:"refusedBy,omitempty"`
	Mined        int            `json:"mined"`
	Unmined      int            `json:"unmined"`
	Blocks       int            `json:"blocks"`
	MaxBlockTxs  int            `json:"maxBlockTxs"`
	SubmitSecs   float64        `json:"submitSeconds"`
	SubmitRate   float64        `json:"submitPerSec"`
	EndToEndSecs float64        `json:"endToEndSeconds"`
	TPS          float64        `json:"tps"`
	ServerCPUs   float64        `json:"serverCPUs"`
	// ServerCPUusPerTx is the server's CPU time per mined transaction, the
	// figure least disturbed by other load on the machine.
	ServerCPUusPerTx float64 `json:"serverCPUusPerTx"`
	GenCPUs          float64 `json:"generatorCPUs"`
	// Latency from submission (with --rate: the scheduled time) until
	// the harness saw the transaction in a block of the node, in ms.
	LatencyP50ms float64 `json:"latencyP50ms"`
	LatencyP99ms float64 `json:"latencyP99ms"`
	LatencyMaxms float64 `json:"latencyMaxms"`
	// The same from when the request was sent: below the above when the
	// workers fell behind --rate (the rest is the generator's queue).
	SentLatencyP50ms float64 `json:"sentLatencyP50ms"`
	SentLatencyP99ms float64 `json:"sentLatencyP99ms"`
	// Token, for erc20: the contract, and whether the sink's token
	// balance grew by exactly the mined transfers.
	Token          string `json:"token,omitempty"`
	TokenBalanceOK bool   `json:"tokenBalanceOK,omitempty"`
}

// sink receives every transfer (an address without code or key).
var sink = common.HexToAddress("0x000000000000000000000000000000000000b0b0")

func runTPS(ctx context.Context, o tpsOptions, keyHex string, logf func(string, ...any)) (*tpsResult, error) {
	if o.Txs < 1 || o.Senders < 1 || o.Workers < 1 || o.Stage < 1 || o.Batch < 1 {
		return nil, errors.New("--txs, --senders, --workers, --stage and --batch must be at least 1")
	}
	if o.Kind == "" {
		o.Kind = "transfer"
	}
	if o.Kind != "transfer" && o.Kind != "erc20" {
		return nil, fmt.Errorf("--kind must be transfer or erc20, got %q", o.Kind)
	}
	if o.Rate < 0 {
		return nil, errors.New("--rate must not be negative")
	}
	gas := params.TxGas
	if o.Kind == "erc20" {
		gas = erc20Gas
	}
	c := newClient(o.URL, o.Workers+1) // the workers and the block tracker
	defer c.close()
	ci, err := readChain(ctx, c)
	if err != nil {
		return nil, err
	}
	key, err := parseKey(keyHex)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	senders := derivedAccounts(o.Seed, o.Senders)
	perTx := new(big.Int).Add(new(big.Int).Mul(ci.feeCap, new(big.Int).SetUint64(gas)), big.NewInt(1))
	counts := make([]int, o.Senders)
	for i := range counts {
		counts[i] = o.Txs / o.Senders
		if i < o.Txs%o.Senders {
			counts[i]++
		}
	}
	// Twice the worst-case cost, so fee changes between runs need no refill.
	grant := new(big.Int).Mul(perTx, big.NewInt(int64(2*counts[0]+2)))
	need := new(big.Int).Mul(grant, big.NewInt(int64(o.Senders+1)))
	fund, err := funder(ctx, c, key, need)
	if err != nil {
		return nil, err
	}
	if err := fundSenders(ctx, c, ci, fund, senders, grant, o.Stage, logf); err != nil {
		return nil, err
	}
	var token common.Address
	var sinkTokens *big.Int
	if o.Kind == "erc20" {
		if token, err = deployToken(ctx, c, ci, fund); err != nil {
			return nil, err
		}
		if err := fundTokens(ctx, c, ci, fund, token, senders, big.NewInt(int64(counts[0]+1)), o.Stage); err != nil {
			return nil, err
		}
		if sinkTokens, err = tokenBalance(ctx, c, token, sink); err != nil {
			return nil, err
		}
		logf("token %s deployed; %d senders hold their tokens", token.Hex(), len(senders))
	}

	// Pre-sign every transfer, each sender's in nonce order.
	txs := make([][]*types.Transaction, o.Senders)
	for i, s := range senders {
		n, err := nonceOf(ctx, c, s.addr, "pending")
		if err != nil {
			return nil, err
		}
		txs[i] = make([]*types.Transaction, counts[i])
		for j := range txs[i] {
			if o.Kind == "erc20" {
				txs[i][j] = ci.tokenTransfer(s, n+uint64(j), token, sink, big.NewInt(1))
			} else {
				txs[i][j] = ci.transfer(s, n+uint64(j), sink, big.NewInt(1))
			}
		}
	}
	var head hexutil.Uint64
	if err := c.call(ctx, &head, "eth_blockNumber"); err != nil {
		return nil, err
	}
	logf("signed %d %s transfers from %d senders; submitting with %d workers (batch %d, rate %v/s, 0: unpaced)", o.Txs, o.Kind, o.Senders, o.Workers, o.Batch, o.Rate)

	pid := o.PID
	if pid == 0 {
		pid = serverPID(o.URL)
	}
	tr := newTracker(c, uint64(head))
	trCtx, stopTracker := context.WithCancel(ctx)
	defer stopTracker()
	go tr.run(trCtx)

	meter := startCPU(pid)
	start := time.Now()
	accepted, refused, sentAt, actual := submitAll(ctx, c, txs, o.Workers, o.Batch, o.Rate, start)
	submitted := time.Since(start)
	res := &tpsResult{URL: o.URL, Txs: o.Txs, Senders: o.Senders, Workers: o.Workers, Batch: o.Batch, Kind: o.Kind, OfferedRate: o.Rate,
		Accepted: len(accepted), RefusedBy: refused, SubmitSecs: submitted.Seconds(),
		SubmitRate: float64(len(accepted)) / submitted.Seconds(), ServerCPUs: -1, ServerCPUusPerTx: -1}
	for _, n := range refused {
		res.Refused += n
	}
	logf("submitted in %.2fs: %d accepted (%.0f/s), %d refused %v", submitted.Seconds(), res.Accepted, res.SubmitRate, res.Refused, refused)

	// Every accepted transaction must be mined.
	last, missing := tr.waitAll(ctx, accepted, o.Timeout)
	server, self := meter.stop()
	stopTracker()
	res.Unmined = len(missing)
	res.Mined = res.Accepted - res.Unmined
	res.Blocks, res.MaxBlockTxs = tr.blockStats()
	res.EndToEndSecs = last.Sub(start).Seconds()
	if res.Mined > 0 && res.EndToEndSecs > 0 {
		res.TPS = float64(res.Mined) / res.EndToEndSecs
	}
	res.GenCPUs = self.Seconds()
	if server >= 0 {
		res.ServerCPUs = server.Seconds()
		if res.Mined > 0 {
			res.ServerCPUusPerTx = float64(server.Microseconds()) / float64(res.Mined)
		}
	}
	res.LatencyP50ms, res.LatencyP99ms, res.LatencyMaxms = tr.latencies(sentAt)
	res.SentLatencyP50ms, res.SentLatencyP99ms, _ = tr.latencies(actual)
	logf("mined %d of %d accepted in %d blocks (most %d per block): %.0f tx/s end to end, server CPU %.0f µs/tx, latency p50 %.0f ms p99 %.0f ms (from the request: %.0f, %.0f)",
		res.Mined, res.Accepted, res.Blocks, res.MaxBlockTxs, res.TPS, res.ServerCPUusPerTx, res.LatencyP50ms, res.LatencyP99ms,
		res.SentLatencyP50ms, res.SentLatencyP99ms)
	if o.Kind == "erc20" {
		res.Token = token.Hex()
		after, err := tokenBalance(ctx, c, token, sink)
		if err != nil {
			return res, err
		}
		// Mined is not enough for a contract call: each must have moved
		// its token.
		res.TokenBalanceOK = new(big.Int).Sub(after, sinkTokens).Cmp(big.NewInt(int64(res.Mined))) == 0
		if !res.TokenBalanceOK {
			return res, fmt.Errorf("the sink received %v tokens from %d mined transfers", new(big.Int).Sub(after, sinkTokens), res.Mined)
		}
	}
	if res.Unmined > 0 {
		return res, fmt.Errorf("%d accepted transactions not mined within %s (first %s)", res.Unmined, o.Timeout, missing[0].Hex())
	}
	return res, nil
}

// fundSenders gives each sender holding less than grant its grant, at
// most stage transactions at a time (each stage mined before the next).
func fundSenders(ctx context.Context, c *client, ci *chainInfo, from account, senders []account, grant *big.Int, stage int, logf func(string, ...any)) error {
	var todo []account
	for _, s := range senders {
		b, err := balanceOf(ctx, c, s.addr)
		if err != nil {
			return err
		}
		if b.Cmp(new(big.Int).Div(grant, big.NewInt(2))) < 0 {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	nonce, err := nonceOf(ctx, c, from.addr, "pending")
	if err != nil {
		return err
	}
	for len(todo) > 0 {
		n := min(stage, len(todo))
		var last *types.Transaction
		for _, s := range todo[:n] {
			last = ci.transfer(from, nonce, s.addr, grant)
			if err := sendRaw(ctx, c, last); err != nil {
				return fmt.Errorf("fund %s: %w", s.addr.Hex(), err)
			}
			nonce++
		}
		if _, err := receipt(ctx, c, last.Hash(), 2*time.Minute); err != nil {
			return err
		}
		todo = todo[n:]
	}
	logf("funded senders from %s", from.addr.Hex())
	return nil
}

// submitAll sends every sender's transactions in nonce order: sender i
// belongs to worker i mod workers, which sends one transaction (or a batch)
// per sender in turn. With rate above 0 the n-th transaction (of all) is
// not sent before start + n/rate: an open loop, whose latency counts from
// that scheduled time even when the workers fall behind. It returns the
// accepted hashes, the refusals by message, when each accepted
// transaction was submitted (scheduled) and when its request was sent.
func submitAll(ctx context.Context, c *client, txs [][]*types.Transaction, workers, batch int, rate float64, start time.Time) ([]common.Hash, map[string]int, map[common.Hash]time.Time, map[common.Hash]time.Time) {
	var (
		mu       sync.Mutex
		accepted []common.Hash
		refused  = map[string]int{}
		sentAt   = map[common.Hash]time.Time{}
		actual   = map[common.Hash]time.Time{}
		wg       sync.WaitGroup
	)
	total := 0
	for _, l := range txs {
		total += len(l)
	}
	var slots chan time.Time
	if rate > 0 {
		slots = make(chan time.Time, total)
		go func() {
			for i := range total {
				at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
				if d := time.Until(at); d > 0 {
					select {
					case <-ctx.Done():
						close(slots)
						return
					case <-time.After(d):
					}
				}
				slots <- at
			}
			close(slots)
		}()
	}
	note := func(ok []common.Hash, errs []error, at []time.Time, sent time.Time) {
		mu.Lock()
		defer mu.Unlock()
		accepted = append(accepted, ok...)
		for i, h := range ok {
			sentAt[h], actual[h] = at[i], sent
		}
		for _, err := range errs {
			refused[err.Error()]++
		}
	}
	for w := range workers {
		var mine [][]*types.Transaction
		for i := w; i < len(txs); i += workers {
			mine = append(mine, txs[i])
		}
		if len(mine) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Round-robin over the worker's senders, each in nonce order.
			var queue []*types.Transaction
			for round := 0; ; round++ {
				more := false
				for _, list := range mine {
					if round < len(list) {
						queue = append(queue, list[round])
						more = true
					}
				}
				if !more {
					break
				}
			}
			for len(queue) > 0 && ctx.Err() == nil {
				n := min(batch, len(queue))
				at := make(map[common.Hash]time.Time, n)
				for _, tx := range queue[:n] {
					t := time.Now()
					if slots != nil {
						if t = <-slots; t.IsZero() {
							return // cancelled
						}
					}
					at[tx.Hash()] = t
				}
				sent := time.Now()
				ok, errs := send(ctx, c, queue[:n])
				times := make([]time.Time, len(ok))
				for i, h := range ok {
					times[i] = at[h]
				}
				note(ok, errs, times, sent)
				queue = queue[n:]
			}
		}()
	}
	wg.Wait()
	return accepted, refused, sentAt, actual
}

// send submits txs (one request, or a batch) and returns the accepted
// hashes and the refusals.
func send(ctx context.Context, c *client, txs []*types.Transaction) ([]common.Hash, []error) {
	if len(txs) == 1 {
		if err := sendRaw(ctx, c, txs[0]); err != nil {
			return nil, []error{err}
		}
		return []common.Hash{txs[0].Hash()}, nil
	}
	params := make([][]any, len(txs))
	for i, tx := range txs {
		raw, _ := tx.MarshalBinary()
		params[i] = []any{hexutil.Encode(raw)}
	}
	_, errs, err := c.batch(ctx, "eth_sendRawTransaction", params)
	if err != nil {
		out := make([]error, len(txs))
		for i := range out {
			out[i] = err
		}
		return nil, out
	}
	var ok []common.Hash
	var bad []error
	for i, e := range errs {
		if e != nil {
			bad = append(bad, e)
		} else {
			ok = append(ok, txs[i].Hash())
		}
	}
	return ok, bad
}

// tracker follows new blocks and records when each transaction was first
// seen in one.
type tracker struct {
	c    *client
	next uint64

	mu      sync.Mutex
	seen    map[common.Hash]time.Time
	blocks  int
	maxTxs  int
	changed chan struct{}
}

func newTracker(c *client, head uint64) *tracker {
	return &tracker{c: c, next: head + 1, seen: map[common.Hash]time.Time{}, changed: make(chan struct{}, 1)}
}

func (t *tracker) run(ctx context.Context) {
	for ctx.Err() == nil {
		var head hexutil.Uint64
		if err := t.c.call(ctx, &head, "eth_blockNumber"); err == nil {
			for ; t.next <= uint64(head) && ctx.Err() == nil; t.next++ {
				var b struct {
					Transactions []common.Hash `json:"transactions"`
				}
				if err := t.c.call(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(t.next), false); err != nil {
					break
				}
				now := time.Now()
				t.mu.Lock()
				for _, h := range b.Transactions {
					if _, ok := t.seen[h]; !ok {
						t.seen[h] = now
					}
				}
				if len(b.Transactions) > 0 {
					t.blocks++
					t.maxTxs = max(t.maxTxs, len(b.Transactions))
				}
				t.mu.Unlock()
				select {
				case t.changed <- struct{}{}:
				default:
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitAll waits until every hash was seen in a block, or timeout; it
// returns when the last one was seen and the hashes never seen.
func (t *tracker) waitAll(ctx context.Context, hashes []common.Hash, timeout time.Duration) (time.Time, []common.Hash) {
	deadline := time.After(timeout)
	for {
		t.mu.Lock()
		var last time.Time
		var missing []common.Hash
		for _, h := range hashes {
			at, ok := t.seen[h]
			if !ok {
				missing = append(missing, h)
			} else if at.After(last) {
				last = at
			}
		}
		t.mu.Unlock()
		if len(missing) == 0 {
			return last, nil
		}
		select {
		case <-t.changed:
		case <-deadline:
			sort.Slice(missing, func(i, j int) bool { return missing[i].Hex() < missing[j].Hex() })
			return last, missing
		case <-ctx.Done():
			return last, missing
		}
	}
}

// latencies are the p50, p99 and largest time, in ms, from each
// transaction's submission (sentAt) until it was seen in a block.
func (t *tracker) latencies(sentAt map[common.Hash]time.Time) (p50, p99, most float64) {
	t.mu.Lock()
	var ds []time.Duration
	for h, at := range sentAt {
		if seen, ok := t.seen[h]; ok {
			ds = append(ds, seen.Sub(at))
		}
	}
	t.mu.Unlock()
	if len(ds) == 0 {
		return 0, 0, 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ms(quantile(ds, 0.5)), ms(quantile(ds, 0.99)), ms(ds[len(ds)-1])
}

func (t *tracker) blockStats() (blocks, maxTxs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.blocks, t.maxTxs
}
