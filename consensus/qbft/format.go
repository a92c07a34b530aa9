package qbft

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/rpctypes"
)

// Format is QBFT's codecs and rules for bftengine.
type Format struct{}

var _ bftengine.Format = Format{}

// Spec names QBFT and istanbul/100.
func (Format) Spec() bftengine.Spec {
	return bftengine.Spec{Name: "QBFT", Key: "qbft", RPCPrefix: "qbft", RPCGroup: rpctypes.GroupQBFT,
		Rules: bft.QBFT, Protocol: ProtocolName, Version: ProtocolVersion, Length: ProtocolLength}
}

// DecodeExtra reads a QBFT extraData.
func (Format) DecodeExtra(b []byte) (*bft.Extra, error) {
	x, err := DecodeExtraData(b)
	return (*bft.Extra)(x), err
}

// EncodeExtra writes a QBFT extraData; a drop vote is written as GoQuorum
// writes it (0x80), which Besu reads too.
func (Format) EncodeExtra(x *bft.Extra) []byte { return (*ExtraData)(x).Encode() }

// BlockHash is the QBFT block hash (round 0, no seals).
func (Format) BlockHash(h *types.Header) common.Hash { return BlockHash(h) }

// Digest is the block hash: QBFT messages name blocks by it.
func (Format) Digest(h *types.Header) (common.Hash, error) {
	if _, err := DecodeExtraData(h.Extra); err != nil {
		return common.Hash{}, err
	}
	return BlockHash(h), nil
}

// SealHash is HashForCommitSeal.
func (Format) SealHash(h *types.Header, round uint32) (common.Hash, error) {
	return HashForCommitSeal(h, round)
}

// Code is the istanbul/100 code of a message kind.
func (Format) Code(k bft.Kind) uint64 { return Code(k) }

// DecodeMessage decodes an istanbul/100 QBFT message.
func (Format) DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	return Decode(code, data)
}

// Sign signs and encodes m.
func (Format) Sign(m *bft.Message, key *ecdsa.PrivateKey) error { return Sign(m, key) }
