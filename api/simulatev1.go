package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// eth_simulateV1 (execution-apis src/eth/execute.yaml): a sequence of
// blocks, each with optional block and state overrides and a list of
// calls, run on the state of a chosen block through the chain's executor
// (chain.Executor.Simulate), each call seeing what the calls before it
// changed.

// simTimestampStep is how far a simulated block's time moves past its
// parent's when not overridden (go-ethereum's twelve-second slot).
const simTimestampStep = 12

// The spec's eth_simulateV1 error codes.
const (
	CodeSimNonceTooLow         = -38010
	CodeSimNonceTooHigh        = -38011
	CodeSimBaseFeeTooLow       = -38012
	CodeSimIntrinsicGas        = -38013
	CodeSimInsufficientFunds   = -38014
	CodeSimBlockGasLimit       = -38015
	CodeSimBlockNumberOrder    = -38020
	CodeSimBlockTimestampOrder = -38021
	CodeSimMoveToItself        = -38022
	CodeSimSenderNotEOA        = -38024
	CodeSimInitCodeTooLarge    = -38025
	CodeSimClientLimit         = -38026
	codeSimInvalidParams       = -32602
	codeSimInvalidRequest      = -32000
	codeSimInternal            = -32603
	codeSimVMError             = -32015
	codeSimReverted            = 3
)

// SpecError is a failure with the code the execution-apis specification
// gives it (eth_simulateV1's -380xx, eth_getStorageValues' limits).
type SpecError struct {
	Code    int
	Message string
}

func (e *SpecError) Error() string { return e.Message }

func simErr(code int, format string, args ...any) *SpecError {
	return &SpecError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// SimulatePayload is eth_simulateV1's first parameter.
type SimulatePayload struct {
	BlockStateCalls        []SimBlockCalls
	TraceTransfers         bool
	Validation             bool
	ReturnFullTransactions bool
}

// UnmarshalJSON implements json.Unmarshaler; blockStateCalls is required.
func (p *SimulatePayload) UnmarshalJSON(data []byte) error {
	var raw struct {
		BlockStateCalls        *[]SimBlockCalls `json:"blockStateCalls"`
		TraceTransfers         *bool            `json:"traceTransfers"`
		Validation             *bool            `json:"validation"`
		ReturnFullTransactions *bool            `json:"returnFullTransactions"`
		// The name some clients' documentation uses.
		ReturnFullTransactionObjects *bool `json:"returnFullTransactionObjects"`
	}
	if err := json.Unmarshal(data, &raw); err != nil || raw.BlockStateCalls == nil {
		return errBadParam
	}
	*p = SimulatePayload{BlockStateCalls: *raw.BlockStateCalls}
	p.TraceTransfers = raw.TraceTransfers != nil && *raw.TraceTransfers
	p.Validation = raw.Validation != nil && *raw.Validation
	p.ReturnFullTransactions = raw.ReturnFullTransactions != nil && *raw.ReturnFullTransactions ||
		raw.ReturnFullTransactionObjects != nil && *raw.ReturnFullTransactionObjects
	return nil
}

// SimBlockCalls is one block of eth_simulateV1.
type SimBlockCalls struct {
	BlockOverrides *SimBlockOverrides `json:"blockOverrides"`
	StateOverrides StateOverrides     `json:"stateOverrides"`
	Calls          []CallArgs         `json:"calls"`
}

// SimBlockOverrides are the header fields a simulated block may set.
type SimBlockOverrides struct {
	Number        *hexutil.Big       `json:"number"`
	PrevRandao    *Word              `json:"prevRandao"`
	Time          *hexutil.Uint64    `json:"time"`
	GasLimit      *hexutil.Uint64    `json:"gasLimit"`
	FeeRecipient  *common.Address    `json:"feeRecipient"`
	BaseFeePerGas *hexutil.Big       `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big       `json:"blobBaseFee"`
	Withdrawals   *types.Withdrawals `json:"withdrawals"`
	BeaconRoot    *common.Hash       `json:"beaconRoot"`
}

// UnmarshalJSON implements json.Unmarshaler; an unknown field is refused,
// so that a misspelt override is not silently ignored.
func (o *SimBlockOverrides) UnmarshalJSON(data []byte) error {
	type plain SimBlockOverrides
	var p plain
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return errBadParam
	}
	for _, b := range []*hexutil.Big{p.Number, p.BaseFeePerGas, p.BlobBaseFee} {
		if b != nil && (b.ToInt().Sign() < 0 || b.ToInt().BitLen() > 256) {
			return errBadParam
		}
	}
	if p.Number != nil && !p.Number.ToInt().IsUint64() {
		return errBadParam
	}
	*o = SimBlockOverrides(p)
	return nil
}

// Word is a 32-byte value given as a hash (zero-padded) or as a quantity
// (prevRandao: the spec types it uint256, clients send a hash).
type Word common.Hash

// UnmarshalJSON implements json.Unmarshaler: read as a storage key is.
func (w *Word) UnmarshalJSON(data []byte) error {
	return (*StorageKey)(w).UnmarshalJSON(data)
}

// SimCallResult is the outcome of one simulated call.
type SimCallResult struct {
	ReturnData hexutil.Bytes  `json:"returnData"`
	Logs       []*types.Log   `json:"logs"`
	GasUsed    hexutil.Uint64 `json:"gasUsed"`
	MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
	Status     hexutil.Uint64 `json:"status"`
	Error      *SimCallError  `json:"error,omitempty"`
}

// SimCallError is why a simulated call failed: 3 for a revert (with the
// revert data), -32015 for an exceptional halt.
type SimCallError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

// SimBlockResult is a simulated block: the block object and its calls.
type SimBlockResult struct {
	*BlockJSON
	Calls []SimCallResult `json:"calls"`
}

// SimulateV1 is eth_simulateV1.
func (e *Eth) SimulateV1(ctx context.Context, payload SimulatePayload, p BlockParam) ([]*SimBlockResult, error) {
	base, baseHash, err := headerFor(e.b, p)
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, &backend.BlockNotFoundError{Hash: p.Hash, Number: p.Number}
	}
	st, err := e.b.StateOf(base, baseHash)
	if err != nil {
		return nil, err
	}
	s := &multiSim{
		b: e.b, c: e.b.Chain, cfg: e.b.Chain.Config(), st: st,
		base: base, baseHash: baseHash, opts: &payload,
		budget:  e.b.SimulateGasCap(),
		headers: map[common.Hash]*types.Header{},
		byNum:   map[uint64]*types.Header{},
	}
	plan, err := s.plan(payload.BlockStateCalls, e.b.SimulateMaxBlocks())
	if err != nil {
		return nil, err
	}
	out := make([]*SimBlockResult, 0, len(plan))
	parent, parentHash := base, baseHash
	for _, pb := range plan {
		res, header, hash, err := s.block(ctx, pb, parent, parentHash)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		parent, parentHash = header, hash
	}
	return out, nil
}

// multiSim is one eth_simulateV1 request in progress.
type multiSim struct {
	b        *backend.Backend
	c        *chain.Chain
	cfg      *params.ChainConfig
	st       *state.StateDB
	base     *types.Header
	baseHash common.Hash
	opts     *SimulatePayload
	budget   uint64 // gas the remaining calls may use together
	// The simulated blocks so far, for BLOCKHASH.
	headers map[common.Hash]*types.Header
	byNum   map[uint64]*types.Header
}

// plannedBlock is a block to simulate: one asked for, or an empty one
// filling a gap in the numbers.
type plannedBlock struct {
	calls  *SimBlockCalls // nil for a gap
	number uint64
	time   uint64
}

// plan numbers and times the blocks: a block without a number follows its
// parent, one without a time comes 12 seconds after it; numbers must grow
// and times strictly grow (the spec's -38020 and -38021); a gap in the
// numbers is filled with empty blocks; no block may lie more than maxBlocks
// past the base block (-38026).
func (s *multiSim) plan(blocks []SimBlockCalls, maxBlocks uint64) ([]plannedBlock, error) {
	if uint64(len(blocks)) > maxBlocks {
		return nil, simErr(CodeSimClientLimit, "too many blocks")
	}
	baseNum := s.base.Number.Uint64()
	prevNum, prevTime := baseNum, s.base.Time
	var out []plannedBlock
	for i := range blocks {
		bc := &blocks[i]
		ov := bc.BlockOverrides
		if ov == nil {
			ov = &SimBlockOverrides{}
		}
		num := prevNum + 1
		if ov.Number != nil {
			num = ov.Number.ToInt().Uint64()
		}
		if num <= prevNum {
			return nil, simErr(CodeSimBlockNumberOrder, "block numbers must be in order: %d <= %d", num, prevNum)
		}
		if num-baseNum > maxBlocks {
			return nil, simErr(CodeSimClientLimit, "too many blocks")
		}
		for n := prevNum + 1; n < num; n++ {
			prevTime += simTimestampStep
			out = append(out, plannedBlock{number: n, time: prevTime})
		}
		t := prevTime + simTimestampStep
		if ov.Time != nil {
			t = uint64(*ov.Time)
			if t <= prevTime {
				return nil, simErr(CodeSimBlockTimestampOrder, "block timestamps must be in order: %d <= %d", t, prevTime)
			}
		}
		out = append(out, plannedBlock{calls: bc, number: num, time: t})
		prevNum, prevTime = num, t
	}
	return out, nil
}

// header makes the header of pb, a child of parent, before execution.
func (s *multiSim) header(pb plannedBlock, parent *types.Header, parentHash common.Hash) *types.Header {
	var ov SimBlockOverrides
	if pb.calls != nil && pb.calls.BlockOverrides != nil {
		ov = *pb.calls.BlockOverrides
	}
	h := &types.Header{
		ParentHash: parentHash,
		UncleHash:  types.EmptyUncleHash,
		Coinbase:   parent.Coinbase,
		Number:     new(big.Int).SetUint64(pb.number),
		Time:       pb.time,
		GasLimit:   parent.GasLimit,
		Difficulty: new(big.Int).Set(parent.Difficulty),
		Extra:      []byte{},
	}
	if ov.FeeRecipient != nil {
		h.Coinbase = *ov.FeeRecipient
	}
	if ov.GasLimit != nil {
		h.GasLimit = uint64(*ov.GasLimit)
	}
	if ov.PrevRandao != nil {
		h.MixDigest = common.Hash(*ov.PrevRandao)
	}
	if s.cfg.IsLondon(h.Number) {
		switch {
		case ov.BaseFeePerGas != nil:
			h.BaseFee = new(big.Int).Set(ov.BaseFeePerGas.ToInt())
		case s.opts.Validation:
			h.BaseFee = feemarket.CalcBaseFee(s.cfg, parent)
		default:
			// Without validation calls name no price and must not fail on
			// one: the base fee reads zero unless overridden.
			h.BaseFee = new(big.Int)
		}
	}
	if s.cfg.IsCancun(h.Number, h.Time) {
		var excess uint64
		if s.cfg.IsCancun(parent.Number, parent.Time) {
			excess = eip4844.CalcExcessBlobGas(s.cfg, parent, h.Time)
		}
		h.ExcessBlobGas = &excess
		root := common.Hash{}
		if ov.BeaconRoot != nil {
			root = *ov.BeaconRoot
		}
		h.ParentBeaconRoot = &root
	}
	return h
}

// block simulates one planned block on s.st and returns its result, its
// completed header and its hash.
func (s *multiSim) block(ctx context.Context, pb plannedBlock, parent *types.Header, parentHash common.Hash) (*SimBlockResult, *types.Header, common.Hash, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, common.Hash{}, err
	}
	exec := s.c.Executor()
	h := s.header(pb, parent, parentHash)
	rules := chain.Rules(s.cfg, h)
	calls := &SimBlockCalls{}
	if pb.calls != nil {
		calls = pb.calls
	}
	precompiles := exec.Precompiles(h)
	if err := simApplyOverrides(s.st, backend.StateOverrides(calls.StateOverrides), precompiles); err != nil {
		return nil, nil, common.Hash{}, err
	}
	logs := &simLogs{transfers: s.opts.TraceTransfers && !rules.IsAmsterdam}
	opts := chain.SimOptions{Tracer: logs.hooks(), Precompiles: precompiles, NoBaseFee: !s.opts.Validation, Ancestors: s}
	if ov := calls.BlockOverrides; ov != nil && ov.BlobBaseFee != nil {
		opts.BlobBaseFee = ov.BlobBaseFee.ToInt()
	}
	if ov := calls.BlockOverrides; ov != nil && ov.PrevRandao != nil {
		opts.Random = &h.MixDigest
	}
	blk := exec.Simulate(h, s.st, opts)
	defer blk.Release()

	results := make([]SimCallResult, len(calls.Calls))
	senders := make([]common.Address, len(calls.Calls))
	var (
		callLogs [][]*types.Log
		logIndex uint
	)
	for i := range calls.Calls {
		if err := ctx.Err(); err != nil {
			return nil, nil, common.Hash{}, err
		}
		msg, tx, err := s.message(&calls.Calls[i], h, blk.GasLeft())
		if err != nil {
			return nil, nil, common.Hash{}, err
		}
		senders[i] = msg.From
		logs.reset()
		res, _, err := blk.Apply(ctx, msg, tx)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, common.Hash{}, err
		}
		if err != nil {
			return nil, nil, common.Hash{}, simTxError(err, msg)
		}
		s.budget -= min(s.budget, res.UsedGas)
		r := SimCallResult{
			ReturnData: res.Return(),
			GasUsed:    hexutil.Uint64(res.UsedGas),
			MaxUsedGas: hexutil.Uint64(res.MaxUsedGas),
			Status:     hexutil.Uint64(types.ReceiptStatusSuccessful),
			Logs:       []*types.Log{},
		}
		if r.ReturnData == nil {
			r.ReturnData = hexutil.Bytes{}
		}
		if res.Failed() {
			r.Status = hexutil.Uint64(types.ReceiptStatusFailed)
			// The revert data is the error's data; returnData is empty,
			// as in the spec's examples.
			r.Error = simCallError(res)
		} else {
			for _, l := range logs.done {
				l.BlockNumber = pb.number
				l.BlockTimestamp = pb.time
				l.TxHash = tx.Hash()
				l.TxIndex = uint(i)
				l.Index = logIndex
				logIndex++
				r.Logs = append(r.Logs, l)
			}
		}
		callLogs = append(callLogs, r.Logs)
		results[i] = r
	}
	var withdrawals types.Withdrawals
	shanghai := s.cfg.IsShanghai(h.Number, h.Time)
	if shanghai {
		withdrawals = types.Withdrawals{}
		if ov := calls.BlockOverrides; ov != nil && ov.Withdrawals != nil {
			withdrawals = *ov.Withdrawals
		}
	}
	done, err := blk.Finish(ctx, withdrawals)
	if err != nil {
		return nil, nil, common.Hash{}, err
	}
	h.GasUsed = done.GasUsed
	if h.ExcessBlobGas != nil {
		var blobGas uint64
		for _, r := range done.Receipts {
			blobGas += r.BlobGasUsed
		}
		h.BlobGasUsed = &blobGas
	}
	if s.cfg.IsPrague(h.Number, h.Time) {
		rh := types.CalcRequestsHash(done.Requests)
		h.RequestsHash = &rh
	}
	h.Root = s.st.IntermediateRoot(rules)
	body := &types.Body{Transactions: done.Txs}
	if shanghai {
		body.Withdrawals = withdrawals
	}
	block := types.NewBlock(h, body, done.Receipts, trie.NewStackTrie(nil))
	header := block.Header()
	hash := s.c.Hash(header)
	s.headers[hash] = header
	s.byNum[pb.number] = header
	for _, ls := range callLogs {
		for _, l := range ls {
			l.BlockHash = hash
		}
	}
	return s.render(block, header, hash, senders, results), header, hash, nil
}

// render writes a simulated block as the spec's block object with calls.
func (s *multiSim) render(block *types.Block, header *types.Header, hash common.Hash, senders []common.Address, calls []SimCallResult) *SimBlockResult {
	out := headerJSON(header, hash, nil)
	out.Size = hexutil.Uint64(block.Size())
	txs := block.Transactions()
	out.Transactions = make([]any, len(txs))
	for i, tx := range txs {
		if !s.opts.ReturnFullTransactions {
			out.Transactions[i] = tx.Hash()
			continue
		}
		j := txJSON(s.cfg, tx, &TxContext{BlockHash: hash, Header: header, Index: uint64(i)})
		j.From = senders[i] // unsigned: the sender is the call's
		out.Transactions[i] = j
	}
	if out.WithdrawalsRoot != nil {
		w := block.Withdrawals()
		if w == nil {
			w = types.Withdrawals{}
		}
		out.Withdrawals = &w
	}
	return &SimBlockResult{BlockJSON: out, Calls: calls}
}

// Config, GetHeader and GetHeaderByNumber make the simulation the chain
// BLOCKHASH reads: the simulated blocks, then the chain's.

// Config is the chain's fork configuration.
func (s *multiSim) Config() *params.ChainConfig { return s.cfg }

// GetHeader returns a simulated block's header or the chain's.
func (s *multiSim) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h, ok := s.headers[hash]; ok {
		return h
	}
	return s.c.GetHeader(hash, number)
}

// GetHeaderByNumber returns a simulated block's header or the chain's
// canonical one up to the base block.
func (s *multiSim) GetHeaderByNumber(number uint64) *types.Header {
	if h, ok := s.byNum[number]; ok {
		return h
	}
	if number > s.base.Number.Uint64() {
		return nil
	}
	return s.c.GetHeaderByNumber(number)
}
