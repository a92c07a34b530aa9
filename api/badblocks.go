package api

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// badBlocksGroup is debug_getBadBlocks, in the DEBUG group beside the
// tracing and metrics methods.
func badBlocksGroup(b *backend.Backend) rpctypes.Group {
	return rpctypes.Group{Name: rpctypes.GroupDebug, Errors: jsonrpcError, Methods: []rpctypes.Method{
		{Name: "debug_getBadBlocks", Fn: (&badBlocks{b}).GetBadBlocks},
	}}
}

type badBlocks struct{ b *backend.Backend }

// BadBlockJSON is the spec's BadBlock object (Besu's BadBlockResult).
type BadBlockJSON struct {
	Block *BlockJSON    `json:"block"`
	Hash  common.Hash   `json:"hash"`
	RLP   hexutil.Bytes `json:"rlp"`
}

// GetBadBlocks is debug_getBadBlocks: the invalid blocks the chain refused
// since the node started (chain.MaxBadBlocks at most), most recent first,
// with transaction objects and the block's RLP.
func (d *badBlocks) GetBadBlocks() ([]BadBlockJSON, error) {
	bad := d.b.Chain.BadBlocks()
	out := make([]BadBlockJSON, 0, len(bad))
	for _, bb := range bad {
		enc, err := rlp.EncodeToBytes(bb.Block)
		if err != nil {
			return nil, err
		}
		out = append(out, BadBlockJSON{Block: d.blockObject(bb.Block, bb.Hash), Hash: bb.Hash, RLP: enc})
	}
	return out, nil
}

// blockObject renders a block that is not in the store, with transaction
// objects.
func (d *badBlocks) blockObject(block *types.Block, hash common.Hash) *BlockJSON {
	c := d.b.Chain
	header := block.Header()
	out := headerJSON(header, hash, nil)
	out.Size = hexutil.Uint64(block.Size())
	for _, u := range block.Uncles() {
		out.Uncles = append(out.Uncles, c.Hash(u))
	}
	txs := block.Transactions()
	out.Transactions = make([]any, len(txs))
	for i, tx := range txs {
		out.Transactions[i] = txJSON(c.Config(), tx, &TxContext{BlockHash: hash, Header: header, Index: uint64(i)})
	}
	if out.WithdrawalsRoot != nil {
		w := block.Withdrawals()
		if w == nil {
			w = types.Withdrawals{}
		}
		out.Withdrawals = &w
	}
	return out
}
