package bft

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// SealLength is the size of a commit seal or message signature in both
// IBFT 2.0 and QBFT: r ‖ s ‖ recovery id (0 or 1).
const SealLength = 65

// RecoverSigner returns the address whose key made sig over digest. Both
// message sets sign the same way, so their codecs share this.
func RecoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != SealLength {
		return common.Address{}, fmt.Errorf("signature of %d bytes, want %d", len(sig), SealLength)
	}
	if sig[64] > 1 {
		return common.Address{}, fmt.Errorf("signature recovery id %d, want 0 or 1", sig[64])
	}
	pub, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}
