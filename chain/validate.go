package chain

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
)

// ErrBlockTooLarge is EIP-7934's refusal (from Osaka): a block whose RLP
// encoding exceeds params.MaxBlockSize.
var ErrBlockTooLarge = errors.New("block RLP size exceeds the EIP-7934 limit")

// maxTxBytes is what a block being built may spend on its transactions
// under EIP-7934: the cap less room for the header, withdrawals and list
// framing (go-ethereum's miner keeps 1 MiB, Besu a similar margin).
const maxTxBytes = params.MaxBlockSize - 1<<20

// ValidateSize applies EIP-7934 from Osaka: the block's RLP encoding is at
// most params.MaxBlockSize bytes.
func ValidateSize(cfg *params.ChainConfig, block *types.Block) error {
	if cfg.IsOsaka(block.Number(), block.Time()) && block.Size() > params.MaxBlockSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrBlockTooLarge, block.Size(), params.MaxBlockSize)
	}
	return nil
}

// ValidateBody checks that the body matches the commitments in the header.
func ValidateBody(block *types.Block) error {
	header := block.Header()
	if hash := types.CalcUncleHash(block.Uncles()); hash != header.UncleHash {
		return fmt.Errorf("uncle root hash mismatch (header value %x, calculated %x)", header.UncleHash, hash)
	}
	if hash := types.DeriveSha(block.Transactions(), trie.NewStackTrie(nil)); hash != header.TxHash {
		return fmt.Errorf("transaction root hash mismatch (header value %x, calculated %x)", header.TxHash, hash)
	}
	if header.WithdrawalsHash != nil {
		if block.Withdrawals() == nil {
			return errors.New("missing withdrawals in block body")
		}
		if hash := types.DeriveSha(block.Withdrawals(), trie.NewStackTrie(nil)); hash != *header.WithdrawalsHash {
			return fmt.Errorf("withdrawals root hash mismatch (header value %x, calculated %x)", *header.WithdrawalsHash, hash)
		}
	} else if block.Withdrawals() != nil {
		return errors.New("withdrawals present in block body")
	}
	var blobs int
	for i, tx := range block.Transactions() {
		blobs += len(tx.BlobHashes())
		if tx.BlobTxSidecar() != nil {
			return fmt.Errorf("unexpected blob sidecar in transaction at index %d", i)
		}
	}
	if header.BlobGasUsed != nil {
		if want := *header.BlobGasUsed / params.BlobTxBlobGasPerBlob; uint64(blobs) != want {
			return fmt.Errorf("blob gas used mismatch (header %v, calculated %v)", *header.BlobGasUsed, blobs*params.BlobTxBlobGasPerBlob)
		}
	} else if blobs > 0 {
		return errors.New("data blobs present in block body")
	}
	return nil
}

// ValidateResult checks the execution outcome against the header and
// returns the post-state root.
func ValidateResult(cfg *params.ChainConfig, header *types.Header, statedb *state.StateDB, res *Result) (common.Hash, error) {
	if header.GasUsed != res.GasUsed {
		return common.Hash{}, fmt.Errorf("invalid gas used (remote: %d local: %d)", header.GasUsed, res.GasUsed)
	}
	if bloom := types.MergeBloom(res.Receipts); bloom != header.Bloom {
		return common.Hash{}, fmt.Errorf("invalid bloom (remote: %x local: %x)", header.Bloom, bloom)
	}
	if root := types.DeriveSha(res.Receipts, trie.NewStackTrie(nil)); root != header.ReceiptHash {
		return common.Hash{}, fmt.Errorf("invalid receipt root hash (remote: %x local: %x)", header.ReceiptHash, root)
	}
	if header.RequestsHash != nil {
		if h := types.CalcRequestsHash(res.Requests); h != *header.RequestsHash {
			return common.Hash{}, fmt.Errorf("invalid requests hash (remote: %x local: %x)", *header.RequestsHash, h)
		}
	} else if res.Requests != nil {
		return common.Hash{}, errors.New("block has requests before prague fork")
	}
	root := statedb.IntermediateRoot(Rules(cfg, header))
	if root != header.Root {
		return common.Hash{}, fmt.Errorf("invalid merkle root (remote: %x local: %x) dberr: %v", header.Root, root, statedb.Error())
	}
	return root, nil
}
