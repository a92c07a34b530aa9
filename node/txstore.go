package node

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/rpc/rpctypes"
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

// journaledPool is the pool as the front ends see it: a local submission is
// answered only once the journal holds it.
type journaledPool struct {
	*txpool.Pool
	journal *txjournal.Journal
}

// AddLocal adds tx to the pool, then to the journal (pool first, so that
// a compaction that runs between the two finds it pooled); a transaction
// the journal cannot take leaves the pool again and the caller gets the
// error, so nothing unjournaled is ever acknowledged.
func (p journaledPool) AddLocal(tx *types.Transaction) error {
	return p.AddLocalContext(context.Background(), tx)
}

// AddLocalContext is AddLocal for a JSON-RPC request: in a batch the wait
// for the journal is left until every element is handled
// (rpctypes.DeferUntilReply), so the batch's transactions share one fsync
// instead of taking one each; the batch's answer still goes out only once
// they are on disk, and an element whose record fails gets the error and
// leaves the pool.
func (p journaledPool) AddLocalContext(ctx context.Context, tx *types.Transaction) error {
	durable, err := p.AddLocalDeferred(tx)
	if err != nil {
		return err
	}
	if rpctypes.DeferUntilReply(ctx, durable) {
		return nil
	}
	return durable()
}

// AddLocalDeferred pools tx and queues its journal record, and returns the
// wait for the record (written, and with FSYNC fsynced); if the record
// fails, the wait takes tx out of the pool again and returns the error.
// The privacy service pools its markers with it: it queues records in
// marker order under its locks and waits outside them.
func (p journaledPool) AddLocalDeferred(tx *types.Transaction) (func() error, error) {
	if err := p.Pool.AddLocal(tx); err != nil {
		return nil, err
	}
	seq, err := p.journal.Enqueue(tx)
	if err != nil {
		p.Pool.Remove(tx.Hash())
		return nil, fmt.Errorf("journal transaction: %w", err)
	}
	return func() error {
		if err := p.journal.Wait(seq); err != nil {
			p.Pool.Remove(tx.Hash())
			return fmt.Errorf("journal transaction: %w", err)
		}
		return nil
	}, nil
}

// unjournaledPool is the pool without a journal, for the privacy service.
type unjournaledPool struct{ *txpool.Pool }

// AddLocalDeferred pools tx; there is nothing to wait for.
func (p unjournaledPool) AddLocalDeferred(tx *types.Transaction) (func() error, error) {
	if err := p.Pool.AddLocal(tx); err != nil {
		return nil, err
	}
	return func() error { return nil }, nil
}

// markerPool is the pool the privacy service submits its markers to: the
// journaled one when the journal is on, as for eth_sendRawTransaction, so
// that an acknowledged private transaction survives a crash.
func (n *Node) markerPool() privacy.Pool {
	if n.txStore == nil || n.txStore.journal == nil {
		return unjournaledPool{n.pool}
	}
	return journaledPool{n.pool, n.txStore.journal}
}

// frontPool is the pool the front ends submit to.
func (n *Node) frontPool() api.TxPool {
	if n.txStore == nil || n.txStore.journal == nil {
		return n.pool
	}
	return journaledPool{n.pool, n.txStore.journal}
}
