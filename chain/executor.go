package chain

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"
)

// Executor is the one place where Basalt makes an EVM: it builds the block
// context, the vm.Config (tracer hooks) and the precompile set, and it runs
// the transaction loop. Block processing (InsertBlock, the state repair at
// Open, EnsureState), block building (miner.Build, for the miner and the
// test chain generator) and the simulations behind eth_call,
// eth_estimateGas and eth_createAccessList all go through it, so whatever
// is given to it as a parameter — an extra precompile, a tracer, a policy
// for the blocks it builds — holds for all of them alike.
//
// An Executor is immutable and safe for concurrent use; a Chain owns one
// (Chain.Executor), made from the options given to Open.
type Executor struct {
	config *params.ChainConfig
	engine consensus.Engine
	chain  consensus.ChainReader // ancestors for BLOCKHASH; the engine's Finalize
	opts   execOptions

	// sets caches, per fork, the fork's precompiles with the extra ones
	// added, so an EVM gets its set without a map copy. The maps are shared
	// and never written. Empty without extra precompiles: the EVM then
	// keeps go-ethereum's own set.
	setsMu sync.RWMutex
	sets   map[params.Rules]vm.PrecompiledContracts
}

// execOptions are an Executor's parameters.
type execOptions struct {
	precompiles vm.PrecompiledContracts
	policy      TxPolicy
	tracer      *tracing.Hooks
	// blockHook is the chain's, not the executor's (WithBlockHook).
	blockHook BlockHook
	// knownTx is the chain's (WithKnownTxs): where senders were recovered.
	knownTx func(common.Hash) *types.Transaction
	// goQuorum applies GoQuorum's rules for its private transactions
	// (WithGoQuorumPrivate).
	goQuorum bool
	// goQuorumAt sees each GoQuorum private transaction before its public
	// effects (ReplayGoQuorumPrivate only).
	goQuorumAt GoQuorumPrivateFunc
}

// ExecOption sets a parameter of the block executor (see Open, NewExecutor).
type ExecOption func(*execOptions)

// WithPrecompile installs p at addr in every EVM the executor makes, from
// genesis on, beside the fork's own precompiles (it replaces one at the same
// address). An extra precompile is consensus: every node of the network
// must run the same, or their state roots differ. Unlike the fork's
// precompiles it is not warm at the start of a transaction (go-ethereum's
// state transition pre-warms only its own set), so the first call to it in
// a transaction costs cold-account gas (EIP-2929).
func WithPrecompile(addr common.Address, p vm.PrecompiledContract) ExecOption {
	return func(o *execOptions) {
		if o.precompiles == nil {
			o.precompiles = make(vm.PrecompiledContracts)
		}
		o.precompiles[addr] = p
	}
}

// WithTxPolicy makes the executor ask policy about every candidate
// transaction of a block it builds. It is never asked about the
// transactions of a block being processed (imported, received, re-executed):
// those are the network's decision, already made.
func WithTxPolicy(policy TxPolicy) ExecOption {
	return func(o *execOptions) { o.policy = policy }
}

// WithTracer hands hooks every EVM event of everything the executor runs:
// blocks processed and built, and calls that name no tracer of their own
// (CallOptions.Tracer). A chain's executor runs calls beside block
// processing, so hooks given to Open must be safe for concurrent use; With
// gives one task a tracer of its own.
func WithTracer(hooks *tracing.Hooks) ExecOption {
	return func(o *execOptions) { o.tracer = hooks }
}

// WithBlockHook gives Open the chain's block hook, which processes the
// node's private transactions as blocks are inserted (see BlockHook). It is
// fixed for the chain's life; an executor made by NewExecutor or With
// ignores it.
func WithBlockHook(h BlockHook) ExecOption {
	return func(o *execOptions) { o.blockHook = h }
}

// TxPolicy decides whether a block being built may include tx, sent by
// from, in the block of header. A non-nil error leaves tx out — with the
// rest of its sender's transactions, whose nonces would then have a gap —
// and is the reason recorded in Result.Skipped. Nothing serialises
// block building, so a policy must be safe for concurrent use.
type TxPolicy func(header *types.Header, tx *types.Transaction, from common.Address) error

// TxIterator walks candidate transactions in inclusion order: by price
// across senders, by nonce within a sender.
type TxIterator interface {
	// Peek returns the next candidate, or nil when none are left.
	Peek() *types.Transaction
	// Shift accepts the candidate and moves to its sender's next nonce.
	Shift()
	// Pop drops the candidate's sender for the rest of the block.
	Pop()
}

// NewExecutor returns the executor of the chain with configuration cfg and
// consensus engine engine, which reads ancestors (BLOCKHASH) and gives the
// engine's Finalize its chain through chain. Open makes the Chain's own;
// benchmarks and tools that execute outside a Chain make theirs.
func NewExecutor(cfg *params.ChainConfig, engine consensus.Engine, chain consensus.ChainReader, opts ...ExecOption) *Executor {
	x := &Executor{config: cfg, engine: engine, chain: chain}
	for _, o := range opts {
		o(&x.opts)
	}
	return x
}

// With returns an executor with the parameters of x changed by opts, for
// one task (e.g. a tracer for one debug_trace request); x is unchanged.
func (x *Executor) With(opts ...ExecOption) *Executor {
	y := &Executor{config: x.config, engine: x.engine, chain: x.chain, opts: x.opts}
	y.opts.precompiles = maps.Clone(x.opts.precompiles)
	for _, o := range opts {
		o(&y.opts)
	}
	return y
}

// Result is the outcome of executing a block's transactions.
type Result struct {
	// Txs are the transactions executed, in block order: the block's own
	// when processing, the ones included when building.
	Txs      []*types.Transaction
	Receipts types.Receipts
	Logs     []*types.Log
	Requests [][]byte // EIP-7685 requests; nil before Prague
	GasUsed  uint64
	// Skipped are the candidates a built block left out, with the reason
	// (the policy's refusal, a failed execution, too much gas). Always
	// empty when processing, where any failure fails the block.
	Skipped []SkippedTx
}

// SkippedTx is a candidate transaction a built block left out.
type SkippedTx struct {
	Tx     *types.Transaction
	Reason error
}

// Process executes block, whose engine hash is hash, on statedb (the
// parent's post-state): the pre-block system calls, every transaction, the
// post-block system calls and withdrawals, and the engine's finalization
// (rewards). Any transaction that cannot be applied fails the block. The
// policy (WithTxPolicy) does not apply.
func (x *Executor) Process(ctx context.Context, block *types.Block, hash common.Hash, statedb *state.StateDB) (*Result, error) {
	header := block.Header()
	txs := block.Transactions()
	r := x.begin(header, hash, statedb, len(txs))
	defer r.evm.Release()
	if err := r.applyTxs(ctx, &blockTxs{txs: txs}, false); err != nil {
		return nil, err
	}
	r.txs = txs
	return r.finish(ctx, block.Withdrawals(), block.Uncles())
}

// Build executes on statedb (the parent's post-state) the block header
// describes, filled from txs (nil: no transactions) as far as its gas limit
// allows, with the given ommers and withdrawals: the same steps as Process,
// except that a candidate that the policy refuses or that fails is left out
// instead of failing the block. The caller completes header (gas used,
// state root, requests hash) from the result; receipts carry no block hash,
// which is not known before the block is sealed.
func (x *Executor) Build(ctx context.Context, header *types.Header, statedb *state.StateDB, txs TxIterator,
	uncles []*types.Header, withdrawals []*types.Withdrawal) (*Result, error) {
	r := x.begin(header, common.Hash{}, statedb, 0)
	defer r.evm.Release()
	if txs != nil {
		if err := r.applyTxs(ctx, txs, true); err != nil {
			return nil, err
		}
	}
	return r.finish(ctx, withdrawals, uncles)
}

// CallOptions tune ApplyMessage. The zero value runs the message as a
// transaction of the block would run.
type CallOptions struct {
	// Tracer receives this call's EVM events instead of the executor's
	// tracer (eth_createAccessList's slot tracer, later debug_traceCall).
	Tracer *tracing.Hooks
	// ZeroBaseFee and ZeroBlobBaseFee make the block's base fee and blob
	// base fee read 0 (BASEFEE, BLOBBASEFEE and the fee checks), for a
	// call priced at zero.
	ZeroBaseFee, ZeroBlobBaseFee bool
	// NoBaseFee lets a message priced at zero run below the block's base
	// fee (go-ethereum's vm.Config.NoBaseFee).
	NoBaseFee bool
	// Precompiles replaces the precompile set, nil: the executor's. A
	// call with state overrides that move precompiles passes a changed
	// copy of Precompiles(header).
	Precompiles vm.PrecompiledContracts
	// Tx, when set, is the transaction the message stands for: the tracer
	// hears the run as that transaction's (OnTxStart before, OnTxEnd after,
	// with a receipt carrying the gas used), as it would in a block —
	// debug_traceCall's tracers read the sender and the gas limit there.
	Tx *types.Transaction
}

// ApplyMessage runs msg on statedb in the block of header, outside any
// block's transaction loop (eth_call and the like), with a gas pool of
// gasPool. Nothing is committed: the changes stay in statedb. When ctx
// ends during the run the EVM stops and the error is ctx's.
func (x *Executor) ApplyMessage(ctx context.Context, header *types.Header, statedb *state.StateDB, msg *core.Message,
	gasPool uint64, opts CallOptions) (*core.ExecutionResult, error) {
	blockCtx := x.blockContext(header)
	if opts.ZeroBaseFee && blockCtx.BaseFee != nil {
		blockCtx.BaseFee = new(big.Int)
	}
	if opts.ZeroBlobBaseFee && blockCtx.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = new(big.Int)
	}
	tracer := opts.Tracer
	if tracer == nil {
		tracer = x.opts.tracer
	}
	evm := x.newEVM(blockCtx, statedb, vm.Config{Tracer: tracer, NoBaseFee: opts.NoBaseFee})
	defer evm.Release()
	if opts.Precompiles != nil {
		evm.SetPrecompiles(opts.Precompiles)
	}
	defer cancelOnDone(ctx, evm)()
	if opts.Tx != nil && tracer != nil && tracer.OnTxStart != nil {
		tracer.OnTxStart(evm.GetVMContext(), opts.Tx, msg.From)
	}
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(gasPool))
	if opts.Tx != nil && tracer != nil && tracer.OnTxEnd != nil {
		if err != nil {
			tracer.OnTxEnd(nil, err)
		} else {
			tracer.OnTxEnd(&types.Receipt{GasUsed: res.UsedGas, Status: receiptStatus(res)}, nil)
		}
	}
	if evm.Cancelled() {
		return nil, ctx.Err()
	}
	return res, err
}

// cancelOnDone cancels evm when ctx ends and returns the function that
// stops this. context.AfterFunc needs no goroutine per call (one per
// eth_call, started and parked, was 3 % of its CPU). A cancel that races
// with the end of the run is harmless: the EVM is not reused.
func cancelOnDone(ctx context.Context, evm *vm.EVM) (stop func() bool) {
	if ctx.Done() == nil {
		return func() bool { return false } // never ends (context.Background)
	}
	return context.AfterFunc(ctx, evm.Cancel)
}

// receiptStatus is the status a receipt of res would carry.
func receiptStatus(res *core.ExecutionResult) uint64 {
	if res.Failed() {
		return types.ReceiptStatusFailed
	}
	return types.ReceiptStatusSuccessful
}

// Precompiles returns a copy of the precompiled contracts an EVM for header
// runs with: the fork's and the extra ones (WithPrecompile). The copy is the
// caller's to change, e.g. for CallOptions.Precompiles.
func (x *Executor) Precompiles(header *types.Header) vm.PrecompiledContracts {
	rules := Rules(x.config, header)
	if set := x.precompileSet(rules); set != nil {
		return maps.Clone(set)
	}
	return vm.ActivePrecompiledContracts(rules)
}

// precompileSet is the shared set of the fork with the extra precompiles,
// or nil when there are none.
func (x *Executor) precompileSet(rules params.Rules) vm.PrecompiledContracts {
	if len(x.opts.precompiles) == 0 {
		return nil
	}
	x.setsMu.RLock()
	set, ok := x.sets[rules]
	x.setsMu.RUnlock()
	if ok {
		return set
	}
	x.setsMu.Lock()
	defer x.setsMu.Unlock()
	if set, ok := x.sets[rules]; ok {
		return set
	}
	set = vm.ActivePrecompiledContracts(rules)
	maps.Copy(set, x.opts.precompiles)
	if x.sets == nil {
		x.sets = make(map[params.Rules]vm.PrecompiledContracts)
	}
	x.sets[rules] = set
	return set
}

// newEVM makes an EVM for blockCtx on statedb with the executor's
// precompiles. With a tracer the EVM sees the state through go-ethereum's
// hooked state, so the tracer also hears balance, nonce, code and storage
// changes.
func (x *Executor) newEVM(blockCtx vm.BlockContext, statedb *state.StateDB, cfg vm.Config) *vm.EVM {
	var sdb vm.StateDB = statedb
	if cfg.Tracer != nil {
		sdb = state.NewHookedState(statedb, cfg.Tracer)
	}
	evm := vm.NewEVM(blockCtx, sdb, x.config, cfg)
	if set := x.precompileSet(evm.GetRules()); set != nil {
		evm.SetPrecompiles(set)
	}
	return evm
}

// NewEVM makes an EVM of x's chain configuration for blockCtx on db, a
// state the chain does not hold (a privacy group's private state seen
// through the public one), with the fork's own precompiles only: the
// node's extra ones (the privacy precompile) and the tracer belong to the
// public chain. Package privacy runs private transactions and priv_call on
// it, so that every EVM is made here.
func (x *Executor) NewEVM(blockCtx vm.BlockContext, db vm.StateDB, cfg vm.Config) *vm.EVM {
	return vm.NewEVM(blockCtx, db, x.config, cfg)
}

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

// BlockContext is the EVM block context of header, as the executor's own
// EVMs get it: for EVMs made elsewhere on the same block, such as the one
// running a private transaction against private state.
func (x *Executor) BlockContext(header *types.Header) vm.BlockContext { return x.blockContext(header) }

// Config is the chain configuration x executes under.
func (x *Executor) Config() *params.ChainConfig { return x.config }

// blockContext builds the EVM block context for header. The engine
// supplies the fee recipient and ancestors are looked up by their engine
// hash, so BLOCKHASH answers what the chain calls the block hash.
func (x *Executor) blockContext(header *types.Header) vm.BlockContext {
	author, _ := x.engine.Author(header)
	ctx := vm.BlockContext{
		CanTransfer:      core.CanTransfer,
		Transfer:         core.Transfer,
		GetHash:          hashFn(x.chain, header),
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
		ctx.BlobBaseFee = eip4844.CalcBlobFee(x.config, header)
	}
	if MergeRulesActive(x.config, header) {
		ctx.Random = randomOf(header)
	}
	return ctx
}

// hashFn answers BLOCKHASH(n) by walking parent links from ref.
func hashFn(headers consensus.ChainReader, ref *types.Header) vm.GetHashFunc {
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

// blockRun is one block in execution: its EVM and what its transactions
// have produced so far.
type blockRun struct {
	x       *Executor
	header  *types.Header
	hash    common.Hash // receipts' block hash: the engine's, zero while building
	statedb *state.StateDB
	evm     *vm.EVM
	signer  types.Signer
	gp      *core.GasPool

	// privateGas is the intrinsic gas of the GoQuorum private
	// transactions applied: taken from the gas pool but not counted in the
	// header's gasUsed (applyGoQuorumPrivate).
	privateGas uint64

	txs      []*types.Transaction
	receipts types.Receipts
	logs     []*types.Log
	skipped  []SkippedTx

	// txBytes is the encoded size of the transactions taken while
	// building, for EIP-7934's cap on the block's size (maxTxBytes).
	txBytes uint64
}

// begin makes the block's EVM and applies the state changes due before its
// first transaction. size is the number of transactions expected, if known.
func (x *Executor) begin(header *types.Header, hash common.Hash, statedb *state.StateDB, size int) blockRun {
	evm := x.newEVM(x.blockContext(header), statedb, vm.Config{Tracer: x.opts.tracer})
	x.preExecution(header, evm)
	return blockRun{
		x:        x,
		header:   header,
		hash:     hash,
		statedb:  statedb,
		evm:      evm,
		signer:   x.Signer(header),
		gp:       core.NewGasPool(header.GasLimit),
		receipts: make(types.Receipts, 0, size),
	}
}

// preExecution applies the state changes due before a block's first
// transaction: the DAO fork and the EIP-4788/EIP-2935 system calls.
// go-ethereum's core.PreExecution would hash the parent itself; the chain's
// parent hash is the engine's, which the header already carries.
func (x *Executor) preExecution(header *types.Header, evm *vm.EVM) {
	cfg := x.config
	if cfg.DAOForkSupport && cfg.DAOForkBlock != nil && cfg.DAOForkBlock.Cmp(header.Number) == 0 {
		misc.ApplyDAOHardFork(evm.StateDB)
	}
	if header.ParentBeaconRoot != nil {
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, evm, nil)
	}
	if cfg.IsPrague(header.Number, header.Time) {
		core.ProcessParentBlockHash(header.ParentHash, evm, nil)
	}
}

// applyTxs is the transaction loop. Processing (building false) applies
// every transaction txs yields and fails on the first that cannot be
// applied. Building takes candidates while gas is left and leaves out,
// recording why, those that do not fit, that the policy refuses or that
// fail, undoing whatever a failed one changed.
func (r *blockRun) applyTxs(ctx context.Context, txs TxIterator, building bool) error {
	policy := r.x.opts.policy
	for tx := txs.Peek(); tx != nil; tx = txs.Peek() {
		if building {
			if ctx.Err() != nil || r.gp.Available(false) < params.TxGas {
				break
			}
			if tx.Gas() > r.gp.Available(false) {
				r.skip(txs, tx, core.ErrGasLimitReached)
				continue
			}
			if r.x.config.IsOsaka(r.header.Number, r.header.Time) && r.txBytes+tx.Size() > maxTxBytes {
				r.skip(txs, tx, ErrBlockTooLarge)
				continue
			}
		}
		i := len(r.receipts)
		msg, err := core.TransactionToMessage(tx, r.signer, r.header.BaseFee)
		if err != nil {
			if !building {
				return fmt.Errorf("tx %d [%v]: %w", i, tx.Hash().Hex(), err)
			}
			r.skip(txs, tx, err)
			continue
		}
		if building && policy != nil {
			if err := policy(r.header, tx, msg.From); err != nil {
				r.skip(txs, tx, err)
				continue
			}
		}
		var (
			snap   int
			gpSnap *core.GasPool
		)
		if building {
			snap, gpSnap = r.statedb.Snapshot(), r.gp.Snapshot()
		}
		r.statedb.SetTxContext(tx.Hash(), i, uint32(i+1))
		var receipt *types.Receipt
		privateGas := r.privateGas
		if r.x.isGoQuorumPrivate(tx) {
			receipt, err = r.applyGoQuorumPrivate(tx, msg.From)
		} else {
			receipt, _, err = core.ApplyTransactionWithEVM(ctx, msg, r.gp, r.statedb, r.header.Number, r.hash, r.header.Time, tx, r.evm)
		}
		if err != nil {
			if !building {
				return fmt.Errorf("tx %d [%v]: %w", i, tx.Hash().Hex(), err)
			}
			r.statedb.RevertToSnapshot(snap)
			r.gp.Set(gpSnap)
			r.privateGas = privateGas
			if errors.Is(err, core.ErrNonceTooLow) {
				txs.Shift() // already included: the sender's next nonce may fit
			} else {
				r.skip(txs, tx, err)
			}
			continue
		}
		if building {
			r.txs = append(r.txs, tx) // processing: the block's own, set by Process
			r.txBytes += tx.Size()
		}
		r.receipts = append(r.receipts, receipt)
		r.logs = append(r.logs, receipt.Logs...)
		txs.Shift()
	}
	return nil
}

// skip leaves the candidate tx, and its sender, out of the block being built.
func (r *blockRun) skip(txs TxIterator, tx *types.Transaction, reason error) {
	r.skipped = append(r.skipped, SkippedTx{Tx: tx, Reason: reason})
	txs.Pop()
}

// finish applies the withdrawals, the post-block system calls and the
// engine's finalization (rewards for the block and its ommers).
func (r *blockRun) finish(ctx context.Context, withdrawals []*types.Withdrawal, uncles []*types.Header) (*Result, error) {
	cfg, header := r.x.config, r.header
	requests, _, err := core.PostExecution(ctx, cfg, header.Number, header.Time, r.logs, withdrawals, r.evm, uint32(len(r.receipts)+1))
	if err != nil {
		return nil, err
	}
	if !cfg.IsPrague(header.Number, header.Time) {
		requests = nil
	}
	r.x.engine.Finalize(r.x.chain, header, r.evm.StateDB, uncles)
	return &Result{Txs: r.txs, Receipts: r.receipts, Logs: r.logs, Requests: requests, GasUsed: r.gp.Used() - r.privateGas, Skipped: r.skipped}, nil
}

// blockTxs feeds a block's transactions to the loop, in order.
type blockTxs struct {
	txs []*types.Transaction
	i   int
}

func (b *blockTxs) Peek() *types.Transaction {
	if b.i < len(b.txs) {
		return b.txs[b.i]
	}
	return nil
}

func (b *blockTxs) Shift() { b.i++ }
func (b *blockTxs) Pop()   { b.i++ } // not reached: processing fails instead
