package bft

import (
	"crypto/ecdsa"
	"flag"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
)

var (
	benchTxs     = flag.Int("ibft.txs", 20000, "transfers BenchmarkIBFTThroughput sends")
	benchSenders = flag.Int("ibft.senders", 200, "sender accounts of BenchmarkIBFTThroughput")
	benchRate    = flag.Int("ibft.rate", 0, "transfers per second BenchmarkIBFTThroughput offers (0: all at once)")
	benchTimeout = flag.Int("ibft.timeout", 5, "requesttimeoutseconds of BenchmarkIBFTThroughput")
	benchIdle    = flag.Duration("ibft.idle", 20*time.Second, "how long BenchmarkIBFTIdle measures")
)

// BenchmarkIBFTThroughput measures transfers per second end to end on 4
// validators with 1 s blocks, all on this machine: every transfer is
// signed first, then sent in JSON-RPC batches spread over the four nodes
// (each sender's transfers to one node); the clock runs from the first
// submission to the block holding the last one, as node 0 sees blocks
// appear. Latency is from a transfer's batch being sent to node 0 seeing
// its block; every accepted transfer must be mined. With -ibft.rate the
// transfers are offered at that steady rate instead of all at once, which
// measures latency without a backlog.
//
// It runs IBFT 2.0 and QBFT side by side (sub-benchmarks ibft2 and qbft),
// on the same engine, driver and core with each protocol's message set.
//
//	go test -run XXX -bench IBFTThroughput -benchtime=1x ./test/bft/
//	go test -run XXX -bench IBFTThroughput -benchtime=1x ./test/bft/ -args -ibft.rate=1000 -ibft.txs=10000
func BenchmarkIBFTThroughput(b *testing.B) {
	for _, engine := range bftEngines {
		b.Run(engine, func(b *testing.B) { benchThroughput(b, engine) })
	}
}

// bftEngines are the genesis keys of the BFT protocols the benchmarks
// compare.
var bftEngines = []string{"ibft2", "qbft"}

// generateBench is a network of count validators of engine with 1 s
// blocks and the given round timeout and extra alloc entries.
func generateBench(b *testing.B, engine string, count, requestTimeout int, extraAlloc string) *bftnet.Network {
	net := bftnet.Generate(b, count, bftnet.OperatorConfig(count, fmt.Sprintf(
		`%q: {"blockperiodseconds": 1, "epochlength": 30000, "requesttimeoutseconds": %d}`, engine, requestTimeout), extraAlloc))
	if engine == "qbft" {
		net.Groups = "QBFT"
	}
	return net
}

func benchThroughput(b *testing.B, engine string) {
	keys := make([]*ecdsa.PrivateKey, *benchSenders)
	var alloc strings.Builder
	for i := range keys {
		keys[i], _ = crypto.GenerateKey()
		fmt.Fprintf(&alloc, "\n      %q: {\"balance\": \"0xad78ebc5ac6200000000\"},", crypto.PubkeyToAddress(keys[i].PublicKey).Hex()[2:])
	}
	net := generateBench(b, engine, 4, *benchTimeout, alloc.String())
	net.Start("--tx-pool-max-size=100000", "--rpc-http-max-batch-size=2000")
	bftnet.WaitHeight(b, 60*time.Second, 2, net.Nodes...)

	per := *benchTxs / len(keys)
	signer := types.LatestSignerForChainID(big.NewInt(2018))
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	batches := make([][][]byte, len(net.Nodes)) // by node: raw txs
	hashes := make(map[common.Hash]int, per*len(keys))
	for i, k := range keys {
		for nonce := range per {
			tx := types.MustSignNewTx(k, signer, &types.DynamicFeeTx{ChainID: big.NewInt(2018), Nonce: uint64(nonce),
				GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
			raw, _ := tx.MarshalBinary()
			batches[i%len(net.Nodes)] = append(batches[i%len(net.Nodes)], raw)
			hashes[tx.Hash()] = -1
		}
	}
	cpu0 := devnode.NodesCPU(b, net.Nodes)
	b.ResetTimer()

	var (
		mu        sync.Mutex
		submitted = map[common.Hash]time.Time{}
		rejected  int
		// submittedBy is when the last batch was answered.
		submittedBy time.Time
		wg          sync.WaitGroup
	)
	start := time.Now()
	for i, n := range net.Nodes {
		wg.Go(func() {
			txs := batches[i]
			size, tick := 500, time.Duration(0)
			if *benchRate > 0 {
				// A steady offer: a batch every 100 ms from each node's
				// sender, so latency is measured without a backlog.
				size, tick = max(1, *benchRate/len(net.Nodes)/10), 100*time.Millisecond
			}
			for k := 0; len(txs) > 0; k++ {
				if tick > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(k) * tick)))
				}
				chunk := txs[:min(size, len(txs))]
				txs = txs[len(chunk):]
				sent := time.Now()
				ok, bad := devnode.SendBatch(b, n.URL, chunk)
				mu.Lock()
				for _, h := range ok {
					submitted[h] = sent
				}
				rejected += bad
				submittedBy = time.Now()
				mu.Unlock()
			}
		})
	}

	// Watch node 0's chain for the transfers' blocks.
	included := map[common.Hash]time.Time{}
	var last time.Time
	next := net.Nodes[0].BlockNumber() + 1
	deadline := time.Now().Add(5 * time.Minute)
	for len(included) < len(hashes) && time.Now().Before(deadline) {
		head := net.Nodes[0].BlockNumber()
		for ; next <= head; next++ {
			var blk struct {
				Transactions []common.Hash `json:"transactions"`
			}
			net.Nodes[0].MustCall(&blk, "eth_getBlockByNumber", hexutil.EncodeUint64(next), false)
			now := time.Now()
			if testing.Verbose() {
				b.Logf("block %d: %d txs at %.2f s", next, len(blk.Transactions), now.Sub(start).Seconds())
			}
			for _, h := range blk.Transactions {
				if _, ok := hashes[h]; ok {
					included[h], last = now, now
				}
			}
		}
		mu.Lock()
		done := len(submitted)+rejected == len(hashes) && len(included) >= len(submitted)
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	wg.Wait()
	b.StopTimer()
	cpu := (devnode.NodesCPU(b, net.Nodes) - cpu0).Seconds()
	if testing.Verbose() {
		b.Logf("submitted by %.2f s", submittedBy.Sub(start).Seconds())
	}

	var lat []time.Duration
	for h, at := range submitted {
		in, ok := included[h]
		if !ok {
			b.Fatalf("accepted transfer %s not mined (%d of %d mined)", h, len(included), len(submitted))
		}
		lat = append(lat, in.Sub(at))
	}
	if rejected > 0 {
		b.Fatalf("%d transfers refused by the pool", rejected)
	}
	slices.Sort(lat)
	secs := last.Sub(start).Seconds()
	b.ReportMetric(float64(len(included))/secs, "tx/s")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	// The machine is shared: the CPU the four nodes used bounds what two
	// cores of their own would sustain.
	b.ReportMetric(cpu, "nodes-cpu-s")
	b.ReportMetric(float64(len(included))/(cpu/2), "cpu-bound-tx/s")
	b.Logf("%d transfers mined in %.1f s over %d blocks", len(included), secs, next-1)
	if testing.Verbose() {
		for _, l := range strings.Split(net.Nodes[0].Logs(), "\n") {
			if strings.Contains(l, "Committed block") || strings.Contains(l, "Produced") {
				b.Log(l)
			}
		}
	}
}

// BenchmarkIBFTIdle measures the consensus overhead of an idle network:
// 4 validators making empty 1 s blocks; CPU time per node as a share of
// one core, and per block; IBFT 2.0 and QBFT side by side.
//
//	go test -run XXX -bench IBFTIdle -benchtime=1x ./test/bft/
func BenchmarkIBFTIdle(b *testing.B) {
	for _, engine := range bftEngines {
		b.Run(engine, func(b *testing.B) { benchIdleNetwork(b, engine) })
	}
}

func benchIdleNetwork(b *testing.B, engine string) {
	net := generateBench(b, engine, 4, 2, "")
	net.Start()
	bftnet.WaitHeight(b, 60*time.Second, 3, net.Nodes...)
	cpu := func() []time.Duration {
		var out []time.Duration
		for _, n := range net.Nodes {
			c, err := n.CPUTime()
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	b.ResetTimer()
	h0, c0, t0 := net.Nodes[0].BlockNumber(), cpu(), time.Now()
	time.Sleep(*benchIdle)
	h1, c1, wall := net.Nodes[0].BlockNumber(), cpu(), time.Since(t0)
	b.StopTimer()
	var worst, total time.Duration
	for i := range c0 {
		d := c1[i] - c0[i]
		worst, total = max(worst, d), total+d
	}
	blocks := float64(h1 - h0)
	b.ReportMetric(100*worst.Seconds()/wall.Seconds(), "max-%core/node")
	b.ReportMetric(100*total.Seconds()/wall.Seconds()/float64(len(c0)), "mean-%core/node")
	b.ReportMetric(float64(total.Milliseconds())/float64(len(c0))/blocks, "cpu-ms/block/node")
	b.Logf("%0.f blocks in %s", blocks, wall.Round(time.Millisecond))
}
