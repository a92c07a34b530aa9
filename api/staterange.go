package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"

	"github.com/basaltchain/basalt/rpctypes"
)

// maxRangeResults bounds the entries of one debug_storageRangeAt or
// debug_accountRange answer, whatever limit the request gives.
const maxRangeResults = 1 << 16

// StorageEntry is one slot of a Storage range object: the slot (null when
// the node does not know the preimage of its hashed key) and its value.
type StorageEntry struct {
	Key   *common.Hash `json:"key"`
	Value common.Hash  `json:"value"`
}

// StorageRange is the Storage range object (debug_storageRangeAt): slots
// keyed by their hashed key, and the hashed key to start the next page from
// (null after the last slot).
type StorageRange struct {
	Storage map[common.Hash]StorageEntry `json:"storage"`
	NextKey *common.Hash                 `json:"nextKey"`
}

// StorageRangeAt is debug_storageRangeAt: up to limit slots of addr, in
// hashed-key order from startKey, in the state after the transaction at
// txIndex of the block (as Besu; past the block's last transaction, the
// block's post-state).
func (d *Debug) StorageRangeAt(ctx context.Context, blockHash rpctypes.Hash, txIndex UintIndex, addr rpctypes.Address, startKey RangeKey, limit UintIndex) (*StorageRange, error) {
	h := common.Hash(blockHash)
	block := d.b.Chain.GetBlockByHash(h)
	if block == nil {
		return nil, &backend.BlockNotFoundError{Hash: &h}
	}
	a, start := common.Address(addr), common.Hash(startKey)
	n := min(int(limit), maxRangeResults)
	slots, root, err := d.slotsAt(ctx, block, h, int(txIndex), a)
	if err != nil {
		return nil, err
	}
	out := &StorageRange{Storage: make(map[common.Hash]StorageEntry, n)}
	// The base state's slots merged, in hashed-key order, with the slots
	// the block's transactions up to txIndex wrote.
	i, _ := slices.BinarySearchFunc(slots.sorted, start, func(s overlaySlot, k common.Hash) int { return s.hashed.Cmp(k) })
	emit := func(hashed common.Hash, key *common.Hash, value common.Hash) bool {
		if value == (common.Hash{}) {
			return true // cleared
		}
		if len(out.Storage) == n {
			next := hashed
			out.NextKey = &next
			return false
		}
		out.Storage[hashed] = StorageEntry{Key: key, Value: value}
		return true
	}
	more := true
	if !slots.wiped {
		err = d.b.Chain.StorageRange(root, a, start, func(hashed common.Hash, pre []byte, value common.Hash) bool {
			for ; i < len(slots.sorted) && slots.sorted[i].hashed.Cmp(hashed) < 0; i++ {
				s := slots.sorted[i]
				if more = emit(s.hashed, &s.key, s.value); !more {
					return false
				}
			}
			if i < len(slots.sorted) && slots.sorted[i].hashed == hashed {
				s := slots.sorted[i]
				i++
				more = emit(hashed, &s.key, s.value)
				return more
			}
			var key *common.Hash
			if len(pre) == common.HashLength {
				k := common.BytesToHash(pre)
				key = &k
			}
			more = emit(hashed, key, value)
			return more
		})
		if err != nil {
			if errors.Is(err, chain.ErrStateUnavailable) {
				return nil, backend.ErrWorldStateUnavailable
			}
			return nil, err
		}
	}
	for ; more && i < len(slots.sorted); i++ {
		s := slots.sorted[i]
		more = emit(s.hashed, &s.key, s.value)
	}
	return out, nil
}

// overlaySlot is a slot a replayed transaction wrote, with its value after
// the replay.
type overlaySlot struct {
	hashed, key, value common.Hash
}

// slotOverlay is what the replayed transactions did to one account's
// storage.
type slotOverlay struct {
	sorted []overlaySlot // by hashed key
	wiped  bool          // the account was destroyed or created anew: no base slots
}

// slotsAt returns the state root whose storage of addr the answer starts
// from and the slots the block's transactions up to txIndex changed on
// top of it: past the last transaction, the block's own post-state and
// nothing; otherwise the parent's post-state and the replay's writes.
func (d *Debug) slotsAt(ctx context.Context, block *types.Block, hash common.Hash, txIndex int, addr common.Address) (*slotOverlay, common.Hash, error) {
	txs := block.Transactions()
	if txIndex >= len(txs) {
		if err := d.b.EnsureState(block.Header(), hash); err != nil {
			return nil, common.Hash{}, err
		}
		return &slotOverlay{}, block.Root(), nil
	}
	written := make(map[common.Hash]bool)
	ov := &slotOverlay{}
	hooks := &tracing.Hooks{
		OnStorageChange: func(a common.Address, slot, _, _ common.Hash) {
			if a == addr {
				written[slot] = true
			}
		},
		OnCodeChangeV2: func(a common.Address, _ common.Hash, prev []byte, _ common.Hash, code []byte, _ tracing.CodeChangeReason) {
			// Created anew or destroyed: its storage starts empty.
			if a == addr && (len(prev) == 0) != (len(code) == 0) {
				ov.wiped = true
				clear(written)
			}
		},
	}
	byIndex := make(map[int]*tracing.Hooks, txIndex+1)
	for i := 0; i <= txIndex; i++ {
		byIndex[i] = hooks
	}
	st, err := d.parentState(block)
	if err != nil {
		return nil, common.Hash{}, err
	}
	if err := d.replayOn(ctx, st, block, hash, txIndex+1, byIndex); err != nil {
		return nil, common.Hash{}, err
	}
	for slot := range written {
		// The value after the replay: a write a reverted frame undid reads
		// as the slot's value from before.
		ov.sorted = append(ov.sorted, overlaySlot{hashed: crypto.Keccak256Hash(slot[:]), key: slot, value: st.GetState(addr, slot)})
	}
	slices.SortFunc(ov.sorted, func(x, y overlaySlot) int { return bytes.Compare(x.hashed[:], y.hashed[:]) })
	parent := d.b.Chain.GetHeader(block.ParentHash(), block.NumberU64()-1)
	return ov, parent.Root, nil
}

// AccountRangeResult is debug_accountRange's answer: accounts keyed by
// hashed address, with the address (null when the node does not know the
// preimage), and the hashed address of the next page (null after the last).
type AccountRangeResult struct {
	AddressMap map[common.Hash]*common.Address `json:"addressMap"`
	NextKey    *common.Hash                    `json:"nextKey"`
}

// AccountRange is debug_accountRange: up to limit accounts of the block's
// post-state in hashed-address order from startKey. Like Besu it reads the
// block's post-state whatever txIndex says.
func (d *Debug) AccountRange(p BlockParam, _ UintIndex, startKey RangeKey, limit UintIndex) (*AccountRangeResult, error) {
	header, hash, err := headerFor(d.b, p)
	if err != nil {
		return nil, err
	}
	if header == nil {
		return nil, &backend.BlockNotFoundError{Hash: p.Hash, Number: p.Number}
	}
	if err := d.b.EnsureState(header, hash); err != nil {
		return nil, err
	}
	n := min(int(limit), maxRangeResults)
	out := &AccountRangeResult{AddressMap: make(map[common.Hash]*common.Address, n)}
	err = d.b.Chain.AccountRange(header.Root, common.Hash(startKey), func(hashed common.Hash, pre []byte, _ *types.StateAccount) bool {
		if len(out.AddressMap) == n {
			out.NextKey = &hashed
			return false
		}
		var addr *common.Address
		if len(pre) == common.AddressLength {
			a := common.BytesToAddress(pre)
			addr = &a
		}
		out.AddressMap[hashed] = addr
		return true
	})
	if err != nil {
		if errors.Is(err, chain.ErrStateUnavailable) {
			return nil, backend.ErrWorldStateUnavailable
		}
		return nil, err
	}
	return out, nil
}

// RangeKey is the hashed key a range starts from, read like Besu's
// Bytes32.fromHexStringLenient: 0x optional, up to 64 hex digits, padded
// on the left ("0x0" is the first key).
type RangeKey common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (k *RangeKey) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return errBadParam
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) > 64 {
		return errBadParam
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return errBadParam
	}
	*k = RangeKey(common.BytesToHash(b))
	return nil
}
