package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/tracers"

	// go-ethereum's native tracers register callTracer and prestateTracer
	// in tracers.DefaultDirectory.
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpctypes"
)

// Debug serves the DEBUG group's tracing, raw-data and state-range
// methods (debug_metrics comes with the node's metrics). Every trace
// re-executes through the chain's block executor with a tracer of the
// request's own (chain.Executor.With(chain.WithTracer(…))), on the state
// before the block, rebuilt as EnsureState rebuilds historic states.
type Debug struct{ b *backend.Backend }

// namedTracers are the tracers a request may name. go-ethereum's directory
// would take any other name for JavaScript, which the node does not run.
var namedTracers = map[string]bool{"callTracer": true, "prestateTracer": true}

// ErrGenesisNotTraceable is a trace of the genesis block, which has no
// parent state to run on.
var ErrGenesisNotTraceable = errors.New("genesis is not traceable")

// debugGroup returns the DEBUG methods on b.
func debugGroup(b *backend.Backend) rpctypes.Group {
	d := &Debug{b}
	return rpctypes.Group{Name: rpctypes.GroupDebug, Errors: jsonrpcError, Methods: []rpctypes.Method{
		{Name: "debug_traceTransaction", Fn: d.TraceTransaction, ParamErrors: []*rpctypes.Error{pTxHash, pTrace}},
		{Name: "debug_traceBlockByNumber", Fn: d.TraceBlockByNumber, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockNumberParams, pTrace}},
		{Name: "debug_traceBlockByHash", Fn: d.TraceBlockByHash, ParamErrors: []*rpctypes.Error{pBlockHash, pTrace}},
		{Name: "debug_traceCall", Fn: d.TraceCall, ParamErrors: []*rpctypes.Error{pCall, pBlock, pTrace},
			ParamDefaults: []json.RawMessage{1: json.RawMessage(`"latest"`)}},
		{Name: "debug_storageRangeAt", Fn: d.StorageRangeAt, ParamErrors: []*rpctypes.Error{pBlockHash,
			rpctypes.ErrInvalidTransactionIndexParams, rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidParams, rpctypes.ErrInvalidParams}},
		{Name: "debug_accountRange", Fn: d.AccountRange, ParamErrors: []*rpctypes.Error{pBlock,
			rpctypes.ErrInvalidTransactionIndexParams, rpctypes.ErrInvalidParams, rpctypes.ErrInvalidParams}},
		{Name: "debug_getRawHeader", Fn: d.GetRawHeader, ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "debug_getRawBlock", Fn: d.GetRawBlock, ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "debug_getRawReceipts", Fn: d.GetRawReceipts, ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "debug_getRawTransaction", Fn: d.GetRawTransaction, ParamErrors: []*rpctypes.Error{pTxHash}},
	}}
}

// TraceConfig is the options object of the debug_trace methods: Besu's
// disable* switches for the default struct logger (memory is captured
// unless disableMemory, or the execution-apis enableMemory: false, turns
// it off), the execution-apis enableReturnData and step limit, or a named
// tracer with its configuration. Other members (timeout, reexec) are
// accepted and ignored: the node's own timeout and state rebuilding apply.
type TraceConfig struct {
	DisableStorage   bool            `json:"disableStorage"`
	DisableMemory    bool            `json:"disableMemory"`
	DisableStack     bool            `json:"disableStack"`
	EnableMemory     *bool           `json:"enableMemory"`
	EnableReturnData bool            `json:"enableReturnData"`
	Limit            uint32          `json:"limit"`
	Tracer           string          `json:"tracer"`
	TracerConfig     json.RawMessage `json:"tracerConfig"`
}

// TraceCallConfig is debug_traceCall's options: a TraceConfig with state
// overrides.
type TraceCallConfig struct {
	TraceConfig
	StateOverrides *StateOverrides `json:"stateOverrides"`
}

// txTracer is one transaction's tracer and how to read its result.
type txTracer struct {
	hooks  *tracing.Hooks
	result func() (JSONChunks, error)
}

// newTracer makes the tracer cfg asks for; budget bounds its output.
func (d *Debug) newTracer(cfg *TraceConfig, budget *traceBudget, tctx *tracers.Context) (*txTracer, error) {
	if cfg == nil {
		cfg = &TraceConfig{}
	}
	if cfg.Tracer == "" {
		opts := structLogOptions{DisableStorage: cfg.DisableStorage, DisableStack: cfg.DisableStack,
			DisableMemory:    cfg.DisableMemory || (cfg.EnableMemory != nil && !*cfg.EnableMemory),
			EnableReturnData: cfg.EnableReturnData, Limit: int(cfg.Limit)}
		l := newStructLogger(opts, budget)
		return &txTracer{hooks: l.hooks(), result: l.result}, nil
	}
	if !namedTracers[cfg.Tracer] {
		return nil, backend.InvalidParams(backend.ParamTraceOptions, "unknown tracer %q (callTracer, prestateTracer)", cfg.Tracer)
	}
	t, err := tracers.DefaultDirectory.New(cfg.Tracer, tctx, cfg.TracerConfig, d.b.Chain.Config())
	if err != nil {
		return nil, backend.InvalidParams(backend.ParamTraceOptions, "%v", err)
	}
	return &txTracer{hooks: t.Hooks, result: func() (JSONChunks, error) {
		res, err := t.GetResult()
		if err != nil {
			return nil, err
		}
		if !budget.take(len(res)) {
			return nil, budget.check()
		}
		return JSONChunks{res}, nil
	}}, nil
}

// TraceTransaction is debug_traceTransaction: the transaction re-executed
// on the state it ran on, after the transactions before it in its block;
// null for a transaction the chain does not have (as Besu).
func (d *Debug) TraceTransaction(ctx context.Context, hash rpctypes.Hash, cfg *TraceConfig) (JSONChunks, error) {
	c := d.b.Chain
	tx, loc, ok := c.GetTransaction(common.Hash(hash))
	if !ok {
		return nil, nil
	}
	block := c.GetBlock(loc.BlockHash, loc.BlockNumber)
	if block == nil {
		return nil, nil
	}
	budget := newTraceBudget(d.b.Config.TraceLimit)
	t, err := d.newTracer(cfg, budget, &tracers.Context{BlockHash: loc.BlockHash, BlockNumber: block.Number(),
		TxIndex: int(loc.Index), TxHash: tx.Hash()})
	if err != nil {
		return nil, err
	}
	i := int(loc.Index)
	if err := d.replay(ctx, block, loc.BlockHash, i+1, map[int]*tracing.Hooks{i: t.hooks}); err != nil {
		return nil, err
	}
	return t.result()
}

// TraceBlockByNumber is debug_traceBlockByNumber: every transaction of the
// block traced, in order, each entry with its transaction hash.
func (d *Debug) TraceBlockByNumber(ctx context.Context, p rpctypes.BlockNumber, cfg *TraceConfig) (JSONChunks, error) {
	header, hash := headerForNumber(d.b, p)
	if header == nil {
		return nil, &backend.BlockNotFoundError{Number: p.Number}
	}
	return d.traceBlock(ctx, header, hash, cfg)
}

// TraceBlockByHash is debug_traceBlockByHash.
func (d *Debug) TraceBlockByHash(ctx context.Context, hash rpctypes.Hash, cfg *TraceConfig) (JSONChunks, error) {
	h := common.Hash(hash)
	header := d.b.Chain.GetHeaderByHash(h)
	if header == nil {
		return nil, &backend.BlockNotFoundError{Hash: &h}
	}
	return d.traceBlock(ctx, header, h, cfg)
}

func (d *Debug) traceBlock(ctx context.Context, header *types.Header, hash common.Hash, cfg *TraceConfig) (JSONChunks, error) {
	block := d.b.Chain.GetBlock(hash, header.Number.Uint64())
	if block == nil {
		return nil, &backend.BlockNotFoundError{Hash: &hash}
	}
	if block.NumberU64() == 0 {
		return nil, ErrGenesisNotTraceable
	}
	txs := block.Transactions()
	budget := newTraceBudget(d.b.Config.TraceLimit)
	tracersByTx := make([]*txTracer, len(txs))
	hooks := make(map[int]*tracing.Hooks, len(txs))
	for i, tx := range txs {
		t, err := d.newTracer(cfg, budget, &tracers.Context{BlockHash: hash, BlockNumber: block.Number(), TxIndex: i, TxHash: tx.Hash()})
		if err != nil {
			return nil, err
		}
		tracersByTx[i], hooks[i] = t, t.hooks
	}
	if len(txs) == 0 {
		return JSONChunks{[]byte("[]")}, nil
	}
	if err := d.replay(ctx, block, hash, len(txs), hooks); err != nil {
		return nil, err
	}
	// [{"txHash":…,"result":…},…] around the transactions' chunks.
	out := JSONChunks{}
	for i, t := range tracersByTx {
		res, err := t.result()
		if err != nil {
			return nil, err
		}
		open := `,{"txHash":"`
		if i == 0 {
			open = `[{"txHash":"`
		}
		out = append(out, []byte(open+txs[i].Hash().Hex()+`","result":`))
		out = append(out, res...)
		out = append(out, []byte("}"))
	}
	return append(out, []byte("]")), nil
}

// replay re-executes the first n transactions of block (engine hash hash)
// on its parent's post-state through the chain's block executor, handing
// each transaction's events to its tracer in byIndex. Only those n run:
// the block's end (withdrawals, rewards) follows them, after every traced
// transaction is over.
func (d *Debug) replay(ctx context.Context, block *types.Block, hash common.Hash, n int, byIndex map[int]*tracing.Hooks) error {
	st, err := d.parentState(block)
	if err != nil {
		return err
	}
	return d.replayOn(ctx, st, block, hash, n, byIndex)
}

// replayOn is replay on st, the parent's post-state, which it changes.
func (d *Debug) replayOn(ctx context.Context, st *state.StateDB, block *types.Block, hash common.Hash, n int, byIndex map[int]*tracing.Hooks) error {
	var proto *tracing.Hooks
	for _, h := range byIndex {
		proto = h
		break
	}
	sw := &txSwitch{tracers: byIndex}
	exec := d.b.Chain.Executor().With(chain.WithTracer(sw.hooks(proto)))
	prefix := types.NewBlockWithHeader(block.Header()).WithBody(types.Body{
		Transactions: block.Transactions()[:n],
		Uncles:       block.Uncles(),
		Withdrawals:  block.Withdrawals(),
	})
	if _, err := exec.Process(ctx, prefix, hash, st); err != nil {
		return fmt.Errorf("re-execute block %d: %w", block.NumberU64(), err)
	}
	return nil
}

// parentState opens a private copy of the post-state of block's parent,
// rebuilding it if the chain no longer keeps it.
func (d *Debug) parentState(block *types.Block) (*state.StateDB, error) {
	if block.NumberU64() == 0 {
		return nil, ErrGenesisNotTraceable
	}
	parentHash := block.ParentHash()
	parent := d.b.Chain.GetHeader(parentHash, block.NumberU64()-1)
	if parent == nil {
		return nil, backend.ErrWorldStateUnavailable
	}
	return d.b.StateOf(parent, parentHash)
}

// TraceCall is debug_traceCall: the call object run as eth_call runs it,
// on the state after the block, with the requested tracer.
func (d *Debug) TraceCall(ctx context.Context, args CallArgs, p BlockParam, cfg *TraceCallConfig) (JSONChunks, error) {
	header, hash, err := headerFor(d.b, p)
	if err != nil {
		return nil, err
	}
	if header == nil {
		return nil, &backend.BlockNotFoundError{Hash: p.Hash, Number: p.Number}
	}
	if cfg == nil {
		cfg = &TraceCallConfig{}
	}
	st, err := d.b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	t, err := d.newTracer(&cfg.TraceConfig, newTraceBudget(d.b.Config.TraceLimit), &tracers.Context{BlockHash: hash, BlockNumber: header.Number})
	if err != nil {
		return nil, err
	}
	msg := args.msg()
	sim := d.b.NewSimulation(header, st, backend.CallMode(msg, args.Strict, header), msg)
	sim.Once, sim.Tracer = true, t.hooks
	if cfg.StateOverrides != nil {
		sim.Override = backend.StateOverrides(*cfg.StateOverrides)
	}
	if _, err := sim.Run(ctx, d.b.CallGas(header, (*uint64)(args.Gas))); err != nil {
		return nil, err
	}
	return t.result()
}
