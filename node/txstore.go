package node

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/txjournal"
	"github.com/basaltchain/basalt/txpool"
)

// JournalFile is the transaction journal's name inside the data path.
const JournalFile = "txpool.journal"

// JournalSyncEvery bounds how long a journaled transaction stays written
// but not fsynced with --tx-pool-journal-sync=WRITE: a power cut loses at
// most the submissions of this last interval, a process crash none.
const JournalSyncEvery = 100 * time.Millisecond

// minCompact is the fewest journal records worth a compaction: below it
// the file is a few hundred kilobytes at most.
const minCompact = 1024

// txStore keeps the pool's transactions across restarts: the journal of
// local transactions (--tx-pool-journal-enabled), written (and with
// --tx-pool-journal-sync=FSYNC fsynced) before a submission is answered,
// and Besu's save file (--tx-pool-enable-save-restore), written on a clean
// shutdown.
type txStore struct {
	pool     *txpool.Pool
	journal  *txjournal.Journal // nil when off
	saveFile string             // "" when off
	log      *slog.Logger
}

// openTxStore loads what the last run left — the save file, then the
// journal — into pool and compacts the journal to what is still pooled.
func openTxStore(cfg *config.Config, pool *txpool.Pool, log *slog.Logger) (*txStore, error) {
	s := &txStore{pool: pool, log: log}
	if cfg.TxPool.SaveRestore {
		s.saveFile = cfg.TxPool.SaveFile
		if s.saveFile == "" {
			s.saveFile = config.DefaultTxPoolSaveFile
		}
		if !filepath.IsAbs(s.saveFile) {
			s.saveFile = filepath.Join(cfg.DataPath, s.saveFile)
		}
		saved, skipped, err := txjournal.Restore(s.saveFile)
		if err != nil {
			return nil, err
		}
		var locals, remotes []*types.Transaction
		for _, t := range saved {
			if t.Local {
				locals = append(locals, t.Tx)
			} else {
				remotes = append(remotes, t.Tx)
			}
		}
		added := addAll(pool, locals)
		for _, err := range pool.AddRemotes(remotes) {
			if err == nil {
				added++
			}
		}
		if len(saved) > 0 || skipped > 0 {
			log.Info("Restored transaction pool", "file", s.saveFile, "saved", len(saved), "added", added, "unreadable", skipped)
		}
	}
	if !cfg.TxPool.Journal {
		return s, nil
	}
	opts := txjournal.Options{SyncEvery: JournalSyncEvery}
	if cfg.TxPool.JournalSync == "FSYNC" {
		opts.SyncEvery = 0
	}
	j, txs, err := txjournal.Open(filepath.Join(cfg.DataPath, JournalFile), opts)
	if err != nil {
		return nil, err
	}
	s.journal = j
	if len(txs) > 0 {
		added := addAll(pool, txs)
		log.Info("Replayed transaction journal", "records", len(txs), "pooled", added)
	}
	if err := s.compact(); err != nil {
		j.Close()
		return nil, err
	}
	return s, nil
}

// addAll adds txs as local transactions, in order, and returns how many the
// pool took: the others are mined already, known, or no longer valid.
func addAll(pool *txpool.Pool, txs []*types.Transaction) int {
	n := 0
	for _, tx := range txs {
		if pool.AddLocal(tx) == nil {
			n++
		}
	}
	return n
}

// localTxs are the pool's local transactions, those the journal keeps.
func (s *txStore) localTxs() []*types.Transaction {
	var out []*types.Transaction
	for _, info := range s.pool.Transactions() {
		if info.Local {
			out = append(out, info.Tx)
		}
	}
	return out
}

func (s *txStore) compact() error {
	return s.journal.Rewrite(s.localTxs)
}

// afterHead compacts the journal once most of its records are of
// transactions no longer pooled (mined, replaced, dropped).
func (s *txStore) afterHead() {
	if s.journal == nil {
		return
	}
	records := s.journal.Records()
	if records < minCompact || records < 2*s.pool.Stats().LocalCount {
		return
	}
	if err := s.compact(); err != nil {
		s.log.Error("Transaction journal compaction failed", "err", err)
	}
}

// close saves the pool (with --tx-pool-enable-save-restore) and closes the
// journal. The pool must not change any more.
func (s *txStore) close() {
	if s.saveFile != "" {
		infos := s.pool.Transactions()
		saved := make([]txjournal.Saved, len(infos))
		for i, info := range infos {
			saved[i] = txjournal.Saved{Tx: info.Tx, Local: info.Local}
		}
		if err := txjournal.Save(s.saveFile, saved); err != nil {
			s.log.Error("Saving the transaction pool failed", "file", s.saveFile, "err", err)
		} else {
			s.log.Info("Saved transaction pool", "file", s.saveFile, "transactions", len(saved))
		}
	}
	if s.journal != nil {
		s.journal.Close()
	}
}

// abort closes the journal without saving the pool (start-up failed).
func (s *txStore) abort() {
	if s.journal != nil {
		s.journal.Close()
	}
}

// submitter is the node's one way to submit a local transaction, for every
// source: eth_sendRawTransaction, GraphQL's sendRawTransaction, the privacy
// service's markers, .... It pools the transaction and, on a node with a
// transaction journal, journals it (pool first, so that a compaction that
// runs between the two finds it pooled); a transaction the journal cannot
// take leaves the pool again and the caller gets the error, so nothing
// unjournaled is ever acknowledged. The rest of the pool's methods are the
// pool's own.
type submitter struct {
	*txpool.Pool
	journal *txjournal.Journal // nil: none
}

// The submitter is the pool of the front ends and of the privacy service.
var (
	_ backend.TxPool = (*submitter)(nil)
	_ privacy.Pool   = (*submitter)(nil)
)

// newSubmitter returns the submitter of pool, journaling in store's
// journal when it has one.
func newSubmitter(pool *txpool.Pool, store *txStore) *submitter {
	s := &submitter{Pool: pool}
	if store != nil {
		s.journal = store.journal
	}
	return s
}

// Submit pools tx and answers once it is as durable as the node makes it
// (backend.TxPool). For a JSON-RPC request in a batch the wait for the journal
// is left until every element is handled (rpctypes.DeferUntilReply), so the
// batch's transactions share one fsync instead of taking one each; the
// batch's answer still goes out only once they are on disk, and an element
// whose record fails gets the error and leaves the pool.
func (s *submitter) Submit(ctx context.Context, tx *types.Transaction) error {
	durable, err := s.AddLocalDeferred(tx)
	if err != nil {
		return err
	}
	if rpctypes.DeferUntilReply(ctx, durable) {
		return nil
	}
	return durable()
}

// AddLocal is Submit outside any request; it hides the pool's own AddLocal,
// which would skip the journal.
func (s *submitter) AddLocal(tx *types.Transaction) error {
	return s.Submit(context.Background(), tx)
}

// AddLocalDeferred pools tx and queues its journal record, and returns the
// wait for the record (written, and with FSYNC fsynced); if the record
// fails, the wait takes tx out of the pool again and returns the error.
// Without a journal there is nothing to wait for. The privacy service pools
// its markers with it (privacy.Pool): it queues records in marker order
// under its locks and waits outside them.
func (s *submitter) AddLocalDeferred(tx *types.Transaction) (func() error, error) {
	if err := s.Pool.AddLocal(tx); err != nil {
		return nil, err
	}
	if s.journal == nil {
		return func() error { return nil }, nil
	}
	seq, err := s.journal.Enqueue(tx)
	if err != nil {
		s.Pool.Remove(tx.Hash())
		return nil, fmt.Errorf("journal transaction: %w", err)
	}
	return func() error {
		if err := s.journal.Wait(seq); err != nil {
			s.Pool.Remove(tx.Hash())
			return fmt.Errorf("journal transaction: %w", err)
		}
		return nil
	}, nil
}
