package bft

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// SealLength is the size of a commit seal or message signature in both
// IBFT 2.0 and QBFT: r ‖ s ‖ recovery id (0 or 1).
const SealLength = 65

// ErrBadSignature is wrapped by every RecoverSigner error: a signature from
// which no signer can be recovered.
var ErrBadSignature = errors.New("bad signature")

// RecoverSigner returns the address whose key made sig over digest. Both
// message sets sign the same way, so their codecs share this.
func RecoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != SealLength {
		return common.Address{}, fmt.Errorf("%w: %d bytes, want %d", ErrBadSignature, len(sig), SealLength)
	}
	if sig[64] > 1 {
		return common.Address{}, fmt.Errorf("%w: recovery id %d, want 0 or 1", ErrBadSignature, sig[64])
	}
	pub, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
