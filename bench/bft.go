package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/localnet"
)

// bftOptions are the bft mode's: the network (networkOptions), how long
// to measure, and the load.
type bftOptions struct {
	Warmup   time.Duration // after the network is up, before measuring
	Duration time.Duration
	Rate     float64       // transfers offered per second (0: idle)
	Senders  int           // accounts sending them
	Sample   time.Duration // RSS and CPU sampling period
	Seed     string
}

// bftResult is one bft run.
type bftResult struct {
	Network *networkResult `json:"network"`
	Seconds float64        `json:"seconds"`
	LoadAvg [2]string      `json:"loadAverage"` // /proc/loadavg's 1-minute figure at start and end

	Blocks            int     `json:"blocks"`
	IntervalP50ms     float64 `json:"intervalP50ms"`
	IntervalP99ms     float64 `json:"intervalP99ms"`
	IntervalMaxms     float64 `json:"intervalMaxms"`
	RoundChangeBlocks int     `json:"roundChangeBlocks"` // blocks agreed in a round above 0
	MaxRound          uint64  `json:"maxRound"`

	Rate         float64 `json:"rate,omitempty"`
	Submitted    int     `json:"submitted,omitempty"`
	SubmitErrors int     `json:"submitErrors,omitempty"`
	FirstError   string  `json:"firstError,omitempty"`
	Late         int     `json:"late,omitempty"` // ticks the generator could not send in time
	Mined        int     `json:"mined,omitempty"`
	Unmined      int     `json:"unmined,omitempty"` // submitted but not seen in a block within 10 s of the end
	LatencyP50ms float64 `json:"latencyP50ms,omitempty"`
	LatencyP99ms float64 `json:"latencyP99ms,omitempty"`

	Nodes []bftNode `json:"nodes"`
	// Totals over the nodes: cores used (CPU seconds per second) and the
	// mean RSS; the slope is the mean of the nodes' RSS slopes.
	TotalCores       float64 `json:"totalCores"`
	CPUmsPerBlock    float64 `json:"cpuMsPerNodePerBlock"`
	MeanRSSMiB       float64 `json:"meanRssMiB"`
	MaxRSSMiB        float64 `json:"maxRssMiB"`
	MeanSlopeMiBHour float64 `json:"meanRssSlopeMiBPerHour"`
	MaxSlopeMiBHour  float64 `json:"maxRssSlopeMiBPerHour"`
}

// bftNode is one validator's figures.
type bftNode struct {
	Name  string  `json:"name"`
	PID   int     `json:"pid"`
	Cores float64 `json:"cores"`
	// RSS at the end, and its least-squares slope over the samples.
	RSSMiB       float64 `json:"rssMiB"`
	SlopeMiBHour float64 `json:"rssSlopeMiBPerHour"`
	Samples      int     `json:"samples"`
}

// runBFT starts (or joins) a `network up` network, optionally offers a
// steady rate of transfers to its nodes, and measures the blocks node 1
// sees, the transfers' latency and every node's CPU and RSS.
func runBFT(ctx context.Context, o networkOptions, b bftOptions, logf func(string, ...any)) (*bftResult, error) {
	if b.Duration <= 0 || b.Sample <= 0 || b.Rate < 0 || (b.Rate > 0 && b.Senders < 1) {
		return nil, errors.New("--duration and --sample must be positive, --rate at least 0, --senders at least 1")
	}
	nr := &networkResult{Dir: o.Dir}
	if _, ok := localnet.Running(o.Dir); !ok {
		if err := startNetwork(ctx, o, logf); err != nil {
			return nil, err
		}
		nr.Started = true
		defer stopNetwork(o, logf)
	}
	m, err := localnet.ReadManifest(o.Dir)
	if err != nil {
		return nil, err
	}
	nr.Validators, nr.Consensus = m.Validators, m.Consensus
	res := &bftResult{Network: nr, Rate: b.Rate}

	urls := make([]string, len(m.Nodes))
	for i, n := range m.Nodes {
		urls[i] = n.HTTP
	}
	pids := serverPIDs(urls)
	for i, p := range pids {
		if p == 0 {
			return nil, fmt.Errorf("no local process listens on %s (%s)", urls[i], m.Nodes[i].Name)
		}
	}
	c := newClient(m.Nodes[0].HTTP, 4)
	defer c.close()

	var gen *generator
	gctx, stopGen := context.WithCancel(ctx)
	defer stopGen()
	if b.Rate > 0 {
		gen, err = newGenerator(ctx, m, b, logf)
		if err != nil {
			return nil, err
		}
		defer gen.close()
		// The load runs through the warm-up too: the pool, caches and
		// database reach their steady state before RSS is sampled.
		go gen.run(gctx)
	}
	if b.Warmup > 0 {
		logf("warming up for %s", b.Warmup)
		select {
		case <-time.After(b.Warmup):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	heads, err := followHeads(ctx, m.Nodes[0].WS)
	if err != nil {
		return nil, err
	}
	defer heads.close()
	mctx, cancel := context.WithTimeout(ctx, b.Duration)
	defer cancel()
	if gen != nil {
		gen.reset() // only what is submitted from now on is measured
	}
	res.LoadAvg[0] = loadAvg()
	cpu0 := nodesCPU(pids)
	start := time.Now()
	logf("measuring %d %s validators for %s (rate %.0f tx/s)", m.Validators, m.Consensus, b.Duration, b.Rate)

	samples := make([][]rssSample, len(pids))
	sample := func() {
		for i, p := range pids {
			if kib, err := processRSS(p); err == nil {
				samples[i] = append(samples[i], rssSample{time.Since(start).Hours(), float64(kib) / 1024})
			}
		}
	}
	sample()
	tick := time.NewTicker(b.Sample)
	defer tick.Stop()
	var (
		intervals []time.Duration
		lastSeen  time.Time
		latencies []time.Duration
		nextLog   = time.Now().Add(time.Minute)
	)
loop:
	for {
		select {
		case <-mctx.Done():
			break loop
		case <-tick.C:
			sample()
			if time.Now().After(nextLog) {
				nextLog = time.Now().Add(time.Minute)
				logf("%s: %d blocks, %d round changes, %d transfers submitted", time.Since(start).Round(time.Second), res.Blocks, res.RoundChangeBlocks, gen.submittedCount())
			}
		case h, ok := <-heads.ch:
			if !ok {
				return nil, fmt.Errorf("newHeads subscription on %s ended: %v", m.Nodes[0].WS, heads.err)
			}
			res.Blocks++
			if !lastSeen.IsZero() {
				intervals = append(intervals, h.seen.Sub(lastSeen))
			}
			lastSeen = h.seen
			if r := h.round(); r > 0 {
				res.RoundChangeBlocks++
				res.MaxRound = max(res.MaxRound, r)
			}
			if gen != nil {
				latencies = append(latencies, gen.mined(ctx, c, h)...)
			}
		}
	}
	elapsed := time.Since(start)
	stopGen()
	cpu1 := nodesCPU(pids)
	sample()
	res.LoadAvg[1] = loadAvg()
	if gen != nil {
		// The transfers of the last block period: their blocks count for
		// latency, not for the measured blocks.
		drain := time.After(10 * time.Second)
	drained:
		for gen.pendingCount() > 0 {
			select {
			case h, ok := <-heads.ch:
				if !ok {
					break drained
				}
				latencies = append(latencies, gen.mined(ctx, c, h)...)
			case <-drain:
				break drained
			}
		}
	}
	res.Seconds = elapsed.Seconds()
	q := quantiles(intervals, 0.5, 0.99, 1)
	res.IntervalP50ms, res.IntervalP99ms, res.IntervalMaxms = q[0], q[1], q[2]
	if gen != nil {
		res.Submitted, res.SubmitErrors, res.Late, res.FirstError = gen.counts()
		res.Mined = len(latencies)
		res.Unmined = gen.pendingCount()
		q := quantiles(latencies, 0.5, 0.99)
		res.LatencyP50ms, res.LatencyP99ms = q[0], q[1]
	}
	var rssSum, slopeSum float64
	for i, p := range pids {
		n := bftNode{Name: m.Nodes[i].Name, PID: p, Cores: -1, Samples: len(samples[i])}
		if cpu0[i] >= 0 && cpu1[i] >= 0 {
			n.Cores = (cpu1[i] - cpu0[i]).Seconds() / elapsed.Seconds()
			res.TotalCores += n.Cores
		}
		if s := samples[i]; len(s) > 0 {
			n.RSSMiB = s[len(s)-1].mib
			n.SlopeMiBHour = slope(s)
		}
		rssSum += n.RSSMiB
		slopeSum += n.SlopeMiBHour
		res.MaxRSSMiB = max(res.MaxRSSMiB, n.RSSMiB)
		res.MaxSlopeMiBHour = max(res.MaxSlopeMiBHour, n.SlopeMiBHour)
		res.Nodes = append(res.Nodes, n)
	}
	res.MeanRSSMiB = rssSum / float64(len(pids))
	res.MeanSlopeMiBHour = slopeSum / float64(len(pids))
	if res.Blocks > 0 {
		res.CPUmsPerBlock = res.TotalCores * elapsed.Seconds() * 1000 / float64(len(pids)) / float64(res.Blocks)
	}
	logf("%d blocks in %.0fs: interval p50 %.0f ms p99 %.0f ms, %d blocks after a round change; %.2f cores in all (%.1f ms per node per block), RSS mean %.0f MiB max %.0f MiB, slope %.1f MiB/h; load %s→%s",
		res.Blocks, res.Seconds, res.IntervalP50ms, res.IntervalP99ms, res.RoundChangeBlocks, res.TotalCores, res.CPUmsPerBlock,
		res.MeanRSSMiB, res.MaxRSSMiB, res.MeanSlopeMiBHour, res.LoadAvg[0], res.LoadAvg[1])
	if gen != nil {
		logf("transfers: %d submitted (%d errors, %d late), %d mined: latency p50 %.0f ms p99 %.0f ms", res.Submitted, res.SubmitErrors, res.Late, res.Mined, res.LatencyP50ms, res.LatencyP99ms)
	}
	if res.Blocks == 0 {
		return res, errors.New("no block in the measured time")
	}
	return res, nil
}

// stopNetwork is `basalt network down` for a network the harness started.
func stopNetwork(o networkOptions, logf func(string, ...any)) {
	logf("stopping the network in %s", o.Dir)
	if out, err := exec.Command(o.Basalt, "network", "down", "--dir", o.Dir).CombinedOutput(); err != nil {
		logf("network down: %v\n%s", err, out)
	}
}

// head is a block header as node 1 announced it, and when.
type head struct {
	Number    hexutil.Uint64 `json:"number"`
	Hash      common.Hash    `json:"hash"`
	ExtraData hexutil.Bytes  `json:"extraData"`
	seen      time.Time
}

// round is the round a BFT block was agreed in: the fourth item of its
// extraData, in QBFT ([vanity, validators, vote, round, seals]) and IBFT
// 2.0 alike; 0 when it cannot be read (a Clique block).
func (h head) round() uint64 {
	var items []rlp.RawValue
	if rlp.DecodeBytes(h.ExtraData, &items) != nil || len(items) < 4 {
		return 0
	}
	var b []byte
	if rlp.DecodeBytes(items[3], &b) != nil || len(b) > 8 {
		return 0
	}
	var r uint64
	for _, x := range b {
		r = r<<8 | uint64(x)
	}
	return r
}

// heads is a newHeads subscription.
type heads struct {
	conn *websocket.Conn
	ch   chan head
	err  error
}

func followHeads(ctx context.Context, wsURL string) (*heads, error) {
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, wsURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", wsURL, err)
	}
	if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": []any{"newHeads"}}); err != nil {
		conn.Close()
		return nil, err
	}
	h := &heads{conn: conn, ch: make(chan head, 1024)}
	go func() {
		defer close(h.ch)
		for {
			var msg struct {
				Error  *rpcError `json:"error"`
				Params struct {
					Result head `json:"result"`
				} `json:"params"`
				Method string `json:"method"`
			}
			if err := conn.ReadJSON(&msg); err != nil {
				h.err = err
				return
			}
			if msg.Error != nil {
				h.err = msg.Error
				return
			}
			if msg.Method != "eth_subscription" {
				continue // the subscription's ID
			}
			msg.Params.Result.seen = time.Now()
			h.ch <- msg.Params.Result
		}
	}()
	return h, nil
}

func (h *heads) close() { h.conn.Close() }

// generator offers a steady rate of transfers, spread over the nodes'
// HTTP endpoints, from senders funded beforehand; it remembers when each
// was submitted until a block holds it.
type generator struct {
	b       bftOptions
	ci      *chainInfo
	clients []*client
	senders []account
	nonces  []uint64

	mu      sync.Mutex
	pending map[common.Hash]time.Time

	submitted, errs, late atomic.Int64
	firstErr              atomic.Pointer[string]
}

// generatorWorkers send concurrently; sender i belongs to worker i mod
// generatorWorkers, so each sender's transfers go in nonce order.
const generatorWorkers = 32

func newGenerator(ctx context.Context, m *localnet.Manifest, b bftOptions, logf func(string, ...any)) (*generator, error) {
	g := &generator{b: b, pending: map[common.Hash]time.Time{}}
	for _, n := range m.Nodes {
		g.clients = append(g.clients, newClient(n.HTTP, generatorWorkers))
	}
	c := g.clients[0]
	ci, err := readChain(ctx, c)
	if err != nil {
		return nil, err
	}
	g.ci = ci
	key, err := parseKey(m.DevKey)
	if err != nil {
		return nil, fmt.Errorf("manifest dev key: %w", err)
	}
	g.senders = derivedAccounts(b.Seed, b.Senders)
	perSender := int64(b.Rate*(b.Duration+b.Warmup).Seconds())/int64(b.Senders) + 1
	perTx := new(big.Int).Add(new(big.Int).Mul(ci.feeCap, new(big.Int).SetUint64(params.TxGas)), big.NewInt(1))
	grant := new(big.Int).Mul(perTx, big.NewInt(2*perSender+2))
	fund, err := funder(ctx, c, key, new(big.Int).Mul(grant, big.NewInt(int64(b.Senders+1))))
	if err != nil {
		return nil, err
	}
	if err := fundSenders(ctx, c, ci, fund, g.senders, grant, 100, logf); err != nil {
		return nil, err
	}
	g.nonces = make([]uint64, len(g.senders))
	for i, s := range g.senders {
		if g.nonces[i], err = nonceOf(ctx, c, s.addr, "pending"); err != nil {
			return nil, err
		}
	}
	logf("%d senders funded; offering %.0f transfers/s to %d nodes", b.Senders, b.Rate, len(g.clients))
	return g, nil
}

func (g *generator) close() {
	for _, c := range g.clients {
		c.close()
	}
}

// run sends until ctx ends: a pacer hands out one token per 1/rate, each
// worker sends one transfer per token; a token no worker takes within a
// second is counted late.
func (g *generator) run(ctx context.Context) {
	tokens := make(chan struct{}, max(1, int(g.b.Rate)))
	var wg sync.WaitGroup
	for w := range generatorWorkers {
		wg.Go(func() { g.worker(ctx, w, tokens) })
	}
	period := time.Duration(float64(time.Second) / g.b.Rate)
	start, sent := time.Now(), int64(0)
	t := time.NewTicker(max(period, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case now := <-t.C:
			due := int64(now.Sub(start) / period)
			for ; sent < due; sent++ {
				select {
				case tokens <- struct{}{}:
				default:
					g.late.Add(1)
				}
			}
		}
	}
}

func (g *generator) worker(ctx context.Context, w int, tokens <-chan struct{}) {
	var mine []int
	for i := w; i < len(g.senders); i += generatorWorkers {
		mine = append(mine, i)
	}
	if len(mine) == 0 {
		return
	}
	for k := 0; ; k++ {
		select {
		case <-ctx.Done():
			return
		case <-tokens:
		}
		i := mine[k%len(mine)]
		tx := g.ci.transfer(g.senders[i], g.nonces[i], sink, big.NewInt(1))
		c := g.clients[(w+k)%len(g.clients)]
		at := time.Now()
		g.mu.Lock()
		g.pending[tx.Hash()] = at
		g.mu.Unlock()
		if err := sendRaw(ctx, c, tx); err != nil {
			g.mu.Lock()
			delete(g.pending, tx.Hash())
			g.mu.Unlock()
			if ctx.Err() != nil {
				return
			}
			g.errs.Add(1)
			s := err.Error()
			g.firstErr.CompareAndSwap(nil, &s)
			// The sender's next nonce as the node sees it.
			if n, err := nonceOf(ctx, c, g.senders[i].addr, "pending"); err == nil {
				g.nonces[i] = n
			}
			continue
		}
		g.nonces[i]++
		g.submitted.Add(1)
	}
}

// mined returns the latencies of the transfers block h holds.
func (g *generator) mined(ctx context.Context, c *client, h head) []time.Duration {
	var blk struct {
		Transactions []common.Hash `json:"transactions"`
	}
	if err := c.call(ctx, &blk, "eth_getBlockByHash", h.Hash, false); err != nil {
		return nil
	}
	var out []time.Duration
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, tx := range blk.Transactions {
		if at, ok := g.pending[tx]; ok {
			out = append(out, h.seen.Sub(at))
			delete(g.pending, tx)
		}
	}
	return out
}

// reset forgets what was submitted so far: the measurement starts.
func (g *generator) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.pending)
	g.submitted.Store(0)
	g.errs.Store(0)
	g.late.Store(0)
	g.firstErr.Store(nil)
}

func (g *generator) pendingCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending)
}

func (g *generator) submittedCount() int64 {
	if g == nil {
		return 0
	}
	return g.submitted.Load()
}

func (g *generator) counts() (submitted, errs, late int, first string) {
	if p := g.firstErr.Load(); p != nil {
		first = *p
	}
	return int(g.submitted.Load()), int(g.errs.Load()), int(g.late.Load()), first
}

// rssSample is one RSS reading, at hours since the start.
type rssSample struct{ hours, mib float64 }

// slope is the least-squares slope of samples in MiB per hour.
func slope(s []rssSample) float64 {
	if len(s) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for _, p := range s {
		sx += p.hours
		sy += p.mib
		sxx += p.hours * p.hours
		sxy += p.hours * p.mib
	}
	n := float64(len(s))
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// quantiles are xs's q-quantiles in ms (xs is sorted).
func quantiles(xs []time.Duration, qs ...float64) []float64 {
	slices.Sort(xs)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = ms(quantile(xs, q))
	}
	return out
}

// processRSS is a process's resident set in KiB (/proc/PID/status VmRSS).
func processRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}

// nodesCPU reads each process's CPU time (-1 when unreadable).
func nodesCPU(pids []int) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, p := range pids {
		d, err := processCPU(p)
		if err != nil {
			d = -1
		}
		out[i] = d
	}
	return out
}

// serverPIDs is serverPID for many URLs in one pass over /proc (a
// hundred nodes hold thousands of sockets).
func serverPIDs(urls []string) []int {
	inodeOf := map[string]int{} // socket inode → index in urls
	for i, u := range urls {
		port := urlPort(u)
		if port == 0 {
			continue
		}
		set := map[string]bool{}
		for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			listeningInodes(f, port, set)
		}
		for ino := range set {
			inodeOf[ino] = i
		}
	}
	out := make([]int, len(urls))
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, fdDir := range procs {
		ents, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link, err := os.Readlink(filepath.Join(fdDir, e.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if i, ok := inodeOf[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")]; ok {
				out[i], _ = strconv.Atoi(filepath.Base(filepath.Dir(fdDir)))
			}
		}
	}
	return out
}
