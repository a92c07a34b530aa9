package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// Tries key accounts and slots by their Keccak hash, so ranges over a state
// run in hash order, from a hash. A key's preimage (the address or slot)
// is known when the trie database recorded it: the chain records the
// preimage of every key its states commit (see Open), so only states
// written by an older Basalt, without preimages, give nil.

// StorageRange calls fn with each non-empty slot of addr in the state with
// the given root, in hashed-key order from start (inclusive), with the
// slot's preimage when known (else nil), until fn returns false. A missing
// account or one without storage has no slots.
func (c *Chain) StorageRange(root common.Hash, addr common.Address, start common.Hash,
	fn func(hashedKey common.Hash, key []byte, value common.Hash) bool) error {
	tr, err := c.stateDB.OpenTrie(root)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	acct, err := tr.GetAccount(addr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	if acct == nil || acct.Root == types.EmptyRootHash {
		return nil
	}
	st, err := c.stateDB.OpenStorageTrie(root, addr, acct.Root, tr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	nodes, err := st.NodeIterator(start.Bytes())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	it := trie.NewIterator(nodes)
	for it.Next() {
		_, content, _, err := rlp.Split(it.Value)
		if err != nil {
			return fmt.Errorf("storage slot %x of %v: %w", it.Key, addr, err)
		}
		if !fn(common.BytesToHash(it.Key), st.GetKey(it.Key), common.BytesToHash(content)) {
			return nil
		}
	}
	if it.Err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, it.Err)
	}
	return nil
}

// AccountRange calls fn with each account of the state with the given root,
// in hashed-address order from start (inclusive), with the address when
// its preimage is known (else nil), until fn returns false.
func (c *Chain) AccountRange(root common.Hash, start common.Hash,
	fn func(hashedAddr common.Hash, addr []byte, acct *types.StateAccount) bool) error {
	tr, err := c.stateDB.OpenTrie(root)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	nodes, err := tr.NodeIterator(start.Bytes())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, err)
	}
	it := trie.NewIterator(nodes)
	for it.Next() {
		acct, err := types.FullAccount(it.Value)
		if err != nil {
			return fmt.Errorf("account %x: %w", it.Key, err)
		}
		if !fn(common.BytesToHash(it.Key), tr.GetKey(it.Key), acct) {
			return nil
		}
	}
	if it.Err != nil {
		return fmt.Errorf("%w: %v", ErrStateUnavailable, it.Err)
	}
	return nil
}
