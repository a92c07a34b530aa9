package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/rpctypes"
)

// Defaults for absent fields, as EthSigner and the spec (Document 3) have
// them. The signer never asks the node for a gas estimate; for the fees of
// eth_sendTransaction see fees.go.
const (
	// DefaultGas is the gas limit of a transaction without "gas".
	DefaultGas = 90000
	// DefaultGasPrice is the gas price in wei of an eth_signTransaction or
	// eea_sendTransaction transaction without "gasPrice" (eth_sendTransaction
	// asks the node instead).
	DefaultGasPrice = 0
)

// txFields are the members of a transaction object, raw. encoding/json
// matches names without regard to case, as it does everywhere in Go.
type txFields struct {
	From                 json.RawMessage `json:"from"`
	To                   json.RawMessage `json:"to"`
	Gas                  json.RawMessage `json:"gas"`
	GasPrice             json.RawMessage `json:"gasPrice"`
	MaxFeePerGas         json.RawMessage `json:"maxFeePerGas"`
	MaxPriorityFeePerGas json.RawMessage `json:"maxPriorityFeePerGas"`
	Value                json.RawMessage `json:"value"`
	Data                 json.RawMessage `json:"data"`
	Input                json.RawMessage `json:"input"`
	Nonce                json.RawMessage `json:"nonce"`
	ChainID              json.RawMessage `json:"chainId"`
	Type                 json.RawMessage `json:"type"`
	AccessList           json.RawMessage `json:"accessList"`

	PrivateFrom    json.RawMessage `json:"privateFrom"`
	PrivateFor     json.RawMessage `json:"privateFor"`
	PrivacyGroupID json.RawMessage `json:"privacyGroupId"`
	Restriction    json.RawMessage `json:"restriction"`

	// GoQuorum's extensions of privateFor, read only to refuse them.
	PrivacyFlag  json.RawMessage `json:"privacyFlag"`
	MandatoryFor json.RawMessage `json:"mandatoryFor"`
}

// txArgs is a validated transaction request.
type txArgs struct {
	from     common.Address
	to       *common.Address // nil: contract creation
	nonce    *uint64         // nil: the signer finds one
	gas      uint64
	gasPrice *big.Int // legacy and access-list transactions
	maxFee   *big.Int // EIP-1559
	maxTip   *big.Int // EIP-1559
	value    *big.Int
	data     []byte
	txType   byte
	access   types.AccessList
	// autoType: neither type nor a fee field was given, so the chain's
	// base fee picks legacy or type 2 (fees.go).
	autoType bool

	// Private transactions: eea_sendTransaction's (private), or
	// eth_sendTransaction's with privateFor (goquorum, see goquorum.go).
	private        bool
	goquorum       bool
	privateFrom    []byte
	privateFor     [][]byte // nil when privacyGroupID is set
	privacyGroupID []byte
}

// invalid returns -32602 Invalid params with a reason.
func invalid(format string, a ...any) *rpctypes.Error {
	return rpctypes.InvalidParams(fmt.Sprintf(format, a...))
}

// absent reports a missing or null member.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// txObject extracts the transaction object from params: the object itself
// or a one-element array holding it (EthSigner accepts both).
func txObject(params json.RawMessage) (*txFields, *rpctypes.Error) {
	p := bytes.TrimSpace(params)
	if absent(p) {
		return nil, invalid("a transaction object is required")
	}
	if p[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(p, &arr) != nil || len(arr) != 1 {
			return nil, invalid("params must hold exactly one transaction object")
		}
		p = bytes.TrimSpace(arr[0])
	}
	if len(p) == 0 || p[0] != '{' {
		return nil, invalid("the transaction must be a JSON object")
	}
	var f txFields
	if err := json.Unmarshal(p, &f); err != nil {
		return nil, invalid("the transaction object does not decode")
	}
	return &f, nil
}

// parseTx validates a transaction object for chainID. private selects the
// eea_sendTransaction rules.
func parseTx(params json.RawMessage, chainID *big.Int, private bool) (*txArgs, *rpctypes.Error) {
	f, e := txObject(params)
	if e != nil {
		return nil, e
	}
	a := &txArgs{private: private, gas: DefaultGas, value: new(big.Int)}
	var err *rpctypes.Error

	if absent(f.From) {
		return nil, invalid("from is required")
	}
	if a.from, err = address(f.From, "from"); err != nil {
		return nil, err
	}
	if !absent(f.To) {
		s, err := jsonString(f.To, "to")
		if err != nil {
			return nil, err
		}
		if s != "" && s != "0x" { // "" and "0x" mean contract creation, as in EthSigner
			addr, err := address(f.To, "to")
			if err != nil {
				return nil, err
			}
			a.to = &addr
		}
	}
	if !absent(f.Gas) {
		if a.gas, err = quantity64(f.Gas, "gas"); err != nil {
			return nil, err
		}
	}
	if !absent(f.Nonce) {
		n, err := quantity64(f.Nonce, "nonce")
		if err != nil {
			return nil, err
		}
		a.nonce = &n
	}
	if !absent(f.Value) {
		if a.value, err = quantity(f.Value, "value"); err != nil {
			return nil, err
		}
	}
	if a.data, err = txData(f.Data, f.Input); err != nil {
		return nil, err
	}
	if !absent(f.ChainID) {
		id, err := quantity(f.ChainID, "chainId")
		if err != nil {
			return nil, err
		}
		if id.Cmp(chainID) != 0 {
			return nil, invalid("chainId %d does not match the signer's chain id %d", id, chainID)
		}
	}
	if !absent(f.GasPrice) {
		if a.gasPrice, err = quantity(f.GasPrice, "gasPrice"); err != nil {
			return nil, err
		}
	}
	if private {
		return a, a.parsePrivate(f)
	}
	if !absent(f.PrivateFor) {
		return a, a.parseGoQuorum(f)
	}
	// Signing a public transaction that the caller meant to be private
	// would publish its data.
	if !absent(f.PrivacyGroupID) {
		return nil, invalid("privacyGroupId is not supported by eth_sendTransaction; send Besu private transactions with eea_sendTransaction")
	}
	if !absent(f.PrivateFrom) {
		return nil, invalid("privateFrom without privateFor: give privateFor for a GoQuorum private transaction, or send a Besu private transaction with eea_sendTransaction")
	}
	return a, a.parseFees(f)
}

// parseFees picks the transaction type from the fee fields, "type" and
// "accessList": EIP-1559 fee fields make a dynamic-fee transaction (type
// 2), an access list alone an access-list transaction (type 1), and
// neither a legacy EIP-155 transaction, EthSigner's only kind. Absent fees
// stay nil here: eth_sendTransaction asks the node for them (fees.go),
// eth_signTransaction applies defaultFees.
func (a *txArgs) parseFees(f *txFields) *rpctypes.Error {
	var err *rpctypes.Error
	if !absent(f.MaxFeePerGas) {
		if a.maxFee, err = quantity(f.MaxFeePerGas, "maxFeePerGas"); err != nil {
			return err
		}
	}
	if !absent(f.MaxPriorityFeePerGas) {
		if a.maxTip, err = quantity(f.MaxPriorityFeePerGas, "maxPriorityFeePerGas"); err != nil {
			return err
		}
	}
	hasAccess := !absent(f.AccessList)
	if hasAccess {
		if json.Unmarshal(f.AccessList, &a.access) != nil {
			return invalid("accessList must be a list of {address, storageKeys}")
		}
	}
	dynamic := a.maxFee != nil || a.maxTip != nil
	switch {
	case !absent(f.Type):
		t, err := quantity64(f.Type, "type")
		if err != nil {
			return err
		}
		switch t {
		case types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType:
			a.txType = byte(t)
		default:
			return invalid("transaction type %d is not supported (0, 1 and 2 are)", t)
		}
	case dynamic:
		a.txType = types.DynamicFeeTxType
	case hasAccess:
		a.txType = types.AccessListTxType
	default:
		a.txType = types.LegacyTxType
	}
	a.autoType = absent(f.Type) && !dynamic && a.gasPrice == nil
	switch a.txType {
	case types.LegacyTxType, types.AccessListTxType:
		if dynamic {
			return invalid("maxFeePerGas and maxPriorityFeePerGas need a type 2 transaction")
		}
		if a.txType == types.LegacyTxType && hasAccess {
			return invalid("accessList needs a type 1 or 2 transaction")
		}
	case types.DynamicFeeTxType:
		if a.gasPrice != nil {
			return invalid("gasPrice cannot be combined with maxFeePerGas and maxPriorityFeePerGas (type 2)")
		}
		if a.maxFee != nil && a.maxTip != nil && a.maxTip.Cmp(a.maxFee) > 0 {
			return invalid("maxPriorityFeePerGas is above maxFeePerGas")
		}
	}
	return nil
}

// feesComplete reports whether the request gave every fee its type needs:
// gasPrice for types 0 and 1, both EIP-1559 fields for type 2.
func (a *txArgs) feesComplete() bool {
	if a.txType == types.DynamicFeeTxType {
		return a.maxFee != nil && a.maxTip != nil
	}
	return a.gasPrice != nil
}

// defaultFees fills absent fees for a method that does not ask the node
// (eth_signTransaction) the way the spec and EthSigner do: gasPrice 0. A
// type 2 transaction has no such default.
func (a *txArgs) defaultFees(method string) *rpctypes.Error {
	switch {
	case a.feesComplete():
		return nil
	case a.txType == types.DynamicFeeTxType:
		return invalid("%s does not ask the node for fees: a type 2 transaction needs both maxFeePerGas and maxPriorityFeePerGas", method)
	}
	a.gasPrice = big.NewInt(DefaultGasPrice)
	return nil
}

// parsePrivate checks the eea_sendTransaction fields.
func (a *txArgs) parsePrivate(f *txFields) *rpctypes.Error {
	if a.value.Sign() != 0 {
		return invalid("Non-zero value, private transactions cannot transfer ether")
	}
	for _, pf := range []struct {
		raw  json.RawMessage
		name string
	}{{f.MaxFeePerGas, "maxFeePerGas"}, {f.MaxPriorityFeePerGas, "maxPriorityFeePerGas"}, {f.AccessList, "accessList"}} {
		if !absent(pf.raw) {
			return invalid("%s is not supported: private transactions are legacy transactions", pf.name)
		}
	}
	if !absent(f.Type) {
		if t, err := quantity64(f.Type, "type"); err != nil || t != 0 {
			return invalid("private transactions are legacy transactions (type 0)")
		}
	}
	if a.gasPrice == nil {
		a.gasPrice = big.NewInt(DefaultGasPrice)
	}
	if absent(f.PrivateFrom) {
		return invalid("privateFrom is required")
	}
	var err *rpctypes.Error
	if a.privateFrom, err = tmKey(f.PrivateFrom, "privateFrom"); err != nil {
		return err
	}
	if absent(f.Restriction) {
		return invalid("restriction is required")
	}
	r, err := jsonString(f.Restriction, "restriction")
	if err != nil {
		return err
	}
	if r != privtx.Restricted {
		return invalid("restriction must be %q", privtx.Restricted)
	}
	hasFor, hasGroup := !absent(f.PrivateFor), !absent(f.PrivacyGroupID)
	if hasFor == hasGroup {
		return invalid("give exactly one of privateFor and privacyGroupId")
	}
	if hasGroup {
		a.privacyGroupID, err = tmKey(f.PrivacyGroupID, "privacyGroupId")
		return err
	}
	a.privateFor, err = tmKeys(f.PrivateFor)
	return err
}

// tmKeys decodes privateFor: a list of Base64 keys, possibly empty (for
// GoQuorum, "private to the sender's party only").
func tmKeys(raw json.RawMessage) ([][]byte, *rpctypes.Error) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, invalid("privateFor must be a list of Base64 keys")
	}
	keys := make([][]byte, 0, len(list))
	for _, r := range list {
		k, err := tmKey(r, "privateFor")
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// jsonString decodes a JSON string member.
func jsonString(raw json.RawMessage, name string) (string, *rpctypes.Error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", invalid("%s must be a string", name)
	}
	return s, nil
}

// address decodes a 20-byte hex address, with or without 0x.
func address(raw json.RawMessage, name string) (common.Address, *rpctypes.Error) {
	s, err := jsonString(raw, name)
	if err != nil {
		return common.Address{}, err
	}
	a, ok := parseAddress(s)
	if !ok {
		return common.Address{}, invalid("%s must be a 20-byte hex address", name)
	}
	return a, nil
}

func parseAddress(s string) (common.Address, bool) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) != 40 {
		return common.Address{}, false
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return common.Address{}, false
	}
	return common.BytesToAddress(b), true
}

// maxQuantityBits bounds a quantity (a uint256).
const maxQuantityBits = 256

// parseQuantity reads a JSON-RPC quantity: "0x" and hex digits (leading
// zeros allowed), or, as web3j's Numeric.decodeQuantity in EthSigner does,
// decimal digits.
func parseQuantity(s string) (*big.Int, bool) {
	var digits string
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		digits, base = s[2:], 16
	default:
		digits = s
	}
	if digits == "" || len(digits) > 80 {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		switch {
		case c >= '0' && c <= '9':
		case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		default:
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok || n.BitLen() > maxQuantityBits {
		return nil, false
	}
	return n, true
}

// quantity decodes a quantity member.
func quantity(raw json.RawMessage, name string) (*big.Int, *rpctypes.Error) {
	s, err := jsonString(raw, name)
	if err != nil {
		return nil, invalid("%s must be a hex quantity string", name)
	}
	n, ok := parseQuantity(s)
	if !ok {
		return nil, invalid("%s must be a hex quantity of at most 256 bits", name)
	}
	return n, nil
}

// quantity64 decodes a quantity that must fit in 64 bits.
func quantity64(raw json.RawMessage, name string) (uint64, *rpctypes.Error) {
	n, err := quantity(raw, name)
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, invalid("%s does not fit in 64 bits", name)
	}
	return n.Uint64(), nil
}

// txData decodes data and its alias input; given both, they must agree.
func txData(data, input json.RawMessage) ([]byte, *rpctypes.Error) {
	var d, in []byte
	var err *rpctypes.Error
	if !absent(data) {
		if d, err = hexData(data, "data"); err != nil {
			return nil, err
		}
	}
	if !absent(input) {
		if in, err = hexData(input, "input"); err != nil {
			return nil, err
		}
		if d != nil && !bytes.Equal(d, in) {
			return nil, invalid("data and input differ; give one of them")
		}
		d = in
	}
	if d == nil {
		d = []byte{}
	}
	return d, nil
}

// hexData decodes hex bytes, with or without 0x.
func hexData(raw json.RawMessage, name string) ([]byte, *rpctypes.Error) {
	s, err := jsonString(raw, name)
	if err != nil {
		return nil, err
	}
	b, herr := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if herr != nil {
		return nil, invalid("%s must be hex bytes", name)
	}
	return b, nil
}

// tmKey decodes a Base64 transaction-manager key or privacy group ID.
func tmKey(raw json.RawMessage, name string) ([]byte, *rpctypes.Error) {
	s, err := jsonString(raw, name)
	if err != nil {
		return nil, err
	}
	b, derr := base64.StdEncoding.DecodeString(s)
	if derr != nil || len(b) != privtx.KeySize {
		return nil, invalid("%s must be a Base64 32-byte key", name)
	}
	return b, nil
}

// privateLane names the privacy group whose private nonces a private
// transaction uses: its privacyGroupId, or for privateFor the set of
// privateFrom and privateFor (order and repeats do not change the group,
// as in the legacy group ID the node computes).
func (a *txArgs) privateLane() common.Hash {
	if a.privacyGroupID != nil {
		return common.BytesToHash(a.privacyGroupID)
	}
	members := append([][]byte{a.privateFrom}, a.privateFor...)
	slices.SortFunc(members, bytes.Compare)
	members = slices.CompactFunc(members, bytes.Equal)
	return crypto.Keccak256Hash(append([]byte("legacy"), bytes.Join(members, nil)...))
}

// ethTx builds the unsigned transaction with nonce.
func (a *txArgs) ethTx(chainID *big.Int, nonce uint64) *types.Transaction {
	switch a.txType {
	case types.AccessListTxType:
		return types.NewTx(&types.AccessListTx{
			ChainID: chainID, Nonce: nonce, GasPrice: a.gasPrice, Gas: a.gas,
			To: a.to, Value: a.value, Data: a.data, AccessList: a.access,
		})
	case types.DynamicFeeTxType:
		return types.NewTx(&types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce, GasTipCap: a.maxTip, GasFeeCap: a.maxFee, Gas: a.gas,
			To: a.to, Value: a.value, Data: a.data, AccessList: a.access,
		})
	}
	return types.NewTx(&types.LegacyTx{
		Nonce: nonce, GasPrice: a.gasPrice, Gas: a.gas, To: a.to, Value: a.value, Data: a.data,
	})
}

// privateTx builds the unsigned private transaction with nonce.
func (a *txArgs) privateTx(nonce uint64) *privtx.Transaction {
	return &privtx.Transaction{
		Nonce: nonce, GasPrice: a.gasPrice, Gas: a.gas, To: a.to, Value: new(big.Int), Data: a.data,
		PrivateFrom: a.privateFrom, PrivateFor: a.privateFor, PrivacyGroupID: a.privacyGroupID,
		Restriction: privtx.Restricted,
	}
}
