// Package quorumtx holds the rules of GoQuorum 24.4.1 private transactions
// that every node applies, party or not (reference/goquorum-privacy.md §1):
//
//   - A private transaction is a legacy transaction whose V is 37 or 38.
//     Its data is the 64-byte key of its payload in the privacy manager
//     (Tessera's SHA3-512 of the cipher text), not the payload.
//   - It is signed Homestead style, without a chain ID: the signing hash is
//     keccak256(rlp([nonce, gasPrice, gas, to, value, data])) and V is the
//     recovery id + 37 (GoQuorum's QuorumPrivateTxSigner). go-ethereum
//     reads V 37/38 as an EIP-155 signature for chain 1, so its signers
//     refuse these on any other chain; Signer recovers them.
//   - Its hash is the ordinary legacy transaction hash.
//
// The package is a leaf (go-ethereum only), so that the chain's executor,
// the pool and the API can all use it.
package quorumtx

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// V values of a private transaction's signature: recovery id + 37.
const (
	VBase = 37
	VMax  = 38
)

// KeySize is the size of the payload key a private transaction carries as
// its data.
const KeySize = 64

// ErrInvalidSig is returned for a private transaction whose signature does
// not recover.
var ErrInvalidSig = errors.New("invalid GoQuorum private transaction signature")

// IsPrivate reports whether tx is a GoQuorum private transaction: a legacy
// transaction with V 37 or 38 (GoQuorum's Transaction.IsPrivate).
func IsPrivate(tx *types.Transaction) bool {
	if tx.Type() != types.LegacyTxType {
		return false
	}
	v, _, _ := tx.RawSignatureValues()
	return v != nil && v.IsUint64() && (v.Uint64() == VBase || v.Uint64() == VMax)
}

// SigningHash is the hash a private transaction's signature signs: the
// Homestead (pre-EIP-155) hash.
func SigningHash(tx *types.Transaction) common.Hash {
	return types.HomesteadSigner{}.Hash(tx)
}

// Sender recovers the sender of a private transaction (IsPrivate), with
// Homestead's rules for r and s (s in the lower half of the order).
func Sender(tx *types.Transaction) (common.Address, error) {
	if !IsPrivate(tx) {
		return common.Address{}, errors.New("not a GoQuorum private transaction (legacy, v 37 or 38)")
	}
	v, r, s := tx.RawSignatureValues()
	recid := byte(v.Uint64() - VBase)
	if !crypto.ValidateSignatureValues(recid, r, s, true) {
		return common.Address{}, ErrInvalidSig
	}
	sig := make([]byte, crypto.SignatureLength)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	sig[64] = recid
	h := SigningHash(tx)
	pub, err := crypto.Ecrecover(h[:], sig)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrInvalidSig, err)
	}
	if len(pub) == 0 || pub[0] != 4 {
		return common.Address{}, ErrInvalidSig
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}

// Sign signs tx as GoQuorum signs a private transaction: Homestead hash,
// V = recovery id + 37.
func Sign(tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error) {
	if tx.Type() != types.LegacyTxType {
		return nil, errors.New("a GoQuorum private transaction is a legacy transaction")
	}
	h := SigningHash(tx)
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		return nil, err
	}
	return tx.WithSignature(privateSigner{}, sig)
}

// privateSigner only turns a signature into V 37/38 for Sign.
type privateSigner struct{ types.HomesteadSigner }

func (privateSigner) SignatureValues(tx *types.Transaction, sig []byte) (r, s, v *big.Int, err error) {
	if len(sig) != crypto.SignatureLength {
		return nil, nil, nil, fmt.Errorf("wrong size for signature: got %d, want %d", len(sig), crypto.SignatureLength)
	}
	r = new(big.Int).SetBytes(sig[:32])
	s = new(big.Int).SetBytes(sig[32:64])
	v = new(big.Int).SetUint64(uint64(sig[64]) + VBase)
	return r, s, v, nil
}

// Signer is a types.Signer that recovers GoQuorum private transactions
// (Sender) and leaves every other transaction to the chain's own signer.
// Use it only on a GoQuorum chain (genesis isQuorum): elsewhere V 37/38 is
// an EIP-155 signature for chain 1.
type Signer struct {
	types.Signer
}

// NewSigner wraps the chain's signer.
func NewSigner(inner types.Signer) Signer { return Signer{inner} }

// Sender implements types.Signer.
func (s Signer) Sender(tx *types.Transaction) (common.Address, error) {
	if IsPrivate(tx) {
		return Sender(tx)
	}
	return s.Signer.Sender(tx)
}

// Equal implements types.Signer.
func (s Signer) Equal(other types.Signer) bool {
	o, ok := other.(Signer)
	return ok && s.Signer.Equal(o.Signer)
}
