package api

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// GetRawHeader is debug_getRawHeader: the block's header, RLP-encoded.
func (d *Debug) GetRawHeader(p BlockParam) (hexutil.Bytes, error) {
	block, err := d.blockFor(p)
	if err != nil {
		return nil, err
	}
	return rlpBytes(block.Header())
}

// GetRawBlock is debug_getRawBlock: the block, RLP-encoded.
func (d *Debug) GetRawBlock(p BlockParam) (hexutil.Bytes, error) {
	block, err := d.blockFor(p)
	if err != nil {
		return nil, err
	}
	return rlpBytes(block)
}

// GetRawReceipts is debug_getRawReceipts: the block's receipts in their
// consensus (EIP-2718) encoding.
func (d *Debug) GetRawReceipts(p BlockParam) ([]hexutil.Bytes, error) {
	block, err := d.blockFor(p)
	if err != nil {
		return nil, err
	}
	hash := d.b.Chain.Hash(block.Header())
	receipts := d.b.Chain.GetReceipts(hash, block.NumberU64())
	if receipts == nil && len(block.Transactions()) > 0 {
		return nil, backend.ErrWorldStateUnavailable
	}
	out := make([]hexutil.Bytes, len(receipts))
	for i, r := range receipts {
		enc, err := r.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out[i] = enc
	}
	return out, nil
}

// GetRawTransaction is debug_getRawTransaction: a canonical or pooled
// transaction in its EIP-2718 encoding; null when the node has none.
func (d *Debug) GetRawTransaction(hash rpctypes.Hash) (hexutil.Bytes, error) {
	tx, _, ok := d.b.Chain.GetTransaction(common.Hash(hash))
	if !ok && d.b.Pool != nil {
		tx = d.b.Pool.Get(common.Hash(hash))
	}
	if tx == nil {
		return nil, nil
	}
	return tx.MarshalBinary()
}

// blockFor returns the block p names; backend.BlockNotFoundError when there is none.
func (d *Debug) blockFor(p BlockParam) (*types.Block, error) {
	header, hash, err := headerFor(d.b, p)
	if err != nil {
		return nil, err
	}
	if header == nil {
		return nil, &backend.BlockNotFoundError{Hash: p.Hash, Number: p.Number}
	}
	block := d.b.Chain.GetBlock(hash, header.Number.Uint64())
	if block == nil {
		return nil, &backend.BlockNotFoundError{Hash: &hash}
	}
	return block, nil
}

// rlpBytes is v's RLP encoding.
func rlpBytes(v any) (hexutil.Bytes, error) {
	return rlp.EncodeToBytes(v)
}
