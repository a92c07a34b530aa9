package api

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
)

// txSwitch routes the EVM events of a block being re-executed to the
// tracer of the transaction running, if that transaction has one: the
// block executor takes one set of hooks for the whole block (pre-block
// system calls included), while each traced transaction gets a fresh
// tracer of its own. Events outside a traced transaction go nowhere.
type txSwitch struct {
	tracers map[int]*tracing.Hooks // by transaction index
	next    int                    // index of the next transaction to start
	cur     *tracing.Hooks
}

func (s *txSwitch) onTxStart(env *tracing.VMContext, tx *types.Transaction, from common.Address) {
	s.cur = s.tracers[s.next]
	s.next++
	if s.cur != nil && s.cur.OnTxStart != nil {
		s.cur.OnTxStart(env, tx, from)
	}
}

func (s *txSwitch) onTxEnd(receipt *types.Receipt, err error) {
	if s.cur != nil && s.cur.OnTxEnd != nil {
		s.cur.OnTxEnd(receipt, err)
	}
	s.cur = nil
}

// hooks returns the switch's hooks. Every tracer of one request is of one
// kind, so proto (any of them) says which hooks to install: the EVM calls
// only the V2 hook of a pair when both are set, so installing exactly the
// tracer's own keeps its semantics.
func (s *txSwitch) hooks(proto *tracing.Hooks) *tracing.Hooks {
	h := &tracing.Hooks{OnTxStart: s.onTxStart, OnTxEnd: s.onTxEnd}
	if proto.OnEnter != nil {
		h.OnEnter = func(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
			if s.cur != nil {
				s.cur.OnEnter(depth, typ, from, to, input, gas, value)
			}
		}
	}
	if proto.OnEnterV2 != nil {
		h.OnEnterV2 = func(depth int, typ byte, from, to common.Address, input []byte, gas tracing.Gas, value *big.Int) {
			if s.cur != nil {
				s.cur.OnEnterV2(depth, typ, from, to, input, gas, value)
			}
		}
	}
	if proto.OnExit != nil {
		h.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			if s.cur != nil {
				s.cur.OnExit(depth, output, gasUsed, err, reverted)
			}
		}
	}
	if proto.OnExitV2 != nil {
		h.OnExitV2 = func(depth int, output []byte, gasLeft tracing.Gas, err error, reverted bool) {
			if s.cur != nil {
				s.cur.OnExitV2(depth, output, gasLeft, err, reverted)
			}
		}
	}
	if proto.OnOpcode != nil {
		h.OnOpcode = func(pc uint64, op byte, gas, cost uint64, scope tracing.OpContext, rData []byte, depth int, err error) {
			if s.cur != nil {
				s.cur.OnOpcode(pc, op, gas, cost, scope, rData, depth, err)
			}
		}
	}
	if proto.OnOpcodeV2 != nil {
		h.OnOpcodeV2 = func(pc uint64, op byte, gas, cost tracing.Gas, scope tracing.OpContext, rData []byte, depth int, err error) {
			if s.cur != nil {
				s.cur.OnOpcodeV2(pc, op, gas, cost, scope, rData, depth, err)
			}
		}
	}
	if proto.OnFault != nil {
		h.OnFault = func(pc uint64, op byte, gas, cost uint64, scope tracing.OpContext, depth int, err error) {
			if s.cur != nil {
				s.cur.OnFault(pc, op, gas, cost, scope, depth, err)
			}
		}
	}
	if proto.OnFaultV2 != nil {
		h.OnFaultV2 = func(pc uint64, op byte, gas, cost tracing.Gas, scope tracing.OpContext, depth int, err error) {
			if s.cur != nil {
				s.cur.OnFaultV2(pc, op, gas, cost, scope, depth, err)
			}
		}
	}
	if proto.OnGasChange != nil {
		h.OnGasChange = func(old, new uint64, reason tracing.GasChangeReason) {
			if s.cur != nil {
				s.cur.OnGasChange(old, new, reason)
			}
		}
	}
	if proto.OnGasChangeV2 != nil {
		h.OnGasChangeV2 = func(old, new tracing.Gas, reason tracing.GasChangeReason) {
			if s.cur != nil {
				s.cur.OnGasChangeV2(old, new, reason)
			}
		}
	}
	s.stateHooks(proto, h)
	return h
}

// stateHooks installs the state-change hooks of proto on h.
func (s *txSwitch) stateHooks(proto, h *tracing.Hooks) {
	if proto.OnBalanceChange != nil {
		h.OnBalanceChange = func(addr common.Address, prev, new *big.Int, reason tracing.BalanceChangeReason) {
			if s.cur != nil {
				s.cur.OnBalanceChange(addr, prev, new, reason)
			}
		}
	}
	if proto.OnNonceChange != nil {
		h.OnNonceChange = func(addr common.Address, prev, new uint64) {
			if s.cur != nil {
				s.cur.OnNonceChange(addr, prev, new)
			}
		}
	}
	if proto.OnNonceChangeV2 != nil {
		h.OnNonceChangeV2 = func(addr common.Address, prev, new uint64, reason tracing.NonceChangeReason) {
			if s.cur != nil {
				s.cur.OnNonceChangeV2(addr, prev, new, reason)
			}
		}
	}
	if proto.OnCodeChange != nil {
		h.OnCodeChange = func(addr common.Address, prevHash common.Hash, prev []byte, hash common.Hash, code []byte) {
			if s.cur != nil {
				s.cur.OnCodeChange(addr, prevHash, prev, hash, code)
			}
		}
	}
	if proto.OnCodeChangeV2 != nil {
		h.OnCodeChangeV2 = func(addr common.Address, prevHash common.Hash, prev []byte, hash common.Hash, code []byte, reason tracing.CodeChangeReason) {
			if s.cur != nil {
				s.cur.OnCodeChangeV2(addr, prevHash, prev, hash, code, reason)
			}
		}
	}
	if proto.OnStorageChange != nil {
		h.OnStorageChange = func(addr common.Address, slot, prev, new common.Hash) {
			if s.cur != nil {
				s.cur.OnStorageChange(addr, slot, prev, new)
			}
		}
	}
	if proto.OnLog != nil {
		h.OnLog = func(l *types.Log) {
			if s.cur != nil {
				s.cur.OnLog(l)
			}
		}
	}
	if proto.OnBlockHashRead != nil {
		h.OnBlockHashRead = func(n uint64, hash common.Hash) {
			if s.cur != nil {
				s.cur.OnBlockHashRead(n, hash)
			}
		}
	}
}
