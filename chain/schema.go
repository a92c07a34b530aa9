package chain

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// Key layout of the chain data (state trie nodes and code use go-ethereum's
// own rawdb prefixes in the same database; ours start with "bc" so the two
// cannot collide).
//
//	bcH | num | hash  -> header RLP
//	bcB | num | hash  -> body RLP
//	bcR | num | hash  -> receipts (storage form) RLP
//	bcT | num | hash  -> total difficulty (big-endian bytes)
//	bcN | hash        -> block number
//	bcC | num         -> canonical hash
//	bcL | txhash      -> block number of the canonical block holding the tx
//	bcHead            -> head block hash
//	bcSchema          -> schema version (uvarint), see schemaVersion
var (
	prefixHeader    = []byte("bcH")
	prefixBody      = []byte("bcB")
	prefixReceipts  = []byte("bcR")
	prefixTD        = []byte("bcT")
	prefixNumber    = []byte("bcN")
	prefixCanonical = []byte("bcC")
	prefixTxLookup  = []byte("bcL")
	keyHead         = []byte("bcHead")
	keySchema       = []byte("bcSchema")
)

// schemaVersion is the version of the key layout above that this code
// writes. A database without the key was written by a release from before
// it existed, with this same layout (version 1). A database with a higher
// version was written by a later release, whose layout this code may
// misread: Open refuses it rather than corrupt it.
const schemaVersion = 1

// checkSchema refuses a database of a later schema and records this
// code's version in one that has none.
func checkSchema(db ethdb.KeyValueStore) error {
	has, err := db.Has(keySchema)
	if err != nil {
		return fmt.Errorf("read the database schema version: %w", err)
	}
	if !has {
		return db.Put(keySchema, binary.AppendUvarint(nil, schemaVersion))
	}
	data, err := db.Get(keySchema)
	if err != nil {
		return fmt.Errorf("read the database schema version: %w", err)
	}
	v, n := binary.Uvarint(data)
	if n <= 0 {
		return fmt.Errorf("database schema version %x is unreadable", data)
	}
	if v > schemaVersion {
		return fmt.Errorf("database schema version %d is newer than this Basalt's (%d): a later release wrote it; run that release or start on a new --data-path", v, schemaVersion)
	}
	return nil
}

func encodeNumber(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

func numHashKey(prefix []byte, number uint64, hash common.Hash) []byte {
	k := make([]byte, 0, len(prefix)+8+32)
	k = append(k, prefix...)
	k = append(k, encodeNumber(number)...)
	return append(k, hash[:]...)
}

func canonicalKey(number uint64) []byte {
	return append(append([]byte{}, prefixCanonical...), encodeNumber(number)...)
}

func numberKey(hash common.Hash) []byte {
	return append(append([]byte{}, prefixNumber...), hash[:]...)
}

func txLookupKey(hash common.Hash) []byte {
	return append(append([]byte{}, prefixTxLookup...), hash[:]...)
}

func readHeader(db ethdb.KeyValueReader, hash common.Hash, number uint64) *types.Header {
	data, err := db.Get(numHashKey(prefixHeader, number, hash))
	if err != nil || len(data) == 0 {
		return nil
	}
	h := new(types.Header)
	if err := rlp.DecodeBytes(data, h); err != nil {
		return nil
	}
	return h
}

func writeHeader(db ethdb.KeyValueWriter, hash common.Hash, h *types.Header) error {
	data, err := rlp.EncodeToBytes(h)
	if err != nil {
		return err
	}
	n := h.Number.Uint64()
	if err := db.Put(numHashKey(prefixHeader, n, hash), data); err != nil {
		return err
	}
	return db.Put(numberKey(hash), encodeNumber(n))
}

func readNumber(db ethdb.KeyValueReader, hash common.Hash) (uint64, bool) {
	data, err := db.Get(numberKey(hash))
	if err != nil || len(data) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(data), true
}

func readBody(db ethdb.KeyValueReader, hash common.Hash, number uint64) *types.Body {
	data, err := db.Get(numHashKey(prefixBody, number, hash))
	if err != nil || len(data) == 0 {
		return nil
	}
	b := new(types.Body)
	if err := rlp.DecodeBytes(data, b); err != nil {
		return nil
	}
	return b
}

func writeBody(db ethdb.KeyValueWriter, hash common.Hash, number uint64, body *types.Body) error {
	data, err := rlp.EncodeToBytes(body)
	if err != nil {
		return err
	}
	return db.Put(numHashKey(prefixBody, number, hash), data)
}

func readRawReceipts(db ethdb.KeyValueReader, hash common.Hash, number uint64) types.Receipts {
	data, err := db.Get(numHashKey(prefixReceipts, number, hash))
	if err != nil {
		return nil
	}
	var stored []*types.ReceiptForStorage
	if err := rlp.DecodeBytes(data, &stored); err != nil {
		return nil
	}
	rs := make(types.Receipts, len(stored))
	for i, r := range stored {
		rs[i] = (*types.Receipt)(r)
	}
	return rs
}

func writeReceipts(db ethdb.KeyValueWriter, hash common.Hash, number uint64, receipts types.Receipts) error {
	stored := make([]*types.ReceiptForStorage, len(receipts))
	for i, r := range receipts {
		stored[i] = (*types.ReceiptForStorage)(r)
	}
	data, err := rlp.EncodeToBytes(stored)
	if err != nil {
		return err
	}
	return db.Put(numHashKey(prefixReceipts, number, hash), data)
}

func readTD(db ethdb.KeyValueReader, hash common.Hash, number uint64) *big.Int {
	data, err := db.Get(numHashKey(prefixTD, number, hash))
	if err != nil {
		return nil
	}
	return new(big.Int).SetBytes(data) // empty for zero (proof-of-stake genesis)
}

func writeTD(db ethdb.KeyValueWriter, hash common.Hash, number uint64, td *big.Int) error {
	return db.Put(numHashKey(prefixTD, number, hash), td.Bytes())
}

func readCanonicalHash(db ethdb.KeyValueReader, number uint64) common.Hash {
	data, err := db.Get(canonicalKey(number))
	if err != nil || len(data) != 32 {
		return common.Hash{}
	}
	return common.BytesToHash(data)
}

func readHeadHash(db ethdb.KeyValueReader) common.Hash {
	data, err := db.Get(keyHead)
	if err != nil || len(data) != 32 {
		return common.Hash{}
	}
	return common.BytesToHash(data)
}

func readTxLookup(db ethdb.KeyValueReader, txHash common.Hash) (uint64, bool) {
	data, err := db.Get(txLookupKey(txHash))
	if err != nil || len(data) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(data), true
}
