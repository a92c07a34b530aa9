package txpool

import (
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/node"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// journalTx signs a transfer of the dev account key for the tests below
// (a fee cap well above the dev base fee, so it stays executable).
func journalTx(key *ecdsa.PrivateKey, nonce uint64) *types.Transaction {
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b02")
	return types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(config.DevChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(10e9),
		Gas: 21000, To: &to, Value: big.NewInt(1),
	})
}

// submitter sends each dev account's transfers in nonce order from its own
// goroutine until stop is closed or the node stops answering, and records
// the acknowledged hashes.
type submitter struct {
	mu    sync.Mutex
	acked []common.Hash
	count atomic.Int64
}

func (s *submitter) run(n *testnode.Node, keys []*ecdsa.PrivateKey, perKey int, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for nonce := range uint64(perKey) {
				select {
				case <-stop:
					return
				default:
				}
				tx := journalTx(k, nonce)
				raw, _ := tx.MarshalBinary()
				var h common.Hash
				res, err := n.Call("eth_sendRawTransaction", hexutil.Bytes(raw))
				if err != nil || json.Unmarshal(res, &h) != nil || h != tx.Hash() {
					return // killed: whatever was not answered was not acknowledged
				}
				s.mu.Lock()
				s.acked = append(s.acked, h)
				s.mu.Unlock()
				s.count.Add(1)
			}
		}()
	}
	wg.Wait()
}

// checkKept finds every acknowledged transaction pending or mined.
func checkKept(t *testing.T, n *testnode.Node, acked []common.Hash) (pending, mined int) {
	t.Helper()
	for _, h := range acked {
		var tx *struct {
			BlockNumber *hexutil.Uint64 `json:"blockNumber"`
		}
		n.MustCall(&tx, "eth_getTransactionByHash", h)
		switch {
		case tx == nil:
			t.Errorf("acknowledged transaction %s lost", h.Hex())
		case tx.BlockNumber == nil:
			pending++
		default:
			mined++
		}
	}
	return pending, mined
}

func devKeys(t *testing.T) []*ecdsa.PrivateKey {
	var keys []*ecdsa.PrivateKey
	for i := range config.DevAccounts {
		k, _ := devnode.Key(t, i)
		keys = append(keys, k)
	}
	return keys
}

// TestJournalSurvivesKill is the acceptance test of the transaction
// journal: transactions acknowledged by eth_sendRawTransaction are pending
// or mined after a SIGKILL and a restart, whether the kill comes after the
// submissions, in the middle of concurrent submissions (so of journal
// writes), with a torn record at the journal's end, or while blocks are
// mined; and nonces are not handed out twice.
//
// It runs under both --tx-pool-journal-sync modes: WRITE answers once the
// record is written (a SIGKILL cannot undo a finished write), FSYNC once it
// is also fsynced.
func TestJournalSurvivesKill(t *testing.T) {
	for _, mode := range []string{"WRITE", "FSYNC"} {
		t.Run(mode, func(t *testing.T) { testJournalSurvivesKill(t, "--tx-pool-journal-sync="+mode) })
	}
}

func testJournalSurvivesKill(t *testing.T, syncFlag string) {
	dir := t.TempDir()
	keys := devKeys(t)
	var s submitter
	start := func(args ...string) *testnode.Node {
		return testnode.Start(t, dir, append(args, syncFlag)...)
	}

	// 1. Killed after 20 acknowledged transfers and a batch of 30 (whose
	// journal writes share an fsync before the batch is answered), the
	// node not mining.
	n := start("--network=dev")
	s.run(n, keys[:1], 20, nil)
	var batch [][]byte
	for nonce := range uint64(30) {
		raw, _ := journalTx(keys[1], nonce).MarshalBinary()
		batch = append(batch, raw)
	}
	acked, refused := devnode.SendBatch(t, n.URL, batch)
	if refused != 0 || len(acked) != 30 {
		t.Fatalf("batch: %d acknowledged, %d refused", len(acked), refused)
	}
	s.acked = append(s.acked, acked...)
	n.Stop(syscall.SIGKILL)
	n = start("--network=dev")
	if p, _ := checkKept(t, n, s.acked); p != 50 {
		t.Fatalf("after kill at rest: %d of 50 pending", p)
	}
	var next hexutil.Uint64
	n.MustCall(&next, "eth_getTransactionCount", config.DevAccounts[0].Address, "pending")
	if next != 20 {
		t.Errorf("pending nonce after restart %d, want 20 (nonces must not be handed out again)", next)
	}

	// 2. Killed while three senders submit concurrently: the kill lands
	// between and inside journal writes.
	stop := make(chan struct{})
	done := make(chan struct{})
	s2 := &submitter{}
	go func() { defer close(done); s2.run(n, keys, 400, stop) }()
	for s2.count.Load() < 150 {
		time.Sleep(time.Millisecond)
	}
	n.Stop(syscall.SIGKILL)
	close(stop)
	<-done
	n = start("--network=dev")
	all := append(append([]common.Hash(nil), s.acked...), s2.acked...)
	checkKept(t, n, all)
	t.Logf("killed mid-submission: %d acknowledged, all kept", len(s2.acked))

	// 3. A torn last record (a write cut by the crash) is dropped; the
	// records before it and later appends are kept.
	n.Stop(syscall.SIGKILL)
	journal := filepath.Join(dir, node.JournalFile)
	unacked, _ := journalTx(keys[2], 999).MarshalBinary()
	torn := binary.BigEndian.AppendUint32(nil, uint32(len(unacked)))
	torn = binary.BigEndian.AppendUint32(torn, crc32.Checksum(unacked, crc32.MakeTable(crc32.Castagnoli)))
	torn = append(torn, unacked[:len(unacked)/2]...)
	// The cut write lands where the next record goes: after the last
	// record, over the zeros the journal writes ahead of its records.
	content, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	end := 0
	for end+8 <= len(content) && binary.BigEndian.Uint32(content[end:]) != 0 {
		end += 8 + int(binary.BigEndian.Uint32(content[end:]))
	}
	f, err := os.OpenFile(journal, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(torn, int64(end))
	f.Close()
	n = start("--network=dev")
	checkKept(t, n, all)
	var pendingNonce hexutil.Uint64
	n.MustCall(&pendingNonce, "eth_getTransactionCount", config.DevAccounts[0].Address, "pending")
	s3 := &submitter{}
	more := journalTx(keys[0], uint64(pendingNonce))
	devnode.SendRaw(t, n, more)
	s3.acked = append(s3.acked, more.Hash())
	n.Stop(syscall.SIGKILL)
	all = append(all, s3.acked...)

	// 4. Restarted mining: killed while blocks include the transfers, then
	// every one is pending or mined, and all get mined.
	mining := []string{"--network=dev", "--miner-enabled", "--miner-coinbase=" + devnode.Coinbase}
	n = start(mining...)
	checkKept(t, n, all)
	time.Sleep(300 * time.Millisecond)
	n.Stop(syscall.SIGKILL)
	n = start(mining...)
	testnode.WaitFor(t, 60*time.Second, "every acknowledged transfer mined", func() bool {
		_, mined := checkKept(t, n, all)
		return mined == len(all)
	})
	// Mined transactions leave the journal at the next compaction, and a
	// restart does not bring them back.
	n.Stop(syscall.SIGTERM)
	n = start("--network=dev", "--rpc-http-api=ETH,TXPOOL")
	var status struct{ Pending, Queued hexutil.Uint }
	n.MustCall(&status, "txpool_status")
	if status.Pending != 0 || status.Queued != 0 {
		t.Errorf("mined transactions back in the pool: %+v", status)
	}
}

// TestPoolSaveRestore: with Besu's --tx-pool-enable-save-restore (and the
// journal off) a clean shutdown saves the pool to the save file, and the
// next start loads it and deletes the file.
func TestPoolSaveRestore(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--network=dev", "--tx-pool-journal-enabled=false", "--tx-pool-enable-save-restore", "--tx-pool-save-file=pool.dump"}
	n := testnode.Start(t, dir, args...)
	k, _ := devnode.Key(t, 1)
	var acked []common.Hash
	for nonce := range uint64(5) {
		acked = append(acked, devnode.SendRaw(t, n, journalTx(k, nonce)))
	}
	n.Stop(syscall.SIGTERM)
	if _, err := os.Stat(filepath.Join(dir, "pool.dump")); err != nil {
		t.Fatalf("no save file after a clean shutdown: %v", err)
	}
	n = testnode.Start(t, dir, args...)
	if p, _ := checkKept(t, n, acked); p != 5 {
		t.Errorf("%d of 5 restored", p)
	}
	if _, err := os.Stat(filepath.Join(dir, "pool.dump")); !os.IsNotExist(err) {
		t.Errorf("save file not deleted after restore: %v", err)
	}
}
