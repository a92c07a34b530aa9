package clique

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

var (
	tpsTxs     = flag.Int("clique.txs", 20000, "transfers BenchmarkCliqueTPS sends")
	tpsSenders = flag.Int("clique.senders", 1000, "accounts BenchmarkCliqueTPS sends them from")
	tpsBatch   = flag.Int("clique.batch", 500, "transactions per JSON-RPC batch in BenchmarkCliqueTPS")
)

// BenchmarkCliqueTPS measures transfers per second through a Clique
// network of three signers with 1 s blocks (three basalt processes on
// loopback): the transfers (signed beforehand, 20 per sender by default)
// go in as batches of eth_sendRawTransaction spread over the three nodes,
// the nodes gossip them, and the clock stops when every one of them is
// mined (each sender's nonce on the first node has reached its count); a
// transfer refused at submission fails the benchmark, so the figure is
// for accepted and mined transactions alike.
//
// The machine is often shared, so besides the wall-clock tx/s the
// benchmark reports the CPU time the three node processes spent per
// transfer and the rate two cores would sustain at that cost
// (2-core-tx/s = 2 / CPU time per transfer): the figure for an idle
// 2-core machine, where every node runs on the same two cores.
//
//	go test -run XXX -bench CliqueTPS -benchtime=1x ./test/clique/
func BenchmarkCliqueTPS(b *testing.B) {
	senders, perSender := *tpsSenders, *tpsTxs / *tpsSenders
	total := senders * perSender
	keys := make([]*ecdsa.PrivateKey, senders)
	alloc := make([]string, senders)
	for i := range keys {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte("clique tps sender " + strconv.Itoa(i))))
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = k
		alloc[i] = fmt.Sprintf(`"%s": {"balance": "0x3635c9adc5dea00000"}`, crypto.PubkeyToAddress(k.PublicKey).Hex())
	}
	genesis := filepath.Join(b.TempDir(), "tps.json")
	extra := clique.GenesisExtra(cliqueAddr(0), cliqueAddr(1), cliqueAddr(2))
	g := fmt.Sprintf(`{"config": {"chainId": %d, "londonBlock": 0,
  "clique": {"blockperiodseconds": 1, "epochlength": 30000}},
  "difficulty": "0x1", "extraData": "%s", "gasLimit": "0x1fffffffffffff", "timestamp": "0x0",
  "alloc": {%s}}`, cliqueChainID, hexutil.Encode(extra), strings.Join(alloc, ",\n"))
	if err := os.WriteFile(genesis, []byte(g), 0o644); err != nil {
		b.Fatal(err)
	}

	for range b.N {
		b.StopTimer()
		nodes := make([]*testnode.P2PNode, 3)
		for i := range nodes {
			dir := b.TempDir()
			keyFile := filepath.Join(dir, "key")
			os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(cliqueKey(i)))), 0o600)
			nodes[i] = testnode.StartP2P(b, dir, "--genesis-file="+genesis, "--node-private-key-file="+keyFile,
				"--tx-pool-max-size="+strconv.Itoa(2*total), "--rpc-http-max-batch-size="+strconv.Itoa(*tpsBatch))
		}
		testnode.Connect(b, nodes...)
		for nodes[0].BlockNumber() < 3 {
			time.Sleep(100 * time.Millisecond)
		}
		batches := signBatches(b, keys, perSender, *tpsBatch)
		start0 := nodes[0].BlockNumber()
		cpu0 := devnode.NodesCPU(b, nodes)
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range nodes {
			wg.Go(func() {
				for i := w; i < len(batches); i += len(nodes) {
					sendBatch(b, nodes[w].URL, batches[i])
				}
			})
		}
		wg.Wait()
		submitted := time.Since(start)
		for i := 0; i < len(keys); {
			var nonce hexutil.Uint64
			nodes[0].MustCall(&nonce, "eth_getTransactionCount", crypto.PubkeyToAddress(keys[i].PublicKey), "latest")
			if int(nonce) == perSender {
				i++
				continue
			}
			time.Sleep(50 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		cpu := devnode.NodesCPU(b, nodes) - cpu0

		head := nodes[0].BlockNumber()
		mined, busiest := 0, 0
		for n := start0 + 1; n <= head; n++ {
			var blk struct {
				Transactions []common.Hash `json:"transactions"`
			}
			nodes[0].MustCall(&blk, "eth_getBlockByNumber", hexutil.EncodeUint64(n), false)
			mined += len(blk.Transactions)
			busiest = max(busiest, len(blk.Transactions))
		}
		if mined != total {
			b.Fatalf("%d transfers mined, %d sent", mined, total)
		}
		b.ReportMetric(float64(total)/elapsed.Seconds(), "tx/s")
		b.ReportMetric(float64(busiest), "max-tx/block")
		b.ReportMetric(float64(cpu.Microseconds())/float64(total), "node-cpu-µs/tx")
		b.ReportMetric(2*float64(total)/cpu.Seconds(), "2-core-tx/s")
		b.Logf("%d transfers from %d senders: submitted in %.1f s, all mined in %.1f s over blocks %d..%d (busiest block %d); the three nodes used %.1f s of CPU",
			total, senders, submitted.Seconds(), elapsed.Seconds(), start0+1, head, busiest, cpu.Seconds())
		for _, n := range nodes {
			n.Stop(15)
		}
		b.StartTimer()
	}
}

// signBatches signs perSender transfers from each key, interleaved by
// nonce (every sender's nonce 0, then every nonce 1, ...), and encodes them
// as JSON-RPC batches of size.
func signBatches(b *testing.B, keys []*ecdsa.PrivateKey, perSender, size int) [][]byte {
	b.Helper()
	signer := types.LatestSignerForChainID(big.NewInt(cliqueChainID))
	to := common.Address{0x7e}
	var (
		batches [][]byte
		batch   []string
	)
	flush := func() {
		if len(batch) > 0 {
			batches = append(batches, []byte("["+strings.Join(batch, ",")+"]"))
			batch = nil
		}
	}
	for nonce := range perSender {
		for _, k := range keys {
			tx := types.MustSignNewTx(k, signer, &types.DynamicFeeTx{
				ChainID: big.NewInt(cliqueChainID), Nonce: uint64(nonce), To: &to, Value: big.NewInt(1),
				Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11),
			})
			raw, _ := tx.MarshalBinary()
			batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_sendRawTransaction","params":["%s"]}`,
				len(batch), hexutil.Encode(raw)))
			if len(batch) == size {
				flush()
			}
		}
	}
	flush()
	return batches
}

// sendBatch posts a batch and fails on any error answer.
func sendBatch(b *testing.B, url string, body []byte) {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	defer resp.Body.Close()
	var answers []struct {
		Error *testnode.RPCError `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answers); err != nil {
		b.Errorf("batch answer: %v", err)
		return
	}
	for _, a := range answers {
		if a.Error != nil {
			b.Errorf("transfer refused: %v", a.Error)
			return
		}
	}
}
