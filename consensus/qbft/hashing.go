package qbft

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/bft"
)

// MixDigest is the mixHash of every QBFT block (the Istanbul digest, ASCII
// "tical byzantine fault tolerance").
var MixDigest = common.HexToHash("0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365")

// FilteredHeader returns a copy of header whose extraData is
// [vanity, validators, vote, round, []]: the given round and no committed
// seals.
func FilteredHeader(header *types.Header, round uint32) (*types.Header, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return nil, err
	}
	h := types.CopyHeader(header)
	h.Extra = extra.encode(round, false)
	return h, nil
}

// BlockHash is the hash of a QBFT block: keccak256(RLP(header)) with the
// extraData replaced by [vanity, validators, vote, 0, []], so the round is
// forced to 0 and the committed seals are removed, and every validator
// computes the same hash whichever round the block was committed in and
// whichever seals it holds. A header whose extraData does not parse hashes
// plainly (verification rejects such a header anyway).
func BlockHash(header *types.Header) common.Hash {
	h, err := FilteredHeader(header, 0)
	if err != nil {
		return header.Hash()
	}
	return h.Hash()
}

// HashForCommitSeal is the 32-byte hash a commit seal signs, as is (no second
// keccak): keccak256(RLP(header)) with the extraData replaced by
// [vanity, validators, vote, round, []], round being the commit round. In
// round 0 it equals BlockHash.
func HashForCommitSeal(header *types.Header, round uint32) (common.Hash, error) {
	h, err := FilteredHeader(header, round)
	if err != nil {
		return common.Hash{}, err
	}
	return h.Hash(), nil
}

// SealSigners returns the signers of the committed seals of header, in seal
// order; each seal signs HashForCommitSeal at the round in the extraData.
func SealSigners(header *types.Header) ([]common.Address, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return nil, err
	}
	digest, err := HashForCommitSeal(header, extra.Round)
	if err != nil {
		return nil, err
	}
	return bft.RecoverSigners(digest, extra.Seals)
}

// WithRoundAndSeals returns a copy of header whose extraData carries round
// and seals.
func WithRoundAndSeals(header *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return bft.WithRoundAndSeals(Format{}, header, round, seals)
}
