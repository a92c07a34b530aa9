package graphql

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
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

// errStateUnavailable answers a block whose state cannot be produced.
var errStateUnavailable = &fetchError{code: -32000, msg: "World state unavailable"}

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

// load reads the account once.
func (a *Account) load() (*types.StateAccount, error) {
	a.once.Do(func() {
		if a.header == nil {
			a.acct = types.NewEmptyStateAccount()
			return
		}
		c := a.s.chain
		if err := c.EnsureState(a.hash, a.header); err != nil {
			a.err = errStateUnavailable
			return
		}
		if a.acct, a.err = c.Account(a.header.Root, a.addr); a.err != nil {
			a.err = errStateUnavailable
		}
	})
	return a.acct, a.err
}

// reader opens a reader of the account's state (nil for an empty account).
func (a *Account) reader() (state.Reader, error) {
	if _, err := a.load(); err != nil || a.header == nil {
		return nil, err
	}
	rd, err := a.s.chain.StateReader(a.header.Root)
	if err != nil {
		return nil, errStateUnavailable
	}
	return rd, nil
}

func (a *Account) Balance() (BigInt, error) {
	acct, err := a.load()
	if err != nil {
		return BigInt{}, err
	}
	return newBigInt(acct.Balance.ToBig()), nil
}

func (a *Account) TransactionCount() (Long, error) {
	acct, err := a.load()
	if err != nil {
		return 0, err
	}
	return Long(acct.Nonce), nil
}

func (a *Account) Code() (Bytes, error) {
	acct, err := a.load()
	if err != nil {
		return nil, err
	}
	codeHash := common.BytesToHash(acct.CodeHash)
	if codeHash == types.EmptyCodeHash || codeHash == (common.Hash{}) {
		return Bytes{}, nil
	}
	rd, err := a.reader()
	if err != nil || rd == nil {
		return Bytes{}, err
	}
	return rd.Code(a.addr, codeHash), nil
}

func (a *Account) Storage(args struct{ Slot Bytes32 }) (Bytes32, error) {
	rd, err := a.reader()
	if err != nil || rd == nil {
		return Bytes32{}, err
	}
	v, err := rd.Storage(a.addr, common.Hash(args.Slot))
	if err != nil {
		return Bytes32{}, errStateUnavailable
	}
	return Bytes32(v), nil
}
