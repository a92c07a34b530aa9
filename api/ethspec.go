package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
)

// The execution-apis methods of current clients that Besu 1.3's surface
// lacks: eth_baseFee, eth_getStorageValues, eth_capabilities and
// eth_fillTransaction, in the spec's shapes (src/eth).

// MaxStorageValues bounds the slots of one eth_getStorageValues request,
// as go-ethereum does.
const MaxStorageValues = 1024

// BaseFee is eth_baseFee: the base fee of the next block; null before
// London.
func (e *Eth) BaseFee() *hexutil.Big { return (*hexutil.Big)(e.b.NextBaseFee()) }

// StorageRequests is eth_getStorageValues's first parameter: storage keys
// by account, in the order the answer keeps.
type StorageRequests struct {
	Accounts []common.Address
	Keys     map[common.Address][]common.Hash
}

// UnmarshalJSON implements json.Unmarshaler: addresses are 20-byte hex,
// keys eth_getStorageAt's.
func (r *StorageRequests) UnmarshalJSON(data []byte) error {
	var raw map[string][]StorageKey
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return errBadParam
	}
	out := StorageRequests{Keys: make(map[common.Address][]common.Hash, len(raw))}
	for k, keys := range raw {
		if !common.IsHexAddress(k) {
			return errBadParam
		}
		addr := common.HexToAddress(k)
		if _, dup := out.Keys[addr]; !dup {
			out.Accounts = append(out.Accounts, addr)
		}
		for _, key := range keys {
			out.Keys[addr] = append(out.Keys[addr], common.Hash(key))
		}
	}
	*r = out
	return nil
}

// GetStorageValues is eth_getStorageValues: several storage slots of
// several accounts after one block, each account's values in the order of
// its keys; null when there is no such block. No slots is -32602 "empty
// request", more than MaxStorageValues -38026.
func (e *Eth) GetStorageValues(req StorageRequests, p BlockParam) (map[common.Address][]common.Hash, error) {
	total := 0
	for _, keys := range req.Keys {
		total += len(keys)
	}
	switch {
	case total == 0:
		return nil, &SpecError{Code: codeSimInvalidParams, Message: "empty request"}
	case total > MaxStorageValues:
		return nil, &SpecError{Code: CodeSimClientLimit, Message: fmt.Sprintf("too many slots (max %d)", MaxStorageValues)}
	}
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, err
	}
	out := make(map[common.Address][]common.Hash, len(req.Accounts))
	for _, addr := range req.Accounts {
		vals := make([]common.Hash, len(req.Keys[addr]))
		for i, key := range req.Keys[addr] {
			if vals[i], err = e.b.Storage(header, hash, addr, key); err != nil {
				return nil, err
			}
		}
		out[addr] = vals
	}
	return out, nil
}

// CapabilityHead is eth_capabilities' head block.
type CapabilityHead struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// CapabilityResource is what the node keeps of one kind of data.
type CapabilityResource struct {
	Disabled    bool            `json:"disabled"`
	OldestBlock *hexutil.Uint64 `json:"oldestBlock,omitempty"`
}

// Capabilities is eth_capabilities' answer.
type Capabilities struct {
	Head        CapabilityHead     `json:"head"`
	State       CapabilityResource `json:"state"`
	Tx          CapabilityResource `json:"tx"`
	Logs        CapabilityResource `json:"logs"`
	Receipts    CapabilityResource `json:"receipts"`
	Blocks      CapabilityResource `json:"blocks"`
	StateProofs CapabilityResource `json:"stateproofs"`
}

// Capabilities is eth_capabilities. Basalt keeps every block, transaction,
// receipt and log from genesis and can serve the state of any block (an
// old one is re-executed on demand, chain.EnsureState), so each resource
// reaches back to block 0 with no deletion strategy.
func (e *Eth) Capabilities() Capabilities {
	c := e.b.Chain
	var genesis hexutil.Uint64
	all := CapabilityResource{OldestBlock: &genesis}
	return Capabilities{
		Head:  CapabilityHead{Number: hexutil.Uint64(c.CurrentHeader().Number.Uint64()), Hash: c.CurrentHash()},
		State: all, Tx: all, Logs: all, Receipts: all, Blocks: all, StateProofs: all,
	}
}

// FilledTransaction is eth_fillTransaction's answer: the unsigned
// transaction's encoding and its fields (go-ethereum's shape).
type FilledTransaction struct {
	Raw hexutil.Bytes      `json:"raw"`
	Tx  *types.Transaction `json:"tx"`
}

// FillTransaction is eth_fillTransaction: the transaction the call object
// describes with what it leaves out filled in, ready to be signed — chain
// ID, the sender's next nonce (pool included), fees (gasPrice for a call
// naming one or before London; else the suggested priority fee and twice
// the next base fee on top of it) and the gas eth_estimateGas finds. Blob
// transactions are not filled: their sidecars cannot be.
func (e *Eth) FillTransaction(ctx context.Context, args CallArgs) (*FilledTransaction, error) {
	cfg := e.b.Chain.Config()
	if args.ChainID != nil && args.ChainID.Big().Cmp(cfg.ChainID) != 0 {
		return nil, backend.InvalidParams(backend.ParamAny, "chainId does not match node's (have=%v, want=%v)", args.ChainID.Big(), cfg.ChainID)
	}
	if args.BlobVersionedHashes != nil {
		return nil, backend.InvalidParams(backend.ParamAny, "blob transactions are not filled")
	}
	if args.GasPrice != nil && (args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil) {
		return nil, backend.InvalidParams(backend.ParamAny, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	from := args.sender()
	if args.Nonce == nil {
		head := e.b.Chain.CurrentHeader()
		acct, err := e.b.Account(head, e.b.Chain.CurrentHash(), from)
		if err != nil {
			return nil, err
		}
		n := acct.Nonce
		if e.b.Pool != nil {
			n = max(n, e.b.Pool.PendingNonce(from))
		}
		args.Nonce = (*Uint64Param)(&n)
	}
	baseFee := e.b.NextBaseFee()
	if args.GasPrice == nil {
		if baseFee == nil {
			args.GasPrice = (*Quantity)(e.b.GasPrice())
		} else {
			if args.MaxPriorityFeePerGas == nil {
				tip := e.b.MaxPriorityFeePerGas()
				if args.MaxFeePerGas != nil && tip.Cmp(args.MaxFeePerGas.Big()) > 0 {
					tip = args.MaxFeePerGas.Big()
				}
				args.MaxPriorityFeePerGas = (*Quantity)(tip)
			}
			if args.MaxFeePerGas == nil {
				fee := new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), args.MaxPriorityFeePerGas.Big())
				args.MaxFeePerGas = (*Quantity)(fee)
			}
			if args.MaxPriorityFeePerGas.Big().Cmp(args.MaxFeePerGas.Big()) > 0 {
				return nil, backend.InvalidParams(backend.ParamAny, "maxFeePerGas is less than maxPriorityFeePerGas")
			}
		}
	}
	if args.Gas == nil {
		gas, err := e.EstimateGas(ctx, args, nil, nil)
		if err != nil {
			return nil, err
		}
		g := Uint64Param(gas)
		args.Gas = &g
	}
	for _, q := range []*Quantity{args.GasPrice, args.MaxFeePerGas, args.MaxPriorityFeePerGas, args.Value} {
		if q != nil && q.Big().BitLen() > 256 {
			return nil, backend.InvalidParams(backend.ParamAny, "value out of range")
		}
	}
	tx := filledTx(&args, cfg.ChainID)
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, backend.InvalidParams(backend.ParamAny, "%s", err.Error())
	}
	return &FilledTransaction{Raw: raw, Tx: tx}, nil
}

// filledTx builds the unsigned transaction of a filled call object.
func filledTx(a *CallArgs, chainID *big.Int) *types.Transaction {
	var al types.AccessList
	if a.AccessList != nil {
		al = *a.AccessList
	}
	nonce, gas := uint64(*a.Nonce), uint64(*a.Gas)
	switch {
	case a.GasPrice != nil && a.AccessList != nil:
		return types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: a.GasPrice.Big(), Gas: gas, To: a.to(), Value: a.value(), Data: a.data(), AccessList: al})
	case a.GasPrice != nil:
		return types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: a.GasPrice.Big(), Gas: gas, To: a.to(), Value: a.value(), Data: a.data()})
	case len(a.AuthorizationList) > 0 && a.To != nil:
		return types.NewTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: nonce, GasTipCap: uint256.MustFromBig(a.MaxPriorityFeePerGas.Big()),
			GasFeeCap: uint256.MustFromBig(a.MaxFeePerGas.Big()), Gas: gas, To: *a.to(), Value: uint256.MustFromBig(a.value()), Data: a.data(),
			AccessList: al, AuthList: a.AuthorizationList})
	}
	return types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: a.MaxPriorityFeePerGas.Big(), GasFeeCap: a.MaxFeePerGas.Big(),
		Gas: gas, To: a.to(), Value: a.value(), Data: a.data(), AccessList: al})
}
