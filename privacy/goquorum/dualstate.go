package goquorum

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// dualState is the world a GoQuorum private transaction runs in, as
// GoQuorum 24.4.1's EVM sees it (core/vm/evm.go getDualState, Push, Pop;
// reference/goquorum-privacy.md §2): every call frame runs on one state,
// chosen when the frame is entered:
//
//   - a call to an address that exists in the private state runs on the
//     private state;
//   - else a call to one that exists in the public state runs on the
//     public state, read-only, and so does every frame below it;
//   - else (and for a creation) the frame keeps its caller's state; the
//     transaction itself starts on the private state.
//
// Everything a frame reads (balances, code, storage) comes from its own
// state only: a private contract sees a public account's balance as zero,
// as on GoQuorum. A contract creation made by the transaction itself takes
// its address from the sender's public nonce (which only the public state
// advances, by the executor), a nested one from the creator's private
// nonce.
//
// The frames are followed through the EVM's tracer hooks (OnEnter, OnExit),
// which go-ethereum calls as a frame starts, before it snapshots its state,
// and as it ends, after reverting it. GoQuorum's interpreter fails a write
// (SSTORE, LOG, CREATE, SELFDESTRUCT, a value transfer) in a read-only
// frame, which go-ethereum's EVM cannot be told to do; here the write is
// dropped and the transaction marked (violated), and its caller fails the
// whole private transaction instead.
type dualState struct {
	private, public *state.StateDB
	sender          common.Address
	senderNonce     uint64 // the sender's public nonce, before the transaction
	frames          []frame
	violated        bool
}

type frame struct {
	st       *state.StateDB
	readOnly bool
}

func newDualState(private, public *state.StateDB, sender common.Address, senderNonce uint64) *dualState {
	return &dualState{private: private, public: public, sender: sender, senderNonce: senderNonce}
}

// hooks are the tracer hooks that follow the frames.
func (d *dualState) hooks() *tracing.Hooks {
	return &tracing.Hooks{OnEnter: d.enter, OnExit: d.exit}
}

func (d *dualState) top() frame {
	if len(d.frames) == 0 {
		return frame{st: d.private}
	}
	return d.frames[len(d.frames)-1]
}

func (d *dualState) cur() *state.StateDB { return d.top().st }

func (d *dualState) enter(_ int, typ byte, _, to common.Address, _ []byte, _ uint64, _ *big.Int) {
	parent := d.top()
	f := parent
	switch vm.OpCode(typ) {
	case vm.CALL, vm.CALLCODE, vm.DELEGATECALL, vm.STATICCALL:
		switch {
		case d.private.Exist(to):
			f.st = d.private
		case d.public.Exist(to):
			f.st = d.public
		}
	}
	f.readOnly = parent.readOnly || f.st != d.private
	d.frames = append(d.frames, f)
}

func (d *dualState) exit(int, []byte, uint64, error, bool) {
	if len(d.frames) > 0 {
		d.frames = d.frames[:len(d.frames)-1]
	}
}

// write reports whether a write may reach the current frame's state; in a
// read-only frame it marks the transaction instead.
func (d *dualState) write() bool {
	if d.top().readOnly {
		d.violated = true
		return false
	}
	return true
}

// topLevelSender reports whether a nonce of addr is the transaction's own
// (the sender's, at the transaction's level or its creation frame).
func (d *dualState) topLevelSender(addr common.Address) bool {
	return addr == d.sender && len(d.frames) <= 1
}

func (d *dualState) CreateAccount(a common.Address) {
	if d.write() {
		d.cur().CreateAccount(a)
	}
}

func (d *dualState) CreateContract(a common.Address) {
	if d.write() {
		d.cur().CreateContract(a)
	}
}

func (d *dualState) SubBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	if v.IsZero() {
		return *d.cur().GetBalance(a)
	}
	if !d.write() {
		return *d.cur().GetBalance(a)
	}
	return d.cur().SubBalance(a, v, r)
}

func (d *dualState) AddBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	if v.IsZero() && d.top().readOnly {
		return *d.cur().GetBalance(a)
	}
	if !d.write() {
		return *d.cur().GetBalance(a)
	}
	return d.cur().AddBalance(a, v, r)
}

func (d *dualState) GetBalance(a common.Address) *uint256.Int { return d.cur().GetBalance(a) }

func (d *dualState) GetNonce(a common.Address) uint64 {
	if d.topLevelSender(a) {
		return d.senderNonce
	}
	return d.cur().GetNonce(a)
}

func (d *dualState) SetNonce(a common.Address, n uint64, r tracing.NonceChangeReason) {
	if d.topLevelSender(a) {
		return // the public nonce: the executor's
	}
	if d.write() {
		d.cur().SetNonce(a, n, r)
	}
}

func (d *dualState) GetCodeHash(a common.Address) common.Hash { return d.cur().GetCodeHash(a) }
func (d *dualState) GetCode(a common.Address) []byte          { return d.cur().GetCode(a) }
func (d *dualState) GetCodeSize(a common.Address) int         { return d.cur().GetCodeSize(a) }

func (d *dualState) SetCode(a common.Address, code []byte, r tracing.CodeChangeReason) []byte {
	if !d.write() {
		return d.cur().GetCode(a)
	}
	return d.cur().SetCode(a, code, r)
}

func (d *dualState) AddRefund(g uint64) { d.private.AddRefund(g) }
func (d *dualState) SubRefund(g uint64) { d.private.SubRefund(g) }
func (d *dualState) GetRefund() uint64  { return d.private.GetRefund() }

func (d *dualState) GetStateAndCommittedState(a common.Address, k common.Hash) (common.Hash, common.Hash) {
	return d.cur().GetStateAndCommittedState(a, k)
}

func (d *dualState) GetState(a common.Address, k common.Hash) common.Hash {
	return d.cur().GetState(a, k)
}

func (d *dualState) SetState(a common.Address, k, v common.Hash) common.Hash {
	if !d.write() {
		return d.cur().GetState(a, k)
	}
	return d.cur().SetState(a, k, v)
}

func (d *dualState) GetTransientState(a common.Address, k common.Hash) common.Hash {
	return d.private.GetTransientState(a, k)
}

func (d *dualState) SetTransientState(a common.Address, k, v common.Hash) {
	d.private.SetTransientState(a, k, v)
}

func (d *dualState) SelfDestruct(a common.Address) {
	if d.write() {
		d.cur().SelfDestruct(a)
	}
}

func (d *dualState) HasSelfDestructed(a common.Address) bool { return d.cur().HasSelfDestructed(a) }
func (d *dualState) Exist(a common.Address) bool             { return d.cur().Exist(a) }
func (d *dualState) Empty(a common.Address) bool             { return d.cur().Empty(a) }
func (d *dualState) IsNewContract(a common.Address) bool     { return d.cur().IsNewContract(a) }

func (d *dualState) Touch(a common.Address) {
	if !d.top().readOnly {
		d.cur().Touch(a)
	}
}

// The access list is the private state's: GoQuorum prepares only the
// public state's list for a private transaction, so its private frames
// start cold.
func (d *dualState) AddressInAccessList(a common.Address) bool {
	return d.private.AddressInAccessList(a)
}
func (d *dualState) SlotInAccessList(a common.Address, s common.Hash) (bool, bool) {
	return d.private.SlotInAccessList(a, s)
}
func (d *dualState) AddAddressToAccessList(a common.Address) { d.private.AddAddressToAccessList(a) }
func (d *dualState) AddSlotToAccessList(a common.Address, s common.Hash) {
	d.private.AddSlotToAccessList(a, s)
}

func (d *dualState) Prepare(rules params.Rules, sender, coinbase common.Address, dest *common.Address, precompiles []common.Address, list types.AccessList) {
	d.private.Prepare(rules, sender, coinbase, dest, precompiles, list)
}

// Snapshots and reverts are the current frame's state's: a frame reverts
// the state it ran on (GoQuorum's EVM.RevertToSnapshot), and a read-only
// frame changed nothing.
func (d *dualState) RevertToSnapshot(id int) { d.cur().RevertToSnapshot(id) }
func (d *dualState) Snapshot() int           { return d.cur().Snapshot() }

func (d *dualState) AddLog(l *types.Log) {
	if d.write() {
		d.cur().AddLog(l)
	}
}

func (d *dualState) AddPreimage(common.Hash, []byte) {}

func (d *dualState) Witness() *stateless.Witness       { return nil }
func (d *dualState) AccessEvents() *state.AccessEvents { return d.private.AccessEvents() }

func (d *dualState) Finalise(rules params.Rules) *bal.ConstructionBlockAccessList {
	return d.private.Finalise(rules)
}

func (d *dualState) SetTxContext(h common.Hash, i int, bai uint32) { d.private.SetTxContext(h, i, bai) }

var _ vm.StateDB = (*dualState)(nil)
