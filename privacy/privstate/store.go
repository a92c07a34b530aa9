// Package privstate stores a node's private state: one world-state trie per
// privacy group, and per block the map group → private state root and the
// private receipts of the block's privacy marker transactions
// (reference/privacy.md §9.2).
//
// Everything lives in the chain's database under its own prefix and is
// keyed by block hash, never by height: a block's record is written (by
// the chain's BlockHook) before the block itself, so
//
//   - a crash after the record and before the block leaves a record no
//     block points to, which is never read and is written again, equal,
//     when the block is inserted again;
//   - a block on disk always has its record on disk (the database keeps
//     write order), so private state is never behind the public head;
//   - a reorg needs nothing: reads at a block use that block's record, so
//     private state follows the canonical chain exactly, at every height.
//
// A block with no record (before privacy was enabled, or genesis) has no
// private state: every group is at the empty root.
package privstate

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"
)

// prefix keeps private data apart from the chain's in the shared database.
const prefix = "basalt-private-"

// Keys of a block's record: its roots apart from its receipts, so that the
// nonce and state lookups of every request read the roots alone.
var (
	rootsKey    = []byte("roots-")
	receiptsKey = []byte("receipts-")
)

func key(prefix []byte, block common.Hash) []byte {
	return append(append(make([]byte, 0, len(prefix)+common.HashLength), prefix...), block[:]...)
}

// Store is a node's private state store. It is safe for concurrent use.
type Store struct {
	db     ethdb.Database // the prefixed table
	triedb *triedb.Database
	states state.Database
	// roots caches blocks' roots (never changed once written).
	roots *lru.Cache[common.Hash, []GroupRoot]
}

// Open returns the store kept in db (the chain's database).
func Open(db ethdb.Database) *Store { return OpenPrefix(db, prefix) }

// GoQuorumPrefix keeps a GoQuorum party's private state (package
// privacy/goquorum) apart from Besu-style private state.
const GoQuorumPrefix = "basalt-quorum-private-"

// OpenPrefix returns the store kept in db under its own key prefix p.
func OpenPrefix(db ethdb.Database, p string) *Store {
	t := rawdb.NewTable(db, p)
	tdb := triedb.NewDatabase(t, &triedb.Config{HashDB: &hashdb.Config{CleanCacheSize: 32 << 20}})
	return &Store{db: t, triedb: tdb, states: state.NewDatabase(tdb, state.NewCodeDB(t)),
		roots: lru.NewCache[common.Hash, []GroupRoot](64)}
}

// GroupRoot is one group's private state root after a block.
type GroupRoot struct {
	Group common.Hash // the 32-byte privacy group ID
	Root  common.Hash
}

// Log is a private log.
type Log struct {
	Address common.Address
	Topics  []common.Hash
	Data    []byte
}

// Receipt is the outcome of one privacy marker transaction's private
// transaction on this node.
type Receipt struct {
	PMT       common.Hash // the marker transaction
	PMTIndex  uint64      // its index in the block
	TxHash    common.Hash // keccak256 of the private transaction's RLP
	Group     common.Hash // privacy group ID (from the manager)
	From      common.Address
	To        []byte // 20 bytes, or empty for a creation
	Contract  []byte // 20 bytes for a successful creation, else empty
	Status    uint64 // 1 success, 0 failure
	Output    []byte
	Revert    []byte // revert data, when Status is 0 and the EVM reverted
	Logs      []Log
	RawTx     []byte // the private transaction's RLP
	StateRoot common.Hash
	// Failure says why a failed one (Status 0) failed, for its receipt:
	// "Execution reverted (reason)", Besu's halt description ("Invalid
	// opcode: 0x5f", "Out of gas"), or a nonce mismatch. Optional, so
	// records written before it decode with none.
	Failure string `rlp:"optional"`
}

// Record is what a block left: every group's root (sorted by group) and
// the receipts of its marker transactions that concern this node, in block
// order.
type Record struct {
	Roots    []GroupRoot
	Receipts []Receipt
}

// Root returns group's root in r, the empty root if r has none.
func (r *Record) Root(group common.Hash) common.Hash {
	for _, g := range r.Roots {
		if g.Group == group {
			return g.Root
		}
	}
	return types.EmptyRootHash
}

// Receipt returns the receipt of the marker transaction pmt, nil if the
// block has none for it.
func (r *Record) Receipt(pmt common.Hash) *Receipt {
	for i := range r.Receipts {
		if r.Receipts[i].PMT == pmt {
			return &r.Receipts[i]
		}
	}
	return nil
}

// Roots returns the group roots after the block with the given hash, in a
// Record without receipts (empty when the block has no record).
func (s *Store) Roots(block common.Hash) (*Record, error) {
	if roots, ok := s.roots.Get(block); ok {
		return &Record{Roots: roots}, nil
	}
	r := new(Record)
	b, err := s.db.Get(key(rootsKey, block))
	if err != nil || len(b) == 0 {
		return r, nil
	}
	if err := rlp.DecodeBytes(b, &r.Roots); err != nil {
		return nil, fmt.Errorf("private state roots of block %s: %w", block.Hex(), err)
	}
	s.roots.Add(block, r.Roots)
	return r, nil
}

// Record returns the record of the block with the given hash, an empty one
// when there is none.
func (s *Store) Record(block common.Hash) (*Record, error) {
	r, err := s.Roots(block)
	if err != nil {
		return nil, err
	}
	b, err := s.db.Get(key(receiptsKey, block))
	if err != nil || len(b) == 0 {
		return r, nil
	}
	if err := rlp.DecodeBytes(b, &r.Receipts); err != nil {
		return nil, fmt.Errorf("private receipts of block %s: %w", block.Hex(), err)
	}
	return r, nil
}

// HasRecord reports whether the block with the given hash has a record.
func (s *Store) HasRecord(block common.Hash) bool {
	ok, _ := s.db.Has(key(rootsKey, block))
	return ok
}

// WriteRecord stores a block's record, receipts first, in one batch. Its
// states must be committed first (CommitState).
func (s *Store) WriteRecord(block common.Hash, r *Record) error {
	roots, err := rlp.EncodeToBytes(r.Roots)
	if err != nil {
		return err
	}
	receipts, err := rlp.EncodeToBytes(r.Receipts)
	if err != nil {
		return err
	}
	batch := s.db.NewBatch()
	if err := batch.Put(key(receiptsKey, block), receipts); err != nil {
		return err
	}
	if err := batch.Put(key(rootsKey, block), roots); err != nil {
		return err
	}
	return batch.Write()
}

// StateAt opens the private state with the given root.
func (s *Store) StateAt(root common.Hash) (*state.StateDB, error) {
	return state.New(root, s.states)
}

// CommitState commits st (the state of a transaction in block number) and
// writes its trie to disk; it returns the new root.
func (s *Store) CommitState(st *state.StateDB, rules params.Rules, number uint64) (common.Hash, error) {
	root, err := st.Commit(rules, number)
	if err != nil {
		return common.Hash{}, err
	}
	if err := s.triedb.Commit(root, false); err != nil {
		return common.Hash{}, err
	}
	return root, nil
}
