package api

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// StateOverrides is the optional third parameter of eth_call and
// eth_estimateGas: per account, replacements applied to the state before
// the call (Besu's StateOverrideMap). Keys are addresses in Besu's lenient
// hex; any malformed entry is "Invalid call params".
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

// UnmarshalJSON implements json.Unmarshaler.
func (o *StateOverrides) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return errBadParam
	}
	out := make(StateOverrides, 0, len(raw))
	for key, val := range raw {
		b, err := rpctypes.LenientHex(key, common.AddressLength)
		if err != nil {
			return errBadParam
		}
		var fields struct {
			Balance          *Quantity         `json:"balance"`
			Nonce            *UnsignedLong     `json:"nonce"`
			Code             *string           `json:"code"`
			State            map[string]string `json:"state"`
			StateDiff        map[string]string `json:"stateDiff"`
			MovePrecompileTo *rpctypes.Address `json:"movePrecompileToAddress"`
		}
		if string(val) != "null" {
			if err := json.Unmarshal(val, &fields); err != nil {
				return errBadParam
			}
		}
		if fields.State != nil && fields.StateDiff != nil {
			return errBadParam
		}
		ao := AccountOverride{Address: common.BytesToAddress(b)}
		if fields.Balance != nil {
			ao.Balance = fields.Balance.Big()
		}
		if fields.Nonce != nil {
			n := uint64(*fields.Nonce)
			ao.Nonce = &n
		}
		if fields.Code != nil {
			code, err := evenHex(*fields.Code)
			if err != nil {
				return errBadParam
			}
			ao.Code = code
		}
		if ao.State, err = storageMap(fields.State); err != nil {
			return err
		}
		if ao.StateDiff, err = storageMap(fields.StateDiff); err != nil {
			return err
		}
		if fields.MovePrecompileTo != nil {
			to := common.Address(*fields.MovePrecompileTo)
			ao.MovePrecompileTo = &to
		}
		out = append(out, ao)
	}
	*o = out
	return nil
}

func storageMap(in map[string]string) (map[common.Hash]common.Hash, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[common.Hash]common.Hash, len(in))
	for k, v := range in {
		kb, err1 := rpctypes.LenientHex(k, common.HashLength)
		vb, err2 := rpctypes.LenientHex(v, common.HashLength)
		if err1 != nil || err2 != nil {
			return nil, errBadParam
		}
		out[common.BytesToHash(kb)] = common.BytesToHash(vb)
	}
	return out, nil
}

// apply writes the overrides into st and moves precompiles in precompiles.
func (o StateOverrides) apply(st *state.StateDB, precompiles vm.PrecompiledContracts) error {
	// Moves first, so that a precompile moved onto an address that is itself
	// overridden keeps working, and so that the order of the map does not
	// matter.
	for _, ao := range o {
		if ao.MovePrecompileTo == nil {
			continue
		}
		p, ok := precompiles[ao.Address]
		if !ok {
			return backend.InvalidParams(backend.ParamCall, "account %s is not a precompile", ao.Address.Hex())
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
				return backend.InvalidParams(backend.ParamCall, "")
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

// UnsignedLong is Besu's UnsignedLongParameter: a string of hex digits (0x
// optional) or a JSON integer.
type UnsignedLong uint64

// UnmarshalJSON implements json.Unmarshaler.
func (u *UnsignedLong) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			return errBadParam
		}
		*u = UnsignedLong(n)
		return nil
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return errBadParam
	}
	*u = UnsignedLong(n)
	return nil
}
