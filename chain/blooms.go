package chain

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// CanonicalBlooms calls fn with the number, hash and logs bloom of each
// canonical block from first to last (clamped to the head), in ascending
// order, until fn returns false. It is the first step of a log query: only
// blocks whose bloom may match need their receipts read.
//
// The headers are read with two sequential database iterators (canonical
// index and headers, both ordered by number) and only the bloom is taken
// out of each header's RLP, which makes a scan of thousands of blocks cost
// a few milliseconds instead of a lookup and a full decode per block. The
// canonical iterator is opened first; a header is written in the same batch
// as, or before, the canonical entry naming it, so the header iterator sees
// every header the canonical one names.
func (c *Chain) CanonicalBlooms(first, last uint64, fn func(number uint64, hash common.Hash, bloom *types.Bloom) bool) error {
	if head := c.head.Load().header.Number.Uint64(); last > head {
		last = head
	}
	if first > last {
		return nil
	}
	start := encodeNumber(first)
	// Full slice expressions: the iterator appends start to the prefix.
	canon := c.db.NewIterator(prefixCanonical[:len(prefixCanonical):len(prefixCanonical)], start)
	defer canon.Release()
	headers := c.db.NewIterator(prefixHeader[:len(prefixHeader):len(prefixHeader)], start)
	defer headers.Release()

	const headerKeyLen = 3 + 8 + common.HashLength
	more := headers.Next()
	var bloom types.Bloom
	for canon.Next() {
		key := canon.Key()
		if len(key) != len(prefixCanonical)+8 || len(canon.Value()) != common.HashLength {
			continue
		}
		n := binary.BigEndian.Uint64(key[len(prefixCanonical):])
		if n > last {
			break
		}
		hash := common.BytesToHash(canon.Value())
		found := false
		for ; more; more = headers.Next() {
			hk := headers.Key()
			if len(hk) != headerKeyLen {
				continue // "bcHead" shares the prefix
			}
			hn := binary.BigEndian.Uint64(hk[3:11])
			if hn < n || (hn == n && bytes.Compare(hk[11:], hash[:]) < 0) {
				continue
			}
			if hn == n && bytes.Equal(hk[11:], hash[:]) {
				found = headerBloom(headers.Value(), &bloom)
				more = headers.Next()
			}
			break
		}
		if !found {
			// Not where the iterator expected it (or not decodable that
			// way): take the slow path rather than skip a block.
			h := c.GetHeader(hash, n)
			if h == nil {
				return fmt.Errorf("canonical header %d (%s) missing", n, hash.Hex())
			}
			bloom = h.Bloom
		}
		if !fn(n, hash, &bloom) {
			return nil
		}
	}
	return canon.Error()
}

// headerBloom copies the logs bloom (the seventh field) out of a header's
// RLP without decoding the rest.
func headerBloom(enc []byte, bloom *types.Bloom) bool {
	fields, _, err := rlp.SplitList(enc)
	if err != nil {
		return false
	}
	for range 6 {
		if _, _, fields, err = rlp.Split(fields); err != nil {
			return false
		}
	}
	kind, val, _, err := rlp.Split(fields)
	if err != nil || kind != rlp.String || len(val) != types.BloomByteLength {
		return false
	}
	copy(bloom[:], val)
	return true
}

// BlockLogs returns the logs of a stored block (canonical or not) that
// match (every log when match is nil), with their block, transaction and
// index fields set. It is the second step of a log query, and much cheaper
// than GetReceipts for it: it walks the stored receipts' RLP without
// decoding them, builds a log only when it matches (match sees a scratch
// log it must not keep), derives no receipt fields, computes no blooms, and
// reads the block's transactions (for their hashes) only when some log
// matches. The logs returned may be shared with a cache: callers must not
// modify them.
func (c *Chain) BlockLogs(hash common.Hash, number uint64, match func(*types.Log) bool) ([]*types.Log, error) {
	if rs, ok := c.receiptsCache.Get(hash); ok {
		var out []*types.Log
		for _, r := range rs {
			for _, l := range r.Logs {
				if match == nil || match(l) {
					out = append(out, l)
				}
			}
		}
		return out, nil
	}
	data, err := c.db.Get(numHashKey(prefixReceipts, number, hash))
	if err != nil || len(data) == 0 {
		if c.HasBlock(hash, number) {
			return nil, fmt.Errorf("receipts of block %d (%s) missing", number, hash.Hex())
		}
		return nil, nil // the block is gone (never for a canonical one)
	}
	out, txIndexes, txCount, err := matchStoredLogs(data, match)
	if err != nil {
		return nil, fmt.Errorf("receipts of block %d (%s): %w", number, hash.Hex(), err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	header := c.GetHeader(hash, number)
	body := c.GetBody(hash, number)
	if header == nil || body == nil || len(body.Transactions) != txCount {
		return nil, fmt.Errorf("block %d (%s): body missing or not matching its receipts", number, hash.Hex())
	}
	var (
		txHash common.Hash
		last   = -1
	)
	for i, l := range out {
		if tx := txIndexes[i]; tx != last {
			txHash, last = body.Transactions[tx].Hash(), tx
		}
		l.BlockNumber, l.BlockHash, l.BlockTimestamp = number, hash, header.Time
		l.TxHash, l.TxIndex = txHash, uint(txIndexes[i])
	}
	return out, nil
}

// matchStoredLogs walks receipts in their storage encoding (go-ethereum's
// ReceiptForStorage list: [status, cumulativeGas, [[address, [topics],
// data], …]] per transaction) and returns the matching logs with their
// log index set, the transaction index of each, and the number of
// receipts.
func matchStoredLogs(data []byte, match func(*types.Log) bool) (logs []*types.Log, txIndexes []int, txCount int, err error) {
	receipts, _, err := rlp.SplitList(data)
	if err != nil {
		return nil, nil, 0, err
	}
	var (
		scratch  types.Log
		topics   = make([]common.Hash, 0, 4)
		logIndex uint
	)
	for ; len(receipts) > 0; txCount++ {
		var rec []byte
		if rec, receipts, err = rlp.SplitList(receipts); err != nil {
			return nil, nil, 0, err
		}
		for range 2 { // status or post state, cumulative gas used
			if _, _, rec, err = rlp.Split(rec); err != nil {
				return nil, nil, 0, err
			}
		}
		list, _, err := rlp.SplitList(rec)
		if err != nil {
			return nil, nil, 0, err
		}
		for len(list) > 0 {
			var enc, addr, topicList, payload []byte
			if enc, list, err = rlp.SplitList(list); err != nil {
				return nil, nil, 0, err
			}
			if addr, enc, err = rlp.SplitString(enc); err != nil || len(addr) != common.AddressLength {
				return nil, nil, 0, fmt.Errorf("bad log address: %v", err)
			}
			if topicList, enc, err = rlp.SplitList(enc); err != nil {
				return nil, nil, 0, err
			}
			if payload, _, err = rlp.SplitString(enc); err != nil {
				return nil, nil, 0, err
			}
			topics = topics[:0]
			for len(topicList) > 0 {
				var t []byte
				if t, topicList, err = rlp.SplitString(topicList); err != nil || len(t) != common.HashLength {
					return nil, nil, 0, fmt.Errorf("bad log topic: %v", err)
				}
				topics = append(topics, common.Hash(t))
			}
			scratch = types.Log{Address: common.Address(addr), Topics: topics, Data: payload}
			if match == nil || match(&scratch) {
				logs = append(logs, &types.Log{
					Address: scratch.Address,
					Topics:  append([]common.Hash(nil), topics...),
					Data:    append([]byte{}, payload...),
					Index:   logIndex,
				})
				txIndexes = append(txIndexes, txCount)
			}
			logIndex++
		}
	}
	return logs, txIndexes, txCount, nil
}
