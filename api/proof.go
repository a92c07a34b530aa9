package api

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// StorageKeys is eth_getProof's list of storage slots: Besu's String[] of
// UInt256 hex (0x optional, up to 64 digits).
type StorageKeys []common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (k *StorageKeys) UnmarshalJSON(data []byte) error {
	var ss []string
	if err := json.Unmarshal(data, &ss); err != nil {
		return errBadParam
	}
	out := make(StorageKeys, len(ss))
	for i, s := range ss {
		h, err := parseLenientHash(s)
		if err != nil {
			return errBadParam
		}
		out[i] = h
	}
	*k = out
	return nil
}

// maxProofKeys bounds the storage keys of one eth_getProof request.
const maxProofKeys = 1024

// ProofResult is eth_getProof's answer (EIP-1186), in Besu's rendering.
type ProofResult struct {
	AccountProof []hexutil.Bytes `json:"accountProof"`
	Address      common.Address  `json:"address"`
	Balance      *hexutil.Big    `json:"balance"`
	CodeHash     common.Hash     `json:"codeHash"`
	Nonce        hexutil.Uint64  `json:"nonce"`
	StorageHash  common.Hash     `json:"storageHash"`
	StorageProof []StorageResult `json:"storageProof"`
}

// StorageResult proves one storage slot.
type StorageResult struct {
	Key   string          `json:"key"`
	Value *hexutil.Big    `json:"value"`
	Proof []hexutil.Bytes `json:"proof"`
}

// GetProof is eth_getProof: the account's Merkle proof and those of the
// given storage slots in the state after the block. A missing account
// proves its absence and lists no storage proofs, as in Besu.
func (e *Eth) GetProof(addr rpctypes.Address, keys StorageKeys, p BlockParam) (*ProofResult, error) {
	if len(keys) > maxProofKeys {
		return nil, backend.InvalidParams(backend.ParamStorageKeys, "")
	}
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, err
	}
	if err := e.b.EnsureState(header, hash); err != nil {
		return nil, err
	}
	proof, err := e.b.Chain.Proof(header.Root, common.Address(addr), keys)
	if err != nil {
		return nil, backend.ErrWorldStateUnavailable
	}
	out := &ProofResult{
		AccountProof: bytesList(proof.Proof),
		Address:      common.Address(addr),
		Balance:      new(hexutil.Big),
		CodeHash:     types.EmptyCodeHash,
		StorageHash:  types.EmptyRootHash,
		StorageProof: []StorageResult{},
	}
	if a := proof.Account; a != nil {
		out.Balance = (*hexutil.Big)(a.Balance.ToBig())
		out.CodeHash = common.BytesToHash(a.CodeHash)
		out.Nonce = hexutil.Uint64(a.Nonce)
		out.StorageHash = a.Root
		for _, sp := range proof.StorageProof {
			out.StorageProof = append(out.StorageProof, StorageResult{
				Key:   proofKey(sp.Key),
				Value: (*hexutil.Big)(sp.Value.Big()),
				Proof: bytesList(sp.Proof),
			})
		}
	}
	return out, nil
}

// proofKey renders a storage key as Besu does: the value without leading
// zero bytes ("0x0347"), "0x0" for zero.
func proofKey(k common.Hash) string {
	b := k.Bytes()
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) == 0 {
		return "0x0"
	}
	return hexutil.Encode(b)
}

func bytesList(in [][]byte) []hexutil.Bytes {
	out := make([]hexutil.Bytes, len(in))
	for i, b := range in {
		out[i] = b
	}
	return out
}
