package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// StateOverrides is the optional third parameter of eth_call and
// eth_estimateGas, decoded into the backend's overrides: keys are
// addresses in Besu's lenient hex; any malformed entry is "Invalid call
// params".
type StateOverrides backend.StateOverrides

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
		ao := backend.AccountOverride{Address: common.BytesToAddress(b)}
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
