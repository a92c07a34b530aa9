package api

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// CallArgs is the call object of eth_call, eth_estimateGas and
// eth_createAccessList, read like Besu's CallParameter: addresses and
// amounts in Besu's lenient hex, unknown members ignored, "input" and
// "data" interchangeable (both present must agree), and "strict" choosing
// whether the sender's balance is checked.
type CallArgs struct {
	ChainID              *Quantity                    `json:"chainId"`
	From                 *rpctypes.Address            `json:"from"`
	To                   *rpctypes.Address            `json:"to"`
	Gas                  *Uint64Param                 `json:"gas"`
	GasPrice             *Quantity                    `json:"gasPrice"`
	MaxPriorityFeePerGas *Quantity                    `json:"maxPriorityFeePerGas"`
	MaxFeePerGas         *Quantity                    `json:"maxFeePerGas"`
	MaxFeePerBlobGas     *Quantity                    `json:"maxFeePerBlobGas"`
	Value                *Quantity                    `json:"value"`
	Nonce                *Uint64Param                 `json:"nonce"`
	Data                 *Bytes                       `json:"data"`
	Input                *Bytes                       `json:"input"`
	AccessList           *types.AccessList            `json:"accessList"`
	BlobVersionedHashes  []VersionedHash              `json:"blobVersionedHashes"`
	AuthorizationList    []types.SetCodeAuthorization `json:"authorizationList"`
	Strict               *bool                        `json:"strict"`
}

// UnmarshalJSON decodes a call object; any failure is the method's
// "Invalid call params".
func (a *CallArgs) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return errBadParam
	}
	type plain CallArgs
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return errBadParam
	}
	if p.Input != nil && p.Data != nil && !bytes.Equal(*p.Input, *p.Data) {
		return errBadParam
	}
	*a = CallArgs(p)
	return nil
}

// data is the payload: input, else data.
func (a *CallArgs) data() []byte {
	if a.Input != nil {
		return *a.Input
	}
	if a.Data != nil {
		return *a.Data
	}
	return nil
}

func (a *CallArgs) sender() common.Address {
	if a.From == nil {
		return common.Address{}
	}
	return common.Address(*a.From)
}

func (a *CallArgs) to() *common.Address {
	if a.To == nil {
		return nil
	}
	to := common.Address(*a.To)
	return &to
}

func (a *CallArgs) value() *big.Int {
	if a.Value == nil {
		return new(big.Int)
	}
	return a.Value.Big()
}

func (a *CallArgs) blobHashes() []common.Hash {
	if a.BlobVersionedHashes == nil {
		return nil
	}
	out := make([]common.Hash, len(a.BlobVersionedHashes))
	for i, h := range a.BlobVersionedHashes {
		out[i] = common.Hash(h)
	}
	return out
}

// msg is the call the backend simulates. Strict is not part of it: it
// chooses the simulation's mode (backend.CallMode, Backend.NewEstimate).
func (a *CallArgs) msg() *backend.CallMsg {
	m := &backend.CallMsg{
		To:                   a.to(),
		Gas:                  (*uint64)(a.Gas),
		GasPrice:             a.GasPrice.Big(),
		MaxFeePerGas:         a.MaxFeePerGas.Big(),
		MaxPriorityFeePerGas: a.MaxPriorityFeePerGas.Big(),
		MaxFeePerBlobGas:     a.MaxFeePerBlobGas.Big(),
		Value:                a.Value.Big(),
		Nonce:                (*uint64)(a.Nonce),
		Data:                 a.data(),
		AccessList:           a.AccessList,
		BlobHashes:           a.blobHashes(),
		AuthorizationList:    a.AuthorizationList,
		ChainID:              a.ChainID.Big(),
	}
	if a.From != nil {
		from := common.Address(*a.From)
		m.From = &from
	}
	return m
}

// VersionedHash is an EIP-4844 versioned hash: 32 bytes of even-length hex
// (0x optional, left-padded) whose first byte is the KZG version 0x01.
type VersionedHash common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (h *VersionedHash) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return errBadParam
	}
	body := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(body)%2 == 1 {
		return errBadParam
	}
	b, err := rpctypes.LenientHex(body, common.HashLength)
	if err != nil {
		return errBadParam
	}
	hash := common.BytesToHash(b)
	if !kzg4844.IsValidVersionedHash(hash[:]) {
		return errBadParam
	}
	*h = VersionedHash(hash)
	return nil
}
