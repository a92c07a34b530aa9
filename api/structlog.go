package api

import (
	"encoding/hex"
	"errors"
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// structLogger is the default tracer of debug_traceTransaction and the
// other debug_trace methods: one entry per executed opcode, in the
// execution-apis StructLog shape that go-ethereum and current Besu write
// (gas numbers, 0x-prefixed quantities on the stack, 0x-prefixed 32-byte
// memory words and storage slots, storage on SLOAD and SSTORE steps holding
// the running contract's slots read or written so far in the transaction,
// refund when non-zero, error when the step fails), with the values
// go-ethereum's struct logger records.
//
// Entries are encoded as they happen into chunks, bounded by a byte budget
// shared by every transaction of a request: a trace that would pass it
// stops recording and the request fails with TraceTooLargeError, so a huge
// trace costs at most the budget, never the node's memory.
type structLogger struct {
	opts   structLogOptions
	budget *traceBudget
	env    *tracing.VMContext

	out     chunkWriter // the result so far: its opening and the entries
	entries int
	storage map[common.Address]map[common.Hash]common.Hash
	output  []byte
	err     error
	gasUsed uint64
}

// structLogOptions are the captures a request turns off or on, and its
// step limit (0: none; steps past it are not recorded).
type structLogOptions struct {
	DisableStorage, DisableMemory, DisableStack bool
	EnableReturnData                            bool
	Limit                                       int
}

// traceBudget is what is left of a request's trace size limit
// (--rpc-max-trace-size), in bytes; nil for no limit.
type traceBudget struct {
	left     int
	limit    int
	exceeded bool
}

// TraceTooLargeError is a trace larger than the node's limit.
type TraceTooLargeError struct{ Limit int }

// Error implements error.
func (e *TraceTooLargeError) Error() string {
	return "trace larger than the limit of " + strconv.Itoa(e.Limit) +
		" bytes (--rpc-max-trace-size); disable memory, stack or storage capture, or use callTracer"
}

// newTraceBudget returns the budget of a request under limit bytes (0: no
// limit).
func newTraceBudget(limit int) *traceBudget {
	if limit <= 0 {
		return nil
	}
	return &traceBudget{left: limit, limit: limit}
}

// take charges n bytes; false once the budget is spent.
func (b *traceBudget) take(n int) bool {
	if b == nil {
		return true
	}
	if b.exceeded || n > b.left {
		b.exceeded = true
		return false
	}
	b.left -= n
	return true
}

// check is the budget's verdict: TraceTooLargeError once exceeded.
func (b *traceBudget) check() error {
	if b != nil && b.exceeded {
		return &TraceTooLargeError{Limit: b.limit}
	}
	return nil
}

func newStructLogger(opts structLogOptions, budget *traceBudget) *structLogger {
	return &structLogger{opts: opts, budget: budget, storage: make(map[common.Address]map[common.Hash]common.Hash)}
}

// hooks are the logger's EVM hooks.
func (l *structLogger) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnTxStart: l.onTxStart,
		OnTxEnd:   l.onTxEnd,
		OnExit:    l.onExit,
		OnOpcode:  l.onOpcode,
	}
}

func (l *structLogger) onTxStart(env *tracing.VMContext, _ *types.Transaction, _ common.Address) {
	l.env = env
}

func (l *structLogger) onTxEnd(receipt *types.Receipt, err error) {
	if err != nil {
		if l.err == nil {
			l.err = err
		}
		return
	}
	if receipt != nil {
		l.gasUsed = receipt.GasUsed
	}
}

func (l *structLogger) onExit(depth int, output []byte, _ uint64, err error, _ bool) {
	if depth == 0 {
		l.output, l.err = output, err
	}
}

// appendWord appends w as a quoted 0x-prefixed 32-byte word.
func appendWord(dst []byte, w *[32]byte) []byte {
	dst = append(dst, '"', '0', 'x')
	n := len(dst)
	dst = append(dst, make([]byte, 64)...)
	hex.Encode(dst[n:], w[:])
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendQuantity appends v as a quoted 0x-prefixed quantity (no leading
// zeros), as uint256.Int.Hex does, without allocating.
func appendQuantity(dst []byte, v *uint256.Int) []byte {
	dst = append(dst, '"', '0', 'x')
	top := 3
	for top > 0 && v[top] == 0 {
		top--
	}
	dst = strconv.AppendUint(dst, v[top], 16)
	for i := top - 1; i >= 0; i-- { // lower limbs: 16 digits each
		var limb [16]byte
		x := v[i]
		for k := 15; k >= 0; k-- {
			limb[k] = hexDigits[x&0xf]
			x >>= 4
		}
		dst = append(dst, limb[:]...)
	}
	return append(dst, '"')
}

func (l *structLogger) onOpcode(pc uint64, opcode byte, gas, cost uint64, scope tracing.OpContext, rData []byte, depth int, err error) {
	if (l.budget != nil && l.budget.exceeded) || (l.opts.Limit > 0 && l.entries >= l.opts.Limit) {
		return
	}
	op := vm.OpCode(opcode)
	if l.entries == 0 && len(l.out.cur) == 0 && len(l.out.done) == 0 {
		l.out.write([]byte(`{"structLogs":[`))
	}
	b := l.out.buf()
	start := len(b)
	if l.entries > 0 {
		b = append(b, ',')
	}
	b = append(b, `{"pc":`...)
	b = strconv.AppendUint(b, pc, 10)
	b = append(b, `,"op":"`...)
	b = append(b, op.String()...)
	b = append(b, `","gas":`...)
	b = strconv.AppendUint(b, gas, 10)
	b = append(b, `,"gasCost":`...)
	b = strconv.AppendUint(b, cost, 10)
	b = append(b, `,"depth":`...)
	b = strconv.AppendInt(b, int64(depth), 10)
	if err != nil {
		b = append(b, `,"error":`...)
		b = strconv.AppendQuote(b, err.Error())
	}
	stack := scope.StackData()
	if !l.opts.DisableStack {
		b = append(b, `,"stack":[`...)
		for i := range stack {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuantity(b, &stack[i])
		}
		b = append(b, ']')
	}
	if l.opts.EnableReturnData && len(rData) > 0 {
		b = append(b, `,"returnData":"0x`...)
		b = hex.AppendEncode(b, rData)
		b = append(b, '"')
	}
	if mem := scope.MemoryData(); !l.opts.DisableMemory && len(mem) > 0 {
		b = append(b, `,"memory":[`...)
		for i := 0; i < len(mem); i += 32 {
			if i > 0 {
				b = append(b, ',')
			}
			var w [32]byte
			copy(w[:], mem[i:min(i+32, len(mem))])
			b = appendWord(b, &w)
		}
		b = append(b, ']')
	}
	// A step that halts with an error does not execute its opcode, so it
	// records no storage (as go-ethereum's logger).
	if !l.opts.DisableStorage && err == nil && (op == vm.SLOAD || op == vm.SSTORE) {
		if slots := l.recordStorage(op, scope.Address(), stack); slots != nil {
			b = append(b, `,"storage":{`...)
			keys := make([]common.Hash, 0, len(slots))
			for k := range slots {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(x, y common.Hash) int { return x.Cmp(y) })
			for i, k := range keys {
				if i > 0 {
					b = append(b, ',')
				}
				kw, vw := [32]byte(k), [32]byte(slots[k])
				b = appendWord(b, &kw)
				b = append(b, ':')
				b = appendWord(b, &vw)
			}
			b = append(b, '}')
		}
	}
	if refund := l.env.StateDB.GetRefund(); refund != 0 {
		b = append(b, `,"refund":`...)
		b = strconv.AppendUint(b, refund, 10)
	}
	b = append(b, '}')
	if !l.budget.take(len(b) - start) {
		l.out.cur = b[:start] // the entry that passed the limit is dropped
		return
	}
	l.out.set(b)
	l.entries++
}

// recordStorage notes the slot an SLOAD reads or an SSTORE writes and
// returns the contract's slots seen so far; nil when the stack is short.
func (l *structLogger) recordStorage(op vm.OpCode, addr common.Address, stack []uint256.Int) map[common.Hash]common.Hash {
	n := len(stack)
	slots := l.storage[addr]
	if slots == nil {
		slots = make(map[common.Hash]common.Hash)
		l.storage[addr] = slots
	}
	switch {
	case op == vm.SLOAD && n >= 1:
		key := common.Hash(stack[n-1].Bytes32())
		slots[key] = l.env.StateDB.GetState(addr, key)
	case op == vm.SSTORE && n >= 2:
		slots[common.Hash(stack[n-1].Bytes32())] = common.Hash(stack[n-2].Bytes32())
	default:
		return nil
	}
	return slots
}

// result is the Trace object: gas used, whether the transaction failed,
// its return value (the revert data of a reverted one, "0x" after any
// other failure) and the struct logs. The entries come first, so that the
// chunks written during the run are the result as they are (JSON members
// have no order).
func (l *structLogger) result() (JSONChunks, error) {
	if err := l.budget.check(); err != nil {
		return nil, err
	}
	failed := l.err != nil
	ret := l.output
	if failed && !errors.Is(l.err, vm.ErrExecutionReverted) {
		ret = nil
	}
	if l.entries == 0 && len(l.out.cur) == 0 && len(l.out.done) == 0 {
		l.out.write([]byte(`{"structLogs":[`))
	}
	tail := make([]byte, 0, 96+2*len(ret))
	tail = append(tail, `],"gas":`...)
	tail = strconv.AppendUint(tail, l.gasUsed, 10)
	tail = append(tail, `,"failed":`...)
	tail = strconv.AppendBool(tail, failed)
	tail = append(tail, `,"returnValue":"0x`...)
	tail = hex.AppendEncode(tail, ret)
	tail = append(tail, `"}`...)
	l.out.write(tail)
	return l.out.chunks(), nil
}
