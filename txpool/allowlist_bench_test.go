package txpool

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/permissioning"
)

// Account allowlist cost on the pool's hot path. Run with
//
//	go test -run '^$' -bench 'AddRemotesAllowlist' -count 5 ./txpool/
//
// BenchmarkAddRemotesAllowlist inserts the same kind of batches as
// BenchmarkAddRemotes into two pools, one asking an accounts allowlist of
// 10,000 accounts (the benchmark's 1,024 senders among them) and one with
// no allowlist, alternating batch by batch (and which pool goes first) so
// that a shared machine's changing load falls on both alike. It reports
// each pool's CPU ns per transaction and their ratio (allowlist/none).

// allowlistOf writes a permissions file holding the senders and filler
// accounts up to n entries, and loads it.
func allowlistOf(b *testing.B, n int) *permissioning.Allowlists {
	var sb strings.Builder
	sb.WriteString("accounts-allowlist=[")
	accts := benchAccounts(b)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		if i < len(accts) {
			fmt.Fprintf(&sb, "%q", strings.ToLower(accts[i].addr.Hex()))
		} else {
			fmt.Fprintf(&sb, "\"0x%040x\"", i)
		}
	}
	sb.WriteString("]\n")
	path := filepath.Join(b.TempDir(), permissioning.DefaultFile)
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	l, err := permissioning.Load(permissioning.Config{AccountsEnabled: true, AccountsFile: path})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// twoCopies returns two fresh copies of txs (no cached hash or sender), so
// two pools each pay for their own recovery, decoded alternately so that
// neither set gets a memory layout the other lacks.
func twoCopies(b *testing.B, txs []*types.Transaction) (x, y []*types.Transaction) {
	x, y = make([]*types.Transaction, len(txs)), make([]*types.Transaction, len(txs))
	for i, tx := range txs {
		enc, err := tx.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		x[i], y[i] = new(types.Transaction), new(types.Transaction)
		if err := x[i].UnmarshalBinary(enc); err != nil {
			b.Fatal(err)
		}
		if err := y[i].UnmarshalBinary(enc); err != nil {
			b.Fatal(err)
		}
	}
	return x, y
}

func BenchmarkAddRemotesAllowlist(b *testing.B) {
	const batch = 256
	list := allowlistOf(b, 10_000)
	plain, listed := twoCopies(b, signTransfers(b, b.N))
	without, with := benchPool(b, b.N), benchPool(b, b.N)
	with.SetSenderFilter(list.AccountPermitted)
	// CPU time (all threads) rather than wall time: on a machine shared
	// with other work it moves far less with the load.
	add := func(p *Pool, txs []*types.Transaction) time.Duration {
		start := cpuTime()
		for i, err := range p.AddRemotes(txs) {
			if err != nil {
				b.Fatalf("tx %d: %v", i, err)
			}
		}
		return cpuTime() - start
	}
	var tWith, tWithout time.Duration
	runtime.GC()
	b.ResetTimer()
	for k, lo := 0, 0; lo < b.N; k, lo = k+1, lo+batch {
		hi := min(lo+batch, b.N)
		if k%2 == 0 {
			tWith += add(with, listed[lo:hi])
			tWithout += add(without, plain[lo:hi])
		} else {
			tWithout += add(without, plain[lo:hi])
			tWith += add(with, listed[lo:hi])
		}
	}
	b.StopTimer()
	if with.Len() != b.N || without.Len() != b.N {
		b.Fatalf("pools hold %d and %d txs, want %d", with.Len(), without.Len(), b.N)
	}
	b.ReportMetric(float64(tWithout.Nanoseconds())/float64(b.N), "none-cpu-ns/tx")
	b.ReportMetric(float64(tWith.Nanoseconds())/float64(b.N), "allowlist-cpu-ns/tx")
	b.ReportMetric(float64(tWith)/float64(tWithout), "ratio")
}

// BenchmarkAllowlistCheck is the check alone: one lookup in a 10,000-entry
// accounts allowlist.
func BenchmarkAllowlistCheck(b *testing.B) {
	list := allowlistOf(b, 10_000)
	addr := benchAccounts(b)[7].addr
	for b.Loop() {
		if !list.AccountPermitted(addr) {
			b.Fatal("not permitted")
		}
	}
}
