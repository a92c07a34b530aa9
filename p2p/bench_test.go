package p2p_test

import (
	"flag"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

var (
	syncBlocks = flag.Int("sync.blocks", 5000, "blocks of the chain BenchmarkSync syncs")
	syncTxs    = flag.Int("sync.txs", 50, "transfers per block of the chain BenchmarkSync syncs")
)

// BenchmarkSync measures full sync on loopback: a fresh node catches up a
// chain of transfers (5,000 blocks of 50 by default) from one peer, from
// admin_addPeer to the head, against `basalt blocks import` of the same
// chain (whole process). Both verify every seal and execute every block.
//
//	go test -run XXX -bench Sync -benchtime=1x ./p2p/
func BenchmarkSync(b *testing.B) {
	f := generated(b, *syncBlocks, *syncTxs)
	blocks, mgas := float64(f.Number), float64(f.Gas)/1e6

	srcDir := b.TempDir()
	imp := importBlocks(b, f, srcDir).Seconds()

	source := testnode.StartP2P(b, srcDir, "--genesis-file="+f.Genesis)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		joiner := testnode.StartP2P(b, b.TempDir(), "--genesis-file="+f.Genesis)
		b.StartTimer()
		start := time.Now()
		joiner.AddPeer(source)
		for joiner.BlockNumber() < f.Number {
			time.Sleep(20 * time.Millisecond)
		}
		total += time.Since(start)
		b.StopTimer()
		joiner.Stop(15) // SIGTERM
		b.StartTimer()
	}
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(blocks/imp, "import-blocks/s")
	b.ReportMetric(mgas/imp, "import-Mgas/s")
	b.ReportMetric(blocks/secs, "sync-blocks/s")
	b.ReportMetric(mgas/secs, "sync-Mgas/s")
	b.Logf("chain: %d blocks, %.0f Mgas; blocks import %.1f s; sync %.1f s", f.Number, mgas, imp, secs)
}
