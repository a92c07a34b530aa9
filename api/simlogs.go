package api

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// TransferLogAddress is the ERC-7528 address that eth_simulateV1's
// traceTransfers names as the emitter of its ether transfer logs.
var TransferLogAddress = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")

// transferTopic is keccak256("Transfer(address,address,uint256)"), the
// ERC-20 event the transfer logs mimic.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// simLogs collects the logs of one simulated call as the call's frames
// emit them, dropping the logs of a frame that reverts with the frame, and,
// when transfers is set, adding an ERC-7528 log for every ether transfer
// (calls and creations with value; DELEGATECALL and CALLCODE move none) at
// the point it happens, so the transfer logs interleave with the contract
// logs in execution order.
type simLogs struct {
	transfers bool
	frames    [][]*types.Log
	done      []*types.Log // the finished call's logs
}

func (l *simLogs) hooks() *tracing.Hooks {
	return &tracing.Hooks{OnEnter: l.onEnter, OnExit: l.onExit, OnLog: l.onLog}
}

// reset prepares for the next call.
func (l *simLogs) reset() { l.frames, l.done = l.frames[:0], nil }

func (l *simLogs) onEnter(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
	l.frames = append(l.frames, nil)
	op := vm.OpCode(typ)
	if l.transfers && value != nil && value.Sign() > 0 && op != vm.DELEGATECALL && op != vm.CALLCODE {
		l.add(&types.Log{
			Address: TransferLogAddress,
			Topics:  []common.Hash{transferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())},
			Data:    common.BigToHash(value).Bytes(),
		})
	}
}

func (l *simLogs) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	if len(l.frames) == 0 {
		return
	}
	top := l.frames[len(l.frames)-1]
	l.frames = l.frames[:len(l.frames)-1]
	if reverted {
		top = nil
	}
	if len(l.frames) == 0 {
		l.done = top
		return
	}
	l.frames[len(l.frames)-1] = append(l.frames[len(l.frames)-1], top...)
}

func (l *simLogs) onLog(log *types.Log) {
	// The state assigned the block fields; the collector keeps a copy of
	// its own so that renumbering does not touch the receipt's log.
	cp := *log
	l.add(&cp)
}

func (l *simLogs) add(log *types.Log) {
	if len(l.frames) == 0 {
		return
	}
	l.frames[len(l.frames)-1] = append(l.frames[len(l.frames)-1], log)
}
