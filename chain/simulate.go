package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/basaltchain/basalt/consensus"
)

// SimOptions tune a simulated block (SimBlock).
type SimOptions struct {
	// Tracer receives the block's EVM events instead of the executor's.
	Tracer *tracing.Hooks
	// Precompiles replaces the precompile set (state overrides that move
	// precompiles); nil: the executor's.
	Precompiles vm.PrecompiledContracts
	// NoBaseFee lets messages priced below the block's base fee run
	// (go-ethereum's vm.Config.NoBaseFee), for simulations without
	// validation.
	NoBaseFee bool
	// BlobBaseFee, when not nil, is what BLOBBASEFEE reads and blob
	// messages are checked against, instead of the fee the header implies.
	BlobBaseFee *big.Int
	// Random, when not nil, is what PREVRANDAO reads (a prevRandao block
	// override), whatever the header's difficulty.
	Random *common.Hash
	// Ancestors resolves BLOCKHASH through simulated blocks before falling
	// back to the chain; nil: the chain's own headers.
	Ancestors consensus.ChainReader
}

// SimBlock is a block executed message by message rather than from signed
// transactions: eth_simulateV1's blocks. It runs the same pre-block system
// calls, transaction bookkeeping (receipts, per-transaction state
// finalisation, block gas pool), post-block system calls, withdrawals and
// engine finalization as Process and Build, through the same EVM
// construction, so a simulated block differs from a real one only in what
// the caller chose to change (its header, its state, unsigned messages).
type SimBlock struct {
	r blockRun
}

// Simulate begins a simulated block described by header (the caller's:
// unsealed, coinbase as given) on statedb, the post-state of its parent,
// and applies the state changes due before its first message. The caller
// must Release the block.
func (x *Executor) Simulate(header *types.Header, statedb *state.StateDB, opts SimOptions) *SimBlock {
	blockCtx := x.blockContext(header)
	// A simulated header carries no seal: its fee recipient is the one
	// named, not one an engine would recover.
	blockCtx.Coinbase = header.Coinbase
	if opts.Ancestors != nil {
		blockCtx.GetHash = hashFn(opts.Ancestors, header)
	}
	if opts.Random != nil {
		r := *opts.Random
		blockCtx.Random = &r
	}
	if opts.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = new(big.Int).Set(opts.BlobBaseFee)
	}
	tracer := opts.Tracer
	if tracer == nil {
		tracer = x.opts.tracer
	}
	evm := x.newEVM(blockCtx, statedb, vm.Config{Tracer: tracer, NoBaseFee: opts.NoBaseFee})
	if opts.Precompiles != nil {
		evm.SetPrecompiles(opts.Precompiles)
	}
	x.preExecution(header, evm)
	return &SimBlock{r: blockRun{
		x:       x,
		header:  header,
		statedb: statedb,
		evm:     evm,
		signer:  x.Signer(header),
		gp:      core.NewGasPool(header.GasLimit),
	}}
}

// GasLeft is the block gas the messages applied so far have left.
func (s *SimBlock) GasLeft() uint64 {
	return s.r.gp.Available(s.r.evm.GetRules().IsAmsterdam)
}

// Apply runs msg, standing for tx (an unsigned transaction whose hash
// identifies the message's logs and receipt), as the block's next
// transaction. A message the block cannot include (a nonce, fee, balance or
// gas check failing, block gas exhausted) is an error and changes nothing
// the caller keeps; an executed one, successful or not, returns its result
// and receipt. When ctx ends during the run the error is ctx's.
func (s *SimBlock) Apply(ctx context.Context, msg *core.Message, tx *types.Transaction) (*core.ExecutionResult, *types.Receipt, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	r := &s.r
	i := len(r.receipts)
	r.statedb.SetTxContext(tx.Hash(), i, uint32(i+1))
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			r.evm.Cancel()
		case <-done:
		}
	}()
	res, err := core.ApplyMessage(r.evm, msg, r.gp)
	if r.evm.Cancelled() {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, nil, err
	}
	rules := r.evm.GetRules()
	var root []byte
	if rules.IsByzantium {
		r.evm.StateDB.Finalise(rules)
	} else {
		root = r.statedb.IntermediateRoot(rules).Bytes()
	}
	receipt := core.MakeReceipt(r.evm, res, r.statedb, r.header.Number, common.Hash{}, r.header.Time, tx, r.gp.CumulativeUsed(), root)
	r.txs = append(r.txs, tx)
	r.receipts = append(r.receipts, receipt)
	r.logs = append(r.logs, receipt.Logs...)
	return res, receipt, nil
}

// Finish applies the withdrawals, the post-block system calls and the
// engine's finalization, and returns what the block's messages produced.
// Receipts and logs carry no block hash: the caller hashes the header it
// completes from the result.
func (s *SimBlock) Finish(ctx context.Context, withdrawals []*types.Withdrawal) (*Result, error) {
	return s.r.finish(ctx, withdrawals, nil)
}

// Release returns the block's EVM; the block cannot be used afterwards.
func (s *SimBlock) Release() { s.r.evm.Release() }
