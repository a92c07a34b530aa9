package node

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/txjournal"
)

// TestJournalBatchSharesSync: the transactions of one JSON-RPC batch are
// journaled together (one journal write — and with FSYNC one fsync — for
// the batch, not one each), and every one is in the journal when the batch
// is answered; single requests still answer only once their transaction is
// journaled.
func TestJournalBatchSharesSync(t *testing.T) {
	for _, mode := range []string{"WRITE", "FSYNC"} {
		t.Run(mode, func(t *testing.T) { testJournalBatch(t, mode) })
	}
}

func testJournalBatch(t *testing.T, mode string) {
	e := startDebugNodeWith(t, 0, func(c *config.Config) { c.TxPool.Journal, c.TxPool.JournalSync = true, mode })
	j := e.n.txStore.journal
	journal := filepath.Join(e.n.cfg.DataPath, JournalFile)

	const n = 150 // below the pool's 200 pending per sender, with the single send after it
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b02")
	var batch []map[string]any
	var want []common.Hash
	for i := range n {
		tx := e.tx(t, to, nil, 21000)
		raw, _ := tx.MarshalBinary()
		batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": i, "method": "eth_sendRawTransaction", "params": []any{hexutil.Bytes(raw)}})
		want = append(want, tx.Hash())
	}
	syncs, writes := j.Syncs(), j.Writes()
	body, _ := json.Marshal(batch)
	resp, err := http.Post("http://"+e.n.HTTPAddr(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var answers []struct {
		Result common.Hash
		Error  *struct{ Message string }
	}
	err = json.NewDecoder(resp.Body).Decode(&answers)
	resp.Body.Close()
	if err != nil || len(answers) != n {
		t.Fatalf("batch answer: %v, %d answers", err, len(answers))
	}
	for i, a := range answers {
		if a.Error != nil || a.Result != want[i] {
			t.Fatalf("answer %d: %+v, want %s", i, a, want[i].Hex())
		}
	}
	if got := j.Writes() - writes; got > 3 {
		t.Errorf("a batch of %d transactions took %d journal writes, want them shared", n, got)
	}
	if got := j.Syncs() - syncs; mode == "FSYNC" && (got > 3 || got == 0) {
		t.Errorf("a batch of %d transactions took %d journal fsyncs, want one shared (or a few)", n, got)
	}
	// Everything answered is on disk: the journal read afresh holds it.
	_, kept, err := txjournal.Open(journal, txjournal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != n {
		t.Fatalf("journal holds %d transactions after the batch, want %d", len(kept), n)
	}
	// Batch elements run concurrently, so records need not be in request
	// order (replay sorts by nonce).
	inJournal := map[common.Hash]bool{}
	for _, tx := range kept {
		inJournal[tx.Hash()] = true
	}
	for _, h := range want {
		if !inJournal[h] {
			t.Fatalf("answered transaction %s is not in the journal", h.Hex())
		}
	}

	// A single request: journaled before it is answered.
	tx := e.tx(t, to, nil, 21000)
	raw, _ := tx.MarshalBinary()
	var h common.Hash
	if err := json.Unmarshal(e.call(t, "eth_sendRawTransaction", hexutil.Bytes(raw)), &h); err != nil || h != tx.Hash() {
		t.Fatalf("single send: %s, %v", h.Hex(), err)
	}
	if _, kept, _ = txjournal.Open(journal, txjournal.Options{}); len(kept) != n+1 || kept[n].Hash() != tx.Hash() {
		t.Fatalf("journal holds %d transactions after a single send, want %d ending with it", len(kept), n+1)
	}
}
