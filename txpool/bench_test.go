package txpool

// Admission benchmarks. Run with
//
//	go test -run '^$' -bench . -cpu 1,2 ./txpool/
//
// ns/op is per transaction (wall time, so with -cpu=2 it is the inverse of
// the whole machine's throughput); tx/s is reported next to it, and
// cpu-ns/op is the CPU time per transaction over all threads, which stays
// meaningful when other processes share the machine.
// BenchmarkEcrecover is the physical limit: one secp256k1 public-key
// recovery, which every new transaction costs. The insertion benchmarks use
// freshly signed transfers (sender cache empty, hash not computed) from many
// senders, signed and decoded from their wire form before the timer starts.

import (
	"math/big"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// cpuClock measures the process's CPU time (user+system, all threads), so
// the figures hold on a machine shared with other work: wall-clock ns/op
// moves with the load, cpu-ns/op much less.
type cpuClock struct{ start time.Duration }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuClock {
	b.ResetTimer()
	return &cpuClock{start: cpuTime()}
}

// report adds tx/s (wall clock) and cpu-ns/op (CPU time per transaction).
func (c *cpuClock) report(b *testing.B) {
	cpu := cpuTime() - c.start
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func BenchmarkEcrecover(b *testing.B) {
	a := newAccount(b)
	tx := legacy(b, a, 0, 1000)
	h := types.LatestSignerForChainID(testChainID).Hash(tx)
	sig, err := crypto.Sign(h[:], a.key)
	if err != nil {
		b.Fatal(err)
	}
	clock := startCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := crypto.Ecrecover(h[:], sig); err != nil {
				b.Error(err)
				return
			}
		}
	})
	clock.report(b)
}

// BenchmarkSender is types.Sender on fresh transactions: the signature
// hash (RLP + Keccak), the ecrecover and the Keccak of the public key. It is
// the least any pool must spend per new transaction.
func BenchmarkSender(b *testing.B) {
	txs := signTransfers(b, b.N)
	signer := types.LatestSignerForChainID(testChainID)
	var next atomic.Int64
	runtime.GC()
	clock := startCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := types.Sender(signer, txs[next.Add(1)-1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	clock.report(b)
}

// benchSenders is how many distinct senders the insertion benchmarks use.
const benchSenders = 1024

var (
	benchKeysOnce sync.Once
	benchKeys     []account256
)

func benchAccounts(b *testing.B) []account256 {
	benchKeysOnce.Do(func() {
		benchKeys = make([]account256, benchSenders)
		for i := range benchKeys {
			benchKeys[i] = newAccount(b)
		}
	})
	return benchKeys
}

// signTransfers signs n transfers round-robin over the senders (nonces
// 0, 0, ..., 1, 1, ...), on all cores, so every one is pending on arrival,
// and decodes them from their wire form.
func signTransfers(b *testing.B, n int) []*types.Transaction {
	accts := benchAccounts(b)
	signer := types.LatestSignerForChainID(testChainID)
	txs := make([]*types.Transaction, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 * max(1, numCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				a := accts[i%len(accts)]
				tx, err := types.SignNewTx(a.key, signer, &types.LegacyTx{
					Nonce: uint64(i / len(accts)), GasPrice: big.NewInt(1000 + int64(i%7)), Gas: 21000, To: &testTo, Value: big.NewInt(1),
				})
				if err != nil {
					panic(err)
				}
				// Round-trip through the wire encoding: JSON-RPC and p2p
				// hand the pool decoded transactions (size known, hash and
				// sender not yet computed).
				enc, err := tx.MarshalBinary()
				if err != nil {
					panic(err)
				}
				txs[i] = new(types.Transaction)
				if err := txs[i].UnmarshalBinary(enc); err != nil {
					panic(err)
				}
			}
		}()
	}
	wg.Wait()
	return txs
}

func benchPool(b *testing.B, n int) *Pool {
	cfg := DefaultConfig()
	cfg.MaxSize = n + 1
	cfg.MaxFutureNonceGap = 1 << 30
	return newTestEnv(b, cfg, devConfig(), testHead(1, testGasLimit, testBaseFee)).pool
}

// BenchmarkAddRemotes inserts batches of 256 transactions, the way the p2p
// layer delivers them.
func BenchmarkAddRemotes(b *testing.B) {
	const batch = 256
	txs := signTransfers(b, b.N)
	p := benchPool(b, b.N)
	runtime.GC()
	clock := startCPU(b)
	for lo := 0; lo < len(txs); lo += batch {
		for i, err := range p.AddRemotes(txs[lo:min(lo+batch, len(txs))]) {
			if err != nil {
				b.Fatalf("tx %d: %v", lo+i, err)
			}
		}
	}
	clock.report(b)
	if p.Len() != b.N {
		b.Fatalf("pool has %d txs, want %d", p.Len(), b.N)
	}
}

// BenchmarkAddLocal inserts one transaction per call from GOMAXPROCS
// goroutines at once, the way concurrent eth_sendRawTransaction calls do.
func BenchmarkAddLocal(b *testing.B) {
	txs := signTransfers(b, b.N)
	p := benchPool(b, b.N)
	var next atomic.Int64
	runtime.GC()
	clock := startCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// Nonces of one sender may arrive out of order across
			// goroutines; they are then briefly queued, which is fine.
			tx := txs[next.Add(1)-1]
			if err := p.AddLocal(tx); err != nil {
				b.Error(err)
				return
			}
		}
	})
	clock.report(b)
}

// BenchmarkPending is the miner taking a snapshot of a full pool (4096
// pending transactions) and walking it.
func BenchmarkPending(b *testing.B) {
	const n = 4096
	p := benchPool(b, n)
	for _, err := range p.AddRemotes(signTransfers(b, n)) {
		if err != nil {
			b.Fatal(err)
		}
	}
	baseFee := big.NewInt(testBaseFee)
	b.ResetTimer()
	for b.Loop() {
		it := p.Pending(baseFee)
		for !it.Empty() {
			it.Shift()
		}
	}
}
