package txjournal

import (
	"crypto/ecdsa"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

var testKey, _ = crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")

func signed(t testing.TB, key *ecdsa.PrivateKey, nonce uint64) *types.Transaction {
	to := common.HexToAddress("0xb0b0")
	return types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e9), Gas: 21000, To: &to, Value: big.NewInt(1),
	})
}

func hashes(txs []*types.Transaction) []common.Hash {
	out := make([]common.Hash, len(txs))
	for i, tx := range txs {
		out[i] = tx.Hash()
	}
	return out
}

func sameTxs(t *testing.T, got, want []*types.Transaction) {
	t.Helper()
	g, w := hashes(got), hashes(want)
	if len(g) != len(w) {
		t.Fatalf("got %d transactions, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("transaction %d: got %s, want %s", i, g[i].Hex(), w[i].Hex())
		}
	}
}

func TestAppendReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, txs, err := Open(path, Options{})
	if err != nil || len(txs) != 0 {
		t.Fatalf("open empty: %v %d", err, len(txs))
	}
	want := appendSigned(t, j, 0, 5)
	if j.Records() != 5 || j.Syncs() != 5 {
		t.Errorf("records %d syncs %d", j.Records(), j.Syncs())
	}
	j.Close()
	if err := j.Append(signed(t, testKey, 9)); err != ErrClosed {
		t.Errorf("append after close: %v", err)
	}
	j, got, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	sameTxs(t, got, want)
	// Appends continue after the replayed records.
	extra := signed(t, testKey, 5)
	j.Append(extra)
	j.Close()
	_, got, _ = Open(path, Options{})
	sameTxs(t, got, append(want, extra))
}

// TestTornTail cuts the file at every byte of its last record and corrupts
// the last record's bytes: Open keeps the complete records before it,
// truncates the rest, and appends after it read back.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "journal")
	j, _, _ := Open(path, Options{})
	var want []*types.Transaction
	for n := range uint64(3) {
		tx := signed(t, testKey, n)
		j.Append(tx)
		want = append(want, tx)
	}
	j.Close()
	full, _ := os.ReadFile(path)
	recLen := len(full) / 3
	lastStart := len(full) - recLen
	cases := map[string][]byte{}
	for cut := lastStart; cut < len(full); cut++ {
		cases["cut at "+itoa(cut)] = full[:cut]
	}
	for i := lastStart; i < len(full); i += 7 {
		b := append([]byte(nil), full...)
		b[i] ^= 0x5a
		cases["flip byte "+itoa(i)] = b
	}
	cases["garbage after"] = append(append([]byte(nil), full[:lastStart]...), 0xff, 0xff, 0xff, 0xff, 1, 2, 3)
	for name, b := range cases {
		p := filepath.Join(dir, "case")
		os.WriteFile(p, b, 0o644)
		j, got, err := Open(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameTxs(t, got, want[:2])
		next := signed(t, testKey, 7)
		if err := j.Append(next); err != nil {
			t.Fatalf("%s: append: %v", name, err)
		}
		j.Close()
		_, got, _ = Open(p, Options{})
		sameTxs(t, got, append(want[:2:2], next))
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// syncModes are the two answers a journal gives: after the fsync, and after
// the write with fsyncs in the background.
var syncModes = []struct {
	name string
	opts Options
}{
	{"fsync", Options{}},
	{"write", Options{SyncEvery: 5 * time.Millisecond}},
}

// TestGroupCommit appends from many goroutines: every transaction is in
// the journal when its Append returns, and appends share writes (and
// fsyncs).
func TestGroupCommit(t *testing.T) {
	for _, m := range syncModes {
		t.Run(m.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			j, _, _ := Open(path, m.opts)
			const writers, each = 32, 20
			var wg sync.WaitGroup
			keys := make([]*ecdsa.PrivateKey, writers)
			for i := range keys {
				keys[i], _ = crypto.GenerateKey()
			}
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range uint64(each) {
						if err := j.Append(signed(t, keys[w], n)); err != nil {
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			if j.Records() != writers*each {
				t.Errorf("records %d", j.Records())
			}
			if w := j.Writes(); w >= writers*each {
				t.Errorf("%d writes for %d appends: no group commit", w, writers*each)
			}
			if m.opts.SyncEvery == 0 && j.Syncs() != j.Writes() {
				t.Errorf("%d fsyncs for %d writes: every write must be synced before Append returns", j.Syncs(), j.Writes())
			}
			j.Close()
			_, got, _ := Open(path, Options{})
			if len(got) != writers*each {
				t.Errorf("reopened %d", len(got))
			}
		})
	}
}

// TestWriteMode: with SyncEvery an Append returns once its record is
// written, before any fsync — a second reader (the restarted process after
// a SIGKILL) finds it — and Close fsyncs what the background has not.
func TestWriteMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, _, err := Open(path, Options{SyncEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	want := appendSigned(t, j, 0, 5)
	if j.Syncs() != 0 || j.Writes() != 5 {
		t.Errorf("after 5 appends: %d fsyncs, %d writes; want 0 and 5", j.Syncs(), j.Writes())
	}
	_, got, err := Open(path, Options{}) // as after the process died: j never closed
	if err != nil {
		t.Fatal(err)
	}
	sameTxs(t, got, want)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if j.Syncs() != 1 {
		t.Errorf("close did %d fsyncs, want 1 for the unsynced records", j.Syncs())
	}
	_, got, _ = Open(path, Options{})
	sameTxs(t, got, want)
}

// TestWriteModeSyncsInBackground: written records are fsynced without
// another append or a close.
func TestWriteModeSyncsInBackground(t *testing.T) {
	j, _, err := Open(filepath.Join(t.TempDir(), "journal"), Options{SyncEvery: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	appendSigned(t, j, 0, 3)
	deadline := time.Now().Add(10 * time.Second)
	for j.Syncs() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("written records not fsynced in the background")
		}
		time.Sleep(time.Millisecond)
	}
	j.mu.Lock()
	durable, written := j.durable, j.written
	j.mu.Unlock()
	if durable != written {
		t.Errorf("after the background fsync %d of %d written records durable", durable, written)
	}
}

// TestWriteModeRewrite compacts while appends and background fsyncs run
// (under -race: the swap of files never meets an fsync of the old one).
func TestWriteModeRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, _, _ := Open(path, Options{SyncEvery: time.Millisecond})
	var (
		mu   sync.Mutex
		live []*types.Transaction
		wg   sync.WaitGroup
	)
	keys := make([]*ecdsa.PrivateKey, 4)
	for i := range keys {
		keys[i], _ = crypto.GenerateKey()
	}
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range uint64(100) {
				tx := signed(t, k, n)
				mu.Lock()
				live = append(live, tx) // pooled before it is journaled, as the node does
				mu.Unlock()
				if err := j.Append(tx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 20 {
		if err := j.Rewrite(func() []*types.Transaction {
			mu.Lock()
			defer mu.Unlock()
			return append([]*types.Transaction(nil), live...)
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	j.Close()
	_, got, _ := Open(path, Options{})
	if len(got) != len(live) {
		t.Errorf("reopened %d records, want %d", len(got), len(live))
	}
}

// TestRewrite compacts while appends run: what live returns and what was
// appended after it are in the journal.
func TestRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, _, _ := Open(path, Options{})
	var txs []*types.Transaction
	for n := range uint64(10) {
		tx := signed(t, testKey, n)
		j.Append(tx)
		txs = append(txs, tx)
	}
	if err := j.Rewrite(func() []*types.Transaction { return txs[7:] }); err != nil {
		t.Fatal(err)
	}
	if j.Records() != 3 {
		t.Errorf("records after rewrite %d", j.Records())
	}
	more := signed(t, testKey, 10)
	j.Append(more)
	j.Close()
	_, got, _ := Open(path, Options{})
	sameTxs(t, got, append(txs[7:10:10], more))
	if _, err := os.Stat(path + ".new"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}

func TestSaveRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "txpool.dump")
	if txs, _, err := Restore(path); err != nil || txs != nil {
		t.Fatalf("restore missing file: %v %v", txs, err)
	}
	a, b := signed(t, testKey, 0), signed(t, testKey, 1)
	if err := Save(path, []Saved{{a, true}, {b, false}}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("x-not-a-line\nlnot base64!\n\n")
	f.Close()
	got, skipped, err := Restore(path)
	if err != nil || skipped != 2 || len(got) != 2 || !got[0].Local || got[1].Local || got[0].Tx.Hash() != a.Hash() || got[1].Tx.Hash() != b.Hash() {
		t.Fatalf("restore: %v skipped %d err %v", got, skipped, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("save file not deleted after restore")
	}
}

// FuzzOpen feeds arbitrary file contents to Open: no panic, and what it
// keeps reads back the same after an append.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	seedPath := filepath.Join(dir, "seed")
	j, _, _ := Open(seedPath, Options{})
	j.Append(signed(f, testKey, 0))
	j.Append(signed(f, testKey, 1))
	j.Close()
	seed, _ := os.ReadFile(seedPath)
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "j")
		os.WriteFile(p, data, 0o644)
		j, txs, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
		_, again, err := Open(p, Options{})
		if err != nil || len(again) != len(txs) {
			t.Fatalf("reopen: %d vs %d, %v", len(again), len(txs), err)
		}
	})
}

// BenchmarkAppend appends from 64 concurrent submitters, as the JSON-RPC
// server does under a burst: each Append returns once its record is
// fsynced (fsync) or written (write), and writes and fsyncs are shared
// (writes/op, syncs/op show how many).
//
//	go test -run '^$' -bench Append ./txjournal/
func BenchmarkAppend(b *testing.B) {
	for _, m := range syncModes {
		b.Run(m.name, func(b *testing.B) {
			j, _, err := Open(filepath.Join(b.TempDir(), "journal"), m.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			tx := signed(b, testKey, 0)
			b.SetParallelism(64)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := j.Append(tx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(j.Writes())/float64(b.N), "writes/op")
			b.ReportMetric(float64(j.Syncs())/float64(b.N), "syncs/op")
		})
	}
}

// TestPreallocatedTail: appends go into zeros written ahead of the records
// (so their fdatasync changes no file size); a crash leaves those zeros,
// which replay reads as the end; a clean close trims them.
func TestPreallocatedTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, _, _ := Open(path, Options{})
	want := appendSigned(t, j, 0, 3)
	st, _ := os.Stat(path)
	if st.Size() < preallocSize {
		t.Fatalf("journal of 3 records is %d bytes, want the %d preallocated", st.Size(), preallocSize)
	}
	// A crash: the file is opened again without j being closed.
	j2, got, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameTxs(t, got, want)
	next := signed(t, testKey, 3)
	if err := j2.Append(next); err != nil {
		t.Fatal(err)
	}
	want = append(want, next)
	if err := j2.Close(); err != nil {
		t.Fatal(err)
	}
	var records int64
	for _, tx := range want {
		b, _ := tx.MarshalBinary()
		records += headerSize + int64(len(b))
	}
	if st, _ := os.Stat(path); st.Size() != records {
		t.Errorf("closed journal is %d bytes, want its records' %d", st.Size(), records)
	}
	_, got, _ = Open(path, Options{})
	sameTxs(t, got, want)
}

// appendSigned appends count transfers of testKey with nonces from first
// and returns them.
func appendSigned(t *testing.T, j *Journal, first, count uint64) []*types.Transaction {
	t.Helper()
	var txs []*types.Transaction
	for n := first; n < first+count; n++ {
		tx := signed(t, testKey, n)
		if err := j.Append(tx); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	return txs
}
