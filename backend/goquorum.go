package backend

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/quorumtx"
)

// A GoQuorum party (--ptm-url on a GoQuorum network) has one private
// state beside the public one. GoQuorum 24.4.1's EthAPIState reads the
// private state first for an address that exists there, so the account
// reads, eth_call and receipts of a party go through the methods below;
// on any other node they find nothing private and the public answer
// stands.

// GoQuorumState returns the private state after the block hash when addr
// exists in it; nil otherwise (no GoQuorum party, or a public address).
func (b *Backend) GoQuorumState(hash common.Hash, addr common.Address) (*state.StateDB, error) {
	if b.GoQuorum == nil {
		return nil, nil
	}
	st, err := b.GoQuorum.StateAt(hash)
	if err != nil {
		return nil, ErrWorldStateUnavailable
	}
	if !st.Exist(addr) {
		return nil, nil
	}
	return st, nil
}

// GoQuorumCall runs msg on the private state after the block (header,
// hash) when msg.To is a contract of it, as GoQuorum's eth_call does:
// public contracts it calls are read-only. ok false leaves the call to the
// public state.
func (b *Backend) GoQuorumCall(header *types.Header, hash common.Hash, msg *CallMsg) (out []byte, ok bool, err error) {
	if b.GoQuorum == nil || msg.To == nil {
		return nil, false, nil
	}
	priv, err := b.GoQuorumState(hash, *msg.To)
	if priv == nil || err != nil {
		return nil, false, err
	}
	public, err := b.StateOf(header, hash)
	if err != nil {
		return nil, true, err
	}
	var value *uint256.Int
	if msg.Value != nil {
		var overflow bool
		if value, overflow = uint256.FromBig(msg.Value); overflow {
			return nil, true, InvalidParams(ParamAny, "value overflows 256 bits")
		}
	}
	res := b.GoQuorum.Call(header, priv, public, msg.Sender(), *msg.To, msg.Data, b.CallGas(header, msg.Gas), value)
	if res.Err != nil {
		return nil, true, ResultError(res)
	}
	if res.ReturnData == nil {
		return []byte{}, true, nil
	}
	return res.ReturnData, true, nil
}

// PrivateReceipt is what a GoQuorum party's private receipt changes in the
// public one: GoQuorum's single private state stores it in the public
// receipt's place.
type PrivateReceipt struct {
	Status uint64
	Logs   []*types.Log
	Bloom  types.Bloom
}

// GoQuorumReceipt returns the private receipt of tx, a transaction of the
// block (hash, number), when this node is a party to it; nil otherwise.
func (b *Backend) GoQuorumReceipt(hash common.Hash, number uint64, tx *types.Transaction) (*PrivateReceipt, error) {
	if b.GoQuorum == nil || !quorumtx.IsPrivate(tx) {
		return nil, nil
	}
	r, err := b.GoQuorum.Receipt(hash, tx.Hash())
	if err != nil || r == nil {
		return nil, err
	}
	rec := &types.Receipt{Status: r.Status}
	for _, l := range b.GoQuorum.PrivateLogs(hash, number) {
		if l.TxHash == tx.Hash() {
			rec.Logs = append(rec.Logs, l)
		}
	}
	return &PrivateReceipt{Status: r.Status, Logs: rec.Logs, Bloom: types.CreateBloom(rec)}, nil
}

// SendRawPrivateTransaction hands a privately signed transaction's payload
// (stored with /storeraw under its data) to the recipients privateFor,
// then submits the transaction unchanged, as GoQuorum's
// eth_sendRawPrivateTransaction does.
func (b *Backend) SendRawPrivateTransaction(ctx context.Context, tx *types.Transaction, raw []byte, privateFor []string) (common.Hash, error) {
	if b.GoQuorum == nil {
		return common.Hash{}, &DistributionError{errNoGoQuorum}
	}
	if err := b.GoQuorum.DistributeSigned(ctx, tx, privateFor); err != nil {
		return common.Hash{}, &DistributionError{err}
	}
	return b.SendRawTransaction(ctx, raw)
}

// errNoGoQuorum is a private send to a node that is no GoQuorum party.
var errNoGoQuorum = errors.New("the node has no GoQuorum privacy manager (--ptm-url)")

// DistributionError is a GoQuorum private transaction whose payload was
// not handed to its recipients (refused by GoQuorum's rules, or the
// manager failed); nothing was submitted. Front ends answer it in
// GoQuorum's words.
type DistributionError struct{ Err error }

func (e *DistributionError) Error() string { return e.Err.Error() }

func (e *DistributionError) Unwrap() error { return e.Err }
