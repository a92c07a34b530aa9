package clique

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

const (
	// VanityLength is the size of the free-form prefix of a Clique
	// extraData (Besu's CliqueExtraData.EXTRA_VANITY_LENGTH).
	VanityLength = 32
	// SealLength is the size of the secp256k1 signature (r ‖ s ‖ v, v being
	// the recovery id 0 or 1) that ends every Clique extraData.
	SealLength = 65
)

// Errors of the extraData codec.
var (
	ErrExtraTooShort = errors.New("clique: extraData shorter than 32-byte vanity and 65-byte seal")
	ErrExtraSigners  = errors.New("clique: extraData signer list is not a whole number of addresses")
)

// Extra is a decoded Clique extraData: a 32-byte vanity, the signer list
// (present only on the genesis and epoch blocks, sorted ascending) and the
// 65-byte seal of the block's signer (all zero on the genesis block and on a
// header not yet sealed).
type Extra struct {
	Vanity  [VanityLength]byte
	Signers []common.Address
	Seal    [SealLength]byte
}

// ParseExtra decodes a Clique extraData. It reads network input, so it
// never panics: a field shorter than vanity and seal, or a signer section
// that is not a multiple of 20 bytes, is an error.
func ParseExtra(extra []byte) (Extra, error) {
	var e Extra
	if len(extra) < VanityLength+SealLength {
		return e, ErrExtraTooShort
	}
	list := extra[VanityLength : len(extra)-SealLength]
	if len(list)%common.AddressLength != 0 {
		return e, fmt.Errorf("%w (%d bytes)", ErrExtraSigners, len(list))
	}
	copy(e.Vanity[:], extra)
	copy(e.Seal[:], extra[len(extra)-SealLength:])
	if n := len(list) / common.AddressLength; n > 0 {
		e.Signers = make([]common.Address, n)
		for i := range e.Signers {
			copy(e.Signers[i][:], list[i*common.AddressLength:])
		}
	}
	return e, nil
}

// Encode returns the extraData bytes: vanity ‖ signers ‖ seal.
func (e Extra) Encode() []byte {
	out := make([]byte, 0, VanityLength+len(e.Signers)*common.AddressLength+SealLength)
	out = append(out, e.Vanity[:]...)
	for _, s := range e.Signers {
		out = append(out, s[:]...)
	}
	return append(out, e.Seal[:]...)
}

// Sealed reports whether the seal holds a signature: a zero seal is that of
// the genesis block or of a header being built.
func (e Extra) Sealed() bool { return e.Seal != [SealLength]byte{} }

// Vanity returns the 32-byte vanity for data as Besu builds it from
// --miner-extra-data: left-padded with zeros, the first 32 bytes when
// longer.
func Vanity(data []byte) [VanityLength]byte {
	var v [VanityLength]byte
	if len(data) > VanityLength {
		data = data[:VanityLength]
	}
	copy(v[VanityLength-len(data):], data)
	return v
}

// GenesisExtra returns the extraData of a genesis block for signers: a zero
// vanity, the signers in ascending order and a zero seal (what Besu's
// CliqueExtraData.createGenesisExtraDataString writes).
func GenesisExtra(signers ...common.Address) []byte {
	e := Extra{Signers: sortedCopy(signers)}
	return e.Encode()
}
