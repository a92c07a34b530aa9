package backend

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/txpool"
)

// This file holds the services both front ends call with Go values: a
// submission is bytes or a transaction, a price a *big.Int. Their errors
// are domain errors (errors.go).

// ethProtocolVersion is the highest eth capability the node speaks (eth/68).
const ethProtocolVersion = 68

// ProtocolVersion is the highest eth protocol version the node speaks.
func (b *Backend) ProtocolVersion() uint64 { return ethProtocolVersion }

// ChainID is the chain's EIP-155 id.
func (b *Backend) ChainID() *big.Int { return new(big.Int).Set(b.Chain.Config().ChainID) }

// SendRawTransaction decodes a signed transaction's binary encoding and
// submits it (SendTransaction). Bytes that are no transaction are an
// InvalidParamsError.
func (b *Backend) SendRawTransaction(ctx context.Context, raw []byte) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, InvalidParams(ParamAny, "")
	}
	return b.SendTransaction(ctx, tx)
}

// secp256k1N is the order of the curve; signature values must be below it.
var secp256k1N = crypto.S256().Params().N

// SendTransaction submits a signed transaction to the pool and returns its
// hash. Impossible signature values are an InvalidParamsError, as Besu
// refuses them before the pool; the pool's refusals are *txpool.Error.
func (b *Backend) SendTransaction(ctx context.Context, tx *types.Transaction) (common.Hash, error) {
	_, r, s := tx.RawSignatureValues()
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(secp256k1N) >= 0 || s.Cmp(secp256k1N) >= 0 {
		return common.Hash{}, InvalidParams(ParamAny, "")
	}
	if b.Pool == nil {
		return common.Hash{}, ErrPoolDisabled
	}
	if err := b.Pool.Submit(ctx, tx); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// PooledTransaction returns the pool's transaction by hash, nil if the
// pool does not hold it (or there is no pool).
func (b *Backend) PooledTransaction(hash common.Hash) *types.Transaction {
	if b.Pool == nil {
		return nil
	}
	return b.Pool.Get(hash)
}

// PendingTransactions lists the pool's transactions with their senders.
func (b *Backend) PendingTransactions() []txpool.TxInfo {
	if b.Pool == nil {
		return nil
	}
	return b.Pool.Transactions()
}

// PendingCount is the number of transactions in the pool.
func (b *Backend) PendingCount() int {
	if b.Pool == nil {
		return 0
	}
	return b.Pool.Len()
}

// Logs runs a log query on the node's filter system.
func (b *Backend) Logs(ctx context.Context, q filters.Query) ([]*types.Log, error) {
	if b.Filters == nil {
		return nil, ErrLogsUnavailable
	}
	return b.Filters.Logs(ctx, q)
}
