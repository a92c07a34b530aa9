package clique

import (
	"crypto/ecdsa"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// Errors of seal recovery.
var (
	ErrMissingSeal = errors.New("clique: header is not sealed")
	ErrBadSeal     = errors.New("clique: seal does not recover a signer")
)

// SealHash is the hash a Clique signer signs: Keccak-256 of the RLP list of
// the header fields from parentHash to nonce, with extraData cut before its
// last 65 bytes (the seal), followed by the base fee when the header has
// one.
//
// The fields later forks added (withdrawalsRoot, the blob fields,
// parentBeaconBlockRoot, requestsHash) are left out, as Besu's
// CliqueBlockHashing leaves them out: a Shanghai-or-later Clique header is
// signed over the same fields as a London one, so Besu and Basalt signers
// agree on every seal. (go-ethereum's Clique refuses such headers instead.)
// The block hash still covers every field.
func SealHash(header *types.Header) common.Hash {
	w := rlp.NewEncoderBuffer(nil)
	defer w.Flush()
	l := w.List()
	w.WriteBytes(header.ParentHash[:])
	w.WriteBytes(header.UncleHash[:])
	w.WriteBytes(header.Coinbase[:])
	w.WriteBytes(header.Root[:])
	w.WriteBytes(header.TxHash[:])
	w.WriteBytes(header.ReceiptHash[:])
	w.WriteBytes(header.Bloom[:])
	w.WriteBigInt(header.Difficulty)
	w.WriteBigInt(header.Number)
	w.WriteUint64(header.GasLimit)
	w.WriteUint64(header.GasUsed)
	w.WriteUint64(header.Time)
	extra := header.Extra
	if len(extra) >= SealLength {
		extra = extra[:len(extra)-SealLength]
	}
	w.WriteBytes(extra)
	w.WriteBytes(header.MixDigest[:])
	w.WriteBytes(header.Nonce[:])
	if header.BaseFee != nil {
		w.WriteBigInt(header.BaseFee)
	}
	w.ListEnd(l)

	return crypto.Keccak256Hash(w.ToBytes())
}

// recoverSigner returns the address whose key produced the header's seal.
// It fails for a header without a well-formed extraData or with a zero
// seal; the genesis block has no signer.
func recoverSigner(header *types.Header) (common.Address, error) {
	if len(header.Extra) < VanityLength+SealLength {
		return common.Address{}, ErrExtraTooShort
	}
	seal := header.Extra[len(header.Extra)-SealLength:]
	if [SealLength]byte(seal) == [SealLength]byte{} {
		return common.Address{}, ErrMissingSeal
	}
	pub, err := crypto.Ecrecover(SealHash(header).Bytes(), seal)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrBadSeal, err)
	}
	var signer common.Address
	copy(signer[:], crypto.Keccak256(pub[1:])[12:])
	return signer, nil
}

// SignHeader returns a copy of header sealed with key: the seal (the last
// 65 bytes of extraData, which must be there) is replaced by key's
// signature of SealHash.
func SignHeader(header *types.Header, key *ecdsa.PrivateKey) (*types.Header, error) {
	if len(header.Extra) < VanityLength+SealLength {
		return nil, ErrExtraTooShort
	}
	sealed := types.CopyHeader(header)
	sig, err := crypto.Sign(SealHash(sealed).Bytes(), key)
	if err != nil {
		return nil, err
	}
	copy(sealed.Extra[len(sealed.Extra)-SealLength:], sig)
	return sealed, nil
}
