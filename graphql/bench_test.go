package graphql_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/graphql"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// benchTxs is the number of transactions of the benchmark block.
const benchTxs = 500

// benchClients are the numbers of concurrent keep-alive clients measured:
// one (latency without queueing) and eight (throughput under load).
var benchClients = []int{1, 8}

// BenchmarkBlockTransactions fetches the transactions (hash, sender,
// recipient, value) of a block with 500 signed transfers over loopback
// HTTP, once with the GraphQL query
//
//	{ block(number: 1) { transactions { hash from { address } to { address } value } } }
//
// and once with JSON-RPC eth_getBlockByNumber("0x1", true), both served by
// the same backend in this process, and reports requests/s and the 99th
// percentile latency:
//
//	go test -run '^$' -bench BlockTransactions -benchtime 2000x ./graphql/
func BenchmarkBlockTransactions(b *testing.B) {
	c := chaintest.Open(b, chain.NewMemoryDatabase())
	appendTransfers(b, c, benchTxs)
	bk := &backend.Backend{Chain: c.Chain, Config: backend.Config{MinGasPrice: new(big.Int)}, Filters: filters.New(c.Chain, nil, filters.Config{})}

	svc, err := graphql.New(bk, graphql.Config{})
	if err != nil {
		b.Fatal(err)
	}
	gqlSrv := httptest.NewServer(graphql.NewHTTPHandler(svc, graphql.HTTPConfig{HostAllowlist: []string{"*"}}))
	defer gqlSrv.Close()

	reg := rpc.NewRegistry()
	if err := api.Register(reg, api.Groups(bk)...); err != nil {
		b.Fatal(err)
	}
	rpcServer, err := rpc.NewServer(reg, rpc.Config{APIs: []string{"ETH"}})
	if err != nil {
		b.Fatal(err)
	}
	rpcSrv := httptest.NewServer(rpc.NewHTTPHandler(rpcServer, rpc.HTTPConfig{HostAllowlist: []string{"*"}}))
	defer rpcSrv.Close()

	gqlQuery := []byte(`{ block(number: 1) { transactions { hash from { address } to { address } value } } }`)
	rpcQuery := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",true]}`)

	// Both answer the same 500 transactions.
	var gqlAnswer struct {
		Data struct {
			Block struct {
				Transactions []struct{ Hash common.Hash }
			}
		}
	}
	fetch(b, gqlSrv.URL+graphql.Path, "application/graphql", gqlQuery, &gqlAnswer)
	var rpcAnswer struct {
		Result struct{ Transactions []struct{ Hash common.Hash } }
	}
	fetch(b, rpcSrv.URL, "application/json", rpcQuery, &rpcAnswer)
	if n, m := len(gqlAnswer.Data.Block.Transactions), len(rpcAnswer.Result.Transactions); n != benchTxs || m != benchTxs {
		b.Fatalf("GraphQL answered %d transactions, JSON-RPC %d", n, m)
	}

	for _, clients := range benchClients {
		b.Run(fmt.Sprintf("graphql/clients=%d", clients), func(b *testing.B) {
			drive(b, clients, gqlSrv.URL+graphql.Path, "application/graphql", gqlQuery)
		})
		b.Run(fmt.Sprintf("jsonrpc/clients=%d", clients), func(b *testing.B) {
			drive(b, clients, rpcSrv.URL, "application/json", rpcQuery)
		})
	}
}

// appendTransfers inserts a block of n signed value transfers (not
// executed: the chain keeps the receipts it is given).
func appendTransfers(b *testing.B, c *chaintest.Chain, n int) {
	key, _ := crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	parent := c.CurrentHeader()
	signer := types.MakeSigner(c.Config(), new(big.Int).Add(parent.Number, common.Big1), parent.Time+1)
	txs := make([]*types.Transaction, n)
	receipts := make(types.Receipts, n)
	for i := range txs {
		to := common.BigToAddress(big.NewInt(int64(0x1000 + i)))
		tx, err := types.SignNewTx(key, signer, &types.LegacyTx{
			Nonce: uint64(i), To: &to, Value: big.NewInt(int64(i + 1)), Gas: 21000, GasPrice: big.NewInt(1),
		})
		if err != nil {
			b.Fatal(err)
		}
		txs[i] = tx
		receipts[i] = &types.Receipt{Type: types.LegacyTxType, Status: types.ReceiptStatusSuccessful,
			CumulativeGasUsed: 21000 * uint64(i+1), GasUsed: 21000}
		receipts[i].Bloom = types.CreateBloom(receipts[i])
	}
	header := &types.Header{
		ParentHash: c.Hash(parent),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		GasUsed:    21000 * uint64(n),
		Time:       parent.Time + 1,
		Difficulty: big.NewInt(1),
		Root:       parent.Root,
		BaseFee:    new(big.Int),
	}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))
	c.Insert(block, receipts, false)
}

func fetch(b *testing.B, url, contentType string, body []byte, v any) {
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d: %.300s", resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		b.Fatalf("%v: %.300s", err, data)
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// drive posts body b.N times from clients keep-alive clients and reports
// requests/s, the 99th percentile latency and the CPU time per request.
func drive(b *testing.B, clients int, url, contentType string, body []byte) {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
	)
	var next atomic.Int64
	b.ResetTimer()
	cpuStart := processCPU()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for next.Add(1) <= int64(b.N) {
				start := time.Now()
				resp, err := client.Post(url, contentType, bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mine = append(mine, time.Since(start))
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	// CPU time per request (server and client: both run in this process)
	// depends little on what else the machine runs, unlike requests/s
	// and latency.
	b.ReportMetric(float64((processCPU()-cpuStart).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if len(latencies) > 0 {
		slices.Sort(latencies)
		p99 := latencies[min(len(latencies)-1, len(latencies)*99/100)]
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	}
}
