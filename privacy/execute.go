package privacy

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
)

// PrivateGas is the gas a private transaction runs with. Besu gives it
// unlimited gas (no accounting); a finite budget, equal on every member,
// keeps a private infinite loop from stalling block processing forever
// while leaving any realistic transaction unbounded.
const PrivateGas = 1 << 32

// ContractAddress is Besu's address of a contract a private transaction
// creates: keccak256(RLP[sender, nonce, privacyGroupId])[12:], nonce being
// the sender's private nonce before the transaction (reference §9.3).
func ContractAddress(sender common.Address, nonce uint64, group common.Hash) common.Address {
	b, _ := rlp.EncodeToBytes([]any{sender, nonce, group[:]})
	return common.BytesToAddress(crypto.Keccak256(b)[12:])
}

// overlay is the world a private transaction sees: the group's private
// state, which takes every write, over the block's public state, read
// where the private state has no such account (a private contract may read
// public contracts).
type overlay struct {
	*state.StateDB
	public *state.StateDB
}

func (o overlay) fromPublic(a common.Address) bool {
	return o.public != nil && !o.StateDB.Exist(a) && o.public.Exist(a)
}

func (o overlay) Exist(a common.Address) bool { return o.StateDB.Exist(a) || o.fromPublic(a) }

func (o overlay) Empty(a common.Address) bool {
	if o.fromPublic(a) {
		return o.public.Empty(a)
	}
	return o.StateDB.Empty(a)
}

func (o overlay) GetCode(a common.Address) []byte {
	if o.fromPublic(a) {
		return o.public.GetCode(a)
	}
	return o.StateDB.GetCode(a)
}

func (o overlay) GetCodeHash(a common.Address) common.Hash {
	if o.fromPublic(a) {
		return o.public.GetCodeHash(a)
	}
	return o.StateDB.GetCodeHash(a)
}

func (o overlay) GetCodeSize(a common.Address) int {
	if o.fromPublic(a) {
		return o.public.GetCodeSize(a)
	}
	return o.StateDB.GetCodeSize(a)
}

func (o overlay) GetBalance(a common.Address) *uint256.Int {
	if o.fromPublic(a) {
		return o.public.GetBalance(a)
	}
	return o.StateDB.GetBalance(a)
}

func (o overlay) GetState(a common.Address, k common.Hash) common.Hash {
	if o.fromPublic(a) {
		return o.public.GetState(a, k)
	}
	return o.StateDB.GetState(a, k)
}

func (o overlay) GetStateAndCommittedState(a common.Address, k common.Hash) (common.Hash, common.Hash) {
	if o.fromPublic(a) {
		v := o.public.GetState(a, k)
		return v, v
	}
	return o.StateDB.GetStateAndCommittedState(a, k)
}

// outcome is what running a private transaction produced.
type outcome struct {
	status   uint64
	output   []byte
	revert   []byte
	failure  string // why it failed (status 0), for the receipt
	contract *common.Address
	logs     []privstate.Log
	changed  bool // the private state changed and must be committed
}

// run executes tx, sent by sender, in the block of blockCtx on priv (the
// group's private state) over public, for group. Nothing is charged: no
// gas price, no value. A nonce other than the sender's private nonce is
// refused (status 0, nothing changed), as Besu's private transaction
// validator does; a failed execution leaves the private state as it was,
// except the nonce when nonceAlways.
func run(x *chain.Executor, blockCtx vm.BlockContext, priv, public *state.StateDB, tx *privtx.Transaction,
	sender common.Address, group common.Hash, txHash common.Hash, nonceAlways bool) outcome {
	nonce := priv.GetNonce(sender)
	if tx.Nonce != nonce {
		// Besu's PrivateTransactionValidator message.
		return outcome{failure: fmt.Sprintf("Private Transaction nonce %d, does not match sender account nonce %d.", tx.Nonce, nonce)}
	}
	blockCtx.BaseFee = new(big.Int) // private transactions pay nothing
	blockCtx.BlobBaseFee = new(big.Int)
	world := overlay{StateDB: priv, public: public}
	evm := x.NewEVM(blockCtx, world, vm.Config{NoBaseFee: true})
	defer evm.Release()
	evm.SetTxContext(vm.TxContext{Origin: sender, GasPrice: new(uint256.Int)})
	rules := evm.GetRules()
	priv.SetTxContext(txHash, 0, 0)
	world.Prepare(rules, sender, blockCtx.Coinbase, tx.To, vm.ActivePrecompiles(rules), nil)

	snap := priv.Snapshot()
	priv.SetNonce(sender, nonce+1, tracing.NonceChangeUnspecified)
	afterNonce := priv.Snapshot()
	gas := vm.NewGasBudget(PrivateGas, 0)
	var (
		ret      []byte
		err      error
		contract *common.Address
	)
	if tx.To == nil {
		addr := ContractAddress(sender, nonce, group)
		ret, err = create(evm, world, sender, addr, tx.Data, gas, rules)
		contract = &addr
	} else {
		ret, _, err = evm.Call(sender, *tx.To, tx.Data, gas, new(uint256.Int))
	}
	if err != nil {
		out := outcome{status: 0, failure: failure(err, ret)}
		if errors.Is(err, vm.ErrExecutionReverted) {
			out.revert = ret
		}
		if nonceAlways {
			priv.RevertToSnapshot(afterNonce)
			out.changed = true
		} else {
			priv.RevertToSnapshot(snap)
		}
		return out
	}
	out := outcome{status: 1, output: ret, contract: contract, changed: true}
	if contract != nil {
		out.output = nil
	}
	for _, l := range priv.GetLogs(txHash, 0, common.Hash{}, 0) {
		out.logs = append(out.logs, privstate.Log{Address: l.Address, Topics: l.Topics, Data: l.Data})
	}
	return out
}

// failure is the receipt's account of err, the error a private
// transaction stopped on, ret its output: a revert as eth_call's error
// reads ("Execution reverted (reason)" when the data is an Error(string) or
// Panic(uint256)), another halt as Besu describes it.
func failure(err error, ret []byte) string {
	if !errors.Is(err, vm.ErrExecutionReverted) {
		return chain.HaltReason(err)
	}
	if reason, uerr := abi.UnpackRevert(ret); uerr == nil {
		return "Execution reverted (" + reason + ")"
	}
	return "Execution reverted"
}

// create deploys code at addr as CREATE would, except that the address is
// Besu's private one: the init code runs as the new account's code, and
// what it returns becomes the code (the EVM computes CREATE addresses
// itself and offers no way to name one).
func create(evm *vm.EVM, world overlay, sender, addr common.Address, initCode []byte, gas vm.GasBudget, rules params.Rules) ([]byte, error) {
	priv := world.StateDB
	if priv.GetNonce(addr) != 0 || priv.GetCodeSize(addr) != 0 {
		return nil, vm.ErrContractAddressCollision
	}
	snap := priv.Snapshot()
	priv.CreateAccount(addr)
	priv.CreateContract(addr)
	if rules.IsEIP158 {
		priv.SetNonce(addr, 1, tracing.NonceChangeNewContract)
	}
	priv.SetCode(addr, initCode, tracing.CodeChangeUnspecified)
	ret, _, err := evm.Call(sender, addr, nil, gas, new(uint256.Int))
	if err == nil {
		switch {
		case len(ret) >= 1 && ret[0] == 0xEF && rules.IsLondon:
			err = vm.ErrInvalidCode
		default:
			err = vm.CheckMaxCodeSize(&rules, uint64(len(ret)))
		}
	}
	if err != nil {
		priv.RevertToSnapshot(snap)
		return ret, err
	}
	priv.SetCode(addr, ret, tracing.CodeChangeUnspecified)
	return ret, nil
}

// Call runs msg read-only against the group's private state priv over
// public in the block of blockCtx (priv_call) and returns the output.
func Call(x *chain.Executor, blockCtx vm.BlockContext, priv, public *state.StateDB, from common.Address, to common.Address, data []byte, gas uint64) ([]byte, error) {
	blockCtx.BaseFee = new(big.Int)
	blockCtx.BlobBaseFee = new(big.Int)
	world := overlay{StateDB: priv, public: public}
	evm := x.NewEVM(blockCtx, world, vm.Config{NoBaseFee: true})
	defer evm.Release()
	evm.SetTxContext(vm.TxContext{Origin: from, GasPrice: new(uint256.Int)})
	rules := evm.GetRules()
	world.Prepare(rules, from, blockCtx.Coinbase, &to, vm.ActivePrecompiles(rules), nil)
	if gas == 0 {
		gas = PrivateGas
	}
	ret, _, err := evm.Call(from, to, data, vm.NewGasBudget(gas, 0), new(uint256.Int))
	return ret, err
}

// logsOf converts stored logs to go-ethereum logs.
func logsOf(ls []privstate.Log) []*types.Log {
	out := make([]*types.Log, len(ls))
	for i, l := range ls {
		out[i] = &types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data}
	}
	return out
}
