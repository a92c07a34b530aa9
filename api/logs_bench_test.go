package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// Shape of the benchmark chain: 10,000 blocks of 10 transactions with 2
// logs each (200,000 logs), emitted by 200 contracts with 10 event
// signatures and a random second topic.
const (
	benchBlocks    = 10_000
	benchTxs       = 10
	benchLogsPerTx = 2
	benchContracts = 200
	benchEvents    = 10
)

// cpuTime is the process's CPU time (user and system, all threads): on a
// machine shared with other work, CPU time per operation moves much less
// than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchAddr(i int) common.Address { return common.BigToAddress(big.NewInt(int64(0x1000 + i))) }
func benchEvent(i int) common.Hash   { return common.BigToHash(big.NewInt(int64(0xe000 + i))) }

// BenchmarkGetLogs measures eth_getLogs (through the JSON-RPC dispatcher)
// over 10,000 blocks of a chain stored in Pebble:
//
//	go test -run '^$' -bench GetLogs -benchtime 20x ./api/
//
// "address+topic" is the selective query of the issue (one contract, one
// event: about 100 matching logs; the bloom lets through the ~8% of blocks
// where both appear, not necessarily in one log); "address" is all logs of
// one contract (~1,000); "absent" names a contract that never logged.
func BenchmarkGetLogs(b *testing.B) {
	db, err := chain.OpenDatabase(filepath.Join(b.TempDir(), "db"), 256)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() }) // after the chain's own cleanup
	c := chaintest.Open(b, db)
	rng := rand.New(rand.NewPCG(7, 7))
	start := time.Now()
	for range benchBlocks {
		txs := make([][]*types.Log, benchTxs)
		for i := range txs {
			for range benchLogsPerTx {
				t1 := common.BigToHash(new(big.Int).SetUint64(rng.Uint64()))
				txs[i] = append(txs[i], chaintest.Log(benchAddr(rng.IntN(benchContracts)), t1[:], benchEvent(rng.IntN(benchEvents)), t1))
			}
		}
		blk, rs := c.Build(c.CurrentHeader(), 1, 0, txs...)
		c.Insert(blk, rs, true)
	}
	if err := c.Sync(); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d blocks in %v", benchBlocks, time.Since(start).Round(time.Millisecond))

	sys := filters.New(c.Chain, nil, filters.Config{}) // no range cap
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c.Chain, Filters: sys})...); err != nil {
		b.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{})
	if err != nil {
		b.Fatal(err)
	}
	query := func(filter string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x1","toBlock":"%#x",%s}]}`, benchBlocks, filter))
	}
	cases := []struct{ name, filter string }{
		{"address+topic", fmt.Sprintf(`"address":"%s","topics":["%s"]`, benchAddr(7).Hex(), benchEvent(3).Hex())},
		{"address", fmt.Sprintf(`"address":"%s"`, benchAddr(7).Hex())},
		{"absent", fmt.Sprintf(`"address":"%s"`, benchAddr(benchContracts+1).Hex())},
	}
	for _, tc := range cases {
		req := query(tc.filter)
		b.Run(tc.name, func(b *testing.B) {
			var n int
			cpu := cpuTime()
			for b.Loop() {
				resp, _ := srv.HandleMessage(context.Background(), req)
				if !strings.Contains(string(resp[:min(len(resp), 64)]), `"result"`) {
					b.Fatalf("%.300s", resp)
				}
				var out struct{ Result []json.RawMessage }
				if n == 0 {
					json.Unmarshal(resp, &out)
					n = len(out.Result)
				}
			}
			b.ReportMetric(float64(n), "logs")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
