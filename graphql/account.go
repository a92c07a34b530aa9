package graphql

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Account resolves the schema's Account: an address in the state after a
// block. The state is read only when a field needs it (an address costs
// nothing); without a block (a block number past the head, as Besu answers
// it) the account reads as empty. Its methods resolve the schema fields of
// the same names.
type Account struct {
	// Address resolves the address field (a struct field, which
	// graphql-go reads without a reflective call).
	Address Address

	s      *Service
	addr   common.Address
	header *types.Header // the block whose post-state is read; nil: empty
	hash   common.Hash

	once sync.Once
	acct *types.StateAccount
	err  error
}

// newAccount resolves addr in the post-state of the block (header, hash).
func (s *Service) newAccount(addr common.Address, header *types.Header, hash common.Hash) *Account {
	return &Account{Address: Address(addr), s: s, addr: addr, header: header, hash: hash}
}

// accountAtNumber is addr after the canonical block n (empty when there is
// no such block).
func (s *Service) accountAtNumber(addr common.Address, n int64) *Account {
	if b := s.blockByNumber(n); b != nil {
		return s.newAccount(addr, b.header, b.hash)
	}
	return s.newAccount(addr, nil, common.Hash{})
}

// load reads the account once, through the backend.
func (a *Account) load() (*types.StateAccount, error) {
	a.once.Do(func() {
		if a.header == nil {
			a.acct = types.NewEmptyStateAccount()
			return
		}
		a.acct, a.err = a.s.backend.Account(a.header, a.hash, a.addr)
	})
	return a.acct, a.err
}

// Balance is the account's balance in wei.
func (a *Account) Balance() (BigInt, error) {
	acct, err := a.load()
	if err != nil {
		return BigInt{}, err
	}
	return newBigInt(acct.Balance.ToBig()), nil
}

// TransactionCount is the account's nonce.
func (a *Account) TransactionCount() (Long, error) {
	acct, err := a.load()
	if err != nil {
		return 0, err
	}
	return Long(acct.Nonce), nil
}

// Code is the account's code ("0x" for none).
func (a *Account) Code() (Bytes, error) {
	acct, err := a.load()
	if err != nil || a.header == nil {
		return Bytes{}, err
	}
	return a.s.backend.Code(a.header, a.addr, acct)
}

// Storage is the value of one of the account's storage slots.
func (a *Account) Storage(args struct{ Slot Bytes32 }) (Bytes32, error) {
	if _, err := a.load(); err != nil || a.header == nil {
		return Bytes32{}, err
	}
	v, err := a.s.backend.Storage(a.header, a.hash, a.addr, common.Hash(args.Slot))
	return Bytes32(v), err
}
