package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/triedb"
)

const (
	// bulkFlushInterval is how many blocks a bulk import keeps in memory
	// before writing the head's state to disk.
	bulkFlushInterval = 128
	// bulkFlushBytes flushes earlier when the unwritten trie nodes grow past it.
	bulkFlushBytes = 256 << 20
)

// stateWriter decides when committed state reaches the disk. Ordinary
// inserts (mined blocks, blocks from peers) write every block's state, so the
// chain is an archive and a reported head always has its state on disk. Bulk
// imports keep the states of up to bulkFlushInterval blocks in memory and
// write only the newest: trie nodes that later blocks overwrite are never
// written, and the intermediate states are not kept. A crash in between
// leaves a head whose state is missing; Open re-executes the blocks from the
// newest ancestor that has its state (see repairHead).
type stateWriter struct {
	triedb    *triedb.Database
	pending   []common.Hash // referenced in-memory roots, oldest first
	lastFlush uint64        // block number of the last root written
}

// commit takes the root of a block's freshly committed state.
func (w *stateWriter) commit(root common.Hash, number uint64, bulk bool) error {
	if bulk {
		_, dirty, _ := w.triedb.Size()
		if number-w.lastFlush < bulkFlushInterval && dirty < bulkFlushBytes {
			w.triedb.Reference(root, common.Hash{})
			w.pending = append(w.pending, root)
			return nil
		}
	}
	return w.write(root, number)
}

// write puts root's trie on disk and releases the older in-memory states.
func (w *stateWriter) write(root common.Hash, number uint64) error {
	if err := w.triedb.Commit(root, false); err != nil {
		return err
	}
	for _, r := range w.pending {
		w.triedb.Dereference(r)
	}
	w.pending = w.pending[:0]
	w.lastFlush = number
	return nil
}

// flush writes the newest in-memory state, if any, to disk.
func (w *stateWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	root := w.pending[len(w.pending)-1]
	return w.write(root, w.lastFlush+uint64(len(w.pending)))
}
