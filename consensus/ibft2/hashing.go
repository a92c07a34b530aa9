package ibft2

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/bft"
)

// MixDigest is the mixHash of every IBFT 2.0 block: ASCII "tical byzantine
// fault tolerance".
var MixDigest = common.HexToHash("0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365")

// BlockHash is the on-chain hash of header (Besu's
// IbftBlockHashing.calculateHashOfIbftBlockOnChain): the header with its
// extraData reduced to [vanity, validators, vote], so a block hashes alike
// whichever round it was committed in and whichever seals it carries. The
// genesis block hashes with its extraData unchanged, as does a header whose
// extraData does not parse (verification rejects such a header anyway).
func BlockHash(header *types.Header) common.Hash {
	if header.Number == nil || header.Number.Sign() == 0 {
		return header.Hash()
	}
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return header.Hash()
	}
	return filteredHash(header, extra, layoutWithoutRoundSe)
}

// SealHash is the hash commit seals sign (Besu's
// calculateDataHashForCommittedSeal): the header with its extraData reduced
// to [vanity, validators, vote, round]. It is also the digest of proposals,
// prepares and commits.
func SealHash(header *types.Header) (common.Hash, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return common.Hash{}, err
	}
	return filteredHash(header, extra, layoutWithoutSeals), nil
}

func filteredHash(header *types.Header, extra *ExtraData, l layout) common.Hash {
	h := types.CopyHeader(header)
	h.Extra = extra.encode(l)
	return h.Hash()
}

// SealSigners returns the signers of the commit seals of header, in seal
// order.
func SealSigners(header *types.Header) ([]common.Address, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return nil, err
	}
	return bft.RecoverSigners(filteredHash(header, extra, layoutWithoutSeals), extra.Seals)
}

// WithRoundAndSeals returns a copy of header whose extraData carries round
// and seals.
func WithRoundAndSeals(header *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return bft.WithRoundAndSeals(Format{}, header, round, seals)
}
