package backend

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// StateOverrides are, per account, replacements applied to the state
// before a call (Besu's StateOverrideMap).
type StateOverrides []AccountOverride

// AccountOverride replaces parts of one account.
type AccountOverride struct {
	Address   common.Address
	Balance   *big.Int
	Nonce     *uint64
	Code      []byte // nil: unchanged
	State     map[common.Hash]common.Hash
	StateDiff map[common.Hash]common.Hash
	// MovePrecompileTo moves the precompile at Address to this address, so
	// that Address can be given code of its own.
	MovePrecompileTo *common.Address
}

// Apply writes the overrides into st and moves precompiles in precompiles.
func (o StateOverrides) Apply(st *state.StateDB, precompiles vm.PrecompiledContracts) error {
	// Moves first, so that a precompile moved onto an address that is itself
	// overridden keeps working, and so that the order of the map does not
	// matter.
	for _, ao := range o {
		if ao.MovePrecompileTo == nil {
			continue
		}
		p, ok := precompiles[ao.Address]
		if !ok {
			return InvalidParams(ParamCall, "account %s is not a precompile", ao.Address.Hex())
		}
		delete(precompiles, ao.Address)
		precompiles[*ao.MovePrecompileTo] = p
	}
	for _, ao := range o {
		a := ao.Address
		if ao.Nonce != nil {
			st.SetNonce(a, *ao.Nonce, tracing.NonceChangeUnspecified)
		}
		if ao.Balance != nil {
			v, overflow := uint256.FromBig(ao.Balance)
			if overflow {
				return InvalidParams(ParamCall, "")
			}
			st.SetBalance(a, v, tracing.BalanceChangeUnspecified)
		}
		if ao.Code != nil {
			st.SetCode(a, ao.Code, tracing.CodeChangeUnspecified)
		}
		if ao.State != nil {
			st.SetStorage(a, ao.State)
		}
		for k, v := range ao.StateDiff {
			st.SetState(a, k, v)
		}
	}
	return nil
}
