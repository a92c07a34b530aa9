package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/consensus"
)

// MergeRulesActive reports whether go-ethereum's EVM must run header under
// post-merge rules. Post-merge blocks (difficulty 0) always do; PoW and PoA
// headers do once a timestamp fork (Shanghai or later) is active, because
// go-ethereum only enables timestamp forks when the block context carries
// Random (DESIGN.md, "Fork rules").
func MergeRulesActive(cfg *params.ChainConfig, header *types.Header) bool {
	if header.Difficulty == nil || header.Difficulty.Sign() == 0 {
		return true
	}
	return cfg.IsShanghai(header.Number, header.Time)
}

// Rules returns the fork rules header executes under.
func Rules(cfg *params.ChainConfig, header *types.Header) params.Rules {
	return cfg.Rules(header.Number, MergeRulesActive(cfg, header), header.Time)
}

// randomOf is what PREVRANDAO reads. Post-merge blocks carry it in mixHash.
// On a PoW or PoA header running timestamp forks, mixHash is part of the
// seal — unknown while the miner executes the block, different once sealed —
// so such headers expose their difficulty instead, which is what DIFFICULTY
// returned before the merge and what Besu answers on PoW chains.
func randomOf(header *types.Header) *common.Hash {
	if header.Difficulty != nil && header.Difficulty.Sign() > 0 {
		r := common.BigToHash(header.Difficulty)
		return &r
	}
	mix := header.MixDigest
	return &mix
}

// HeaderSource resolves ancestors for BLOCKHASH; the chain store implements it.
type HeaderSource interface {
	GetHeader(hash common.Hash, number uint64) *types.Header
}

// NewBlockContext builds the EVM block context for header. The engine
// supplies the fee recipient and ancestors are looked up by their engine
// hash, so BLOCKHASH answers what the chain calls the block hash.
func NewBlockContext(cfg *params.ChainConfig, engine consensus.Engine, headers HeaderSource, header *types.Header) vm.BlockContext {
	author, _ := engine.Author(header)
	ctx := vm.BlockContext{
		CanTransfer:      core.CanTransfer,
		Transfer:         core.Transfer,
		GetHash:          hashFn(headers, header),
		Coinbase:         author,
		BlockNumber:      new(big.Int).Set(header.Number),
		Time:             header.Time,
		Difficulty:       new(big.Int).Set(header.Difficulty),
		GasLimit:         header.GasLimit,
		CostPerStateByte: params.CostPerStateByte,
	}
	if header.BaseFee != nil {
		ctx.BaseFee = new(big.Int).Set(header.BaseFee)
	}
	if header.ExcessBlobGas != nil {
		ctx.BlobBaseFee = eip4844.CalcBlobFee(cfg, header)
	}
	if MergeRulesActive(cfg, header) {
		ctx.Random = randomOf(header)
	}
	return ctx
}

// hashFn answers BLOCKHASH(n) by walking parent links from ref.
func hashFn(headers HeaderSource, ref *types.Header) vm.GetHashFunc {
	var cache []common.Hash // cache[i] = hash of block ref.Number-1-i
	return func(n uint64) common.Hash {
		refNum := ref.Number.Uint64()
		if n >= refNum {
			return common.Hash{}
		}
		if len(cache) == 0 {
			cache = append(cache, ref.ParentHash)
		}
		if idx := refNum - n - 1; idx < uint64(len(cache)) {
			return cache[idx]
		}
		hash := cache[len(cache)-1]
		num := refNum - uint64(len(cache))
		for num > n {
			h := headers.GetHeader(hash, num)
			if h == nil {
				return common.Hash{}
			}
			hash = h.ParentHash
			num--
			cache = append(cache, hash)
		}
		return hash
	}
}

// PreExecution applies the state changes due before a block's first
// transaction: the DAO fork and the EIP-4788/EIP-2935 system calls.
// go-ethereum's core.PreExecution would hash the parent itself; the chain's
// parent hash is the engine's, which the header already carries.
func PreExecution(cfg *params.ChainConfig, header *types.Header, evm *vm.EVM, statedb *state.StateDB) {
	if cfg.DAOForkSupport && cfg.DAOForkBlock != nil && cfg.DAOForkBlock.Cmp(header.Number) == 0 {
		misc.ApplyDAOHardFork(statedb)
	}
	if header.ParentBeaconRoot != nil {
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, evm, nil)
	}
	if cfg.IsPrague(header.Number, header.Time) {
		core.ProcessParentBlockHash(header.ParentHash, evm, nil)
	}
}

// Result is the outcome of executing a block's transactions.
type Result struct {
	Receipts types.Receipts
	Logs     []*types.Log
	Requests [][]byte
	GasUsed  uint64
}

// Process executes block on statedb (the parent's post-state) with the
// block's engine hash. It runs the pre- and post-block system calls,
// every transaction and the engine's finalization (rewards).
func Process(ctx context.Context, chain consensus.ChainReader, engine consensus.Engine,
	block *types.Block, hash common.Hash, statedb *state.StateDB, vmcfg vm.Config) (*Result, error) {
	var (
		cfg      = chain.Config()
		header   = block.Header()
		blockCtx = NewBlockContext(cfg, engine, chain, header)
	)
	evm := vm.NewEVM(blockCtx, statedb, cfg, vmcfg)
	defer evm.Release()

	PreExecution(cfg, header, evm, statedb)

	var (
		signer   = types.MakeSigner(cfg, header.Number, header.Time)
		gp       = core.NewGasPool(header.GasLimit)
		txs      = block.Transactions()
		receipts = make(types.Receipts, 0, len(txs))
		allLogs  []*types.Log
	)
	for i, tx := range txs {
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			return nil, fmt.Errorf("tx %d [%v]: %w", i, tx.Hash().Hex(), err)
		}
		statedb.SetTxContext(tx.Hash(), i, uint32(i+1))
		receipt, _, err := core.ApplyTransactionWithEVM(ctx, msg, gp, statedb, header.Number, hash, header.Time, tx, evm)
		if err != nil {
			return nil, fmt.Errorf("tx %d [%v]: %w", i, tx.Hash().Hex(), err)
		}
		receipts = append(receipts, receipt)
		allLogs = append(allLogs, receipt.Logs...)
	}
	requests, _, err := core.PostExecution(ctx, cfg, header.Number, header.Time, allLogs, block.Withdrawals(), evm, uint32(len(txs)+1))
	if err != nil {
		return nil, err
	}
	if !cfg.IsPrague(header.Number, header.Time) {
		requests = nil
	}
	engine.Finalize(chain, header, statedb, block.Uncles())
	return &Result{Receipts: receipts, Logs: allLogs, Requests: requests, GasUsed: gp.Used()}, nil
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
