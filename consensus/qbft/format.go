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

// Name is "QBFT".
func (Format) Name() string { return "QBFT" }

// Key is "qbft".
func (Format) Key() string { return "qbft" }

// RPCPrefix is "qbft".
func (Format) RPCPrefix() string { return "qbft" }

// RPCGroup is the QBFT group.
func (Format) RPCGroup() string { return rpctypes.GroupQBFT }

// Rules are QBFT's message-set rules.
func (Format) Rules() bft.Rules { return bft.QBFT }

// DecodeExtra reads a QBFT extraData.
func (Format) DecodeExtra(b []byte) (*bftengine.Extra, error) {
	x, err := DecodeExtraData(b)
	if err != nil {
		return nil, err
	}
	out := &bftengine.Extra{Validators: x.Validators, Round: x.Round, Seals: x.Seals}
	if x.Vote != nil {
		out.Vote = &bftengine.Vote{Recipient: x.Vote.Recipient, Add: x.Vote.Add}
	}
	return out, nil
}

// EncodeExtra writes the extraData of a block to propose; a drop vote is
// written as GoQuorum writes it (0x80), which Besu reads too.
func (Format) EncodeExtra(vals []common.Address, vote *bftengine.Vote) []byte {
	x := &ExtraData{Validators: vals}
	if vote != nil {
		x.Vote = &Vote{Recipient: vote.Recipient, Add: vote.Add}
	}
	return x.Encode()
}

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

// WithRoundAndSeals returns header carrying round and seals.
func (Format) WithRoundAndSeals(h *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return WithRoundAndSeals(h, round, seals)
}

// RecoverSeal returns the signer of a commit seal.
func (Format) RecoverSeal(hash common.Hash, seal []byte) (common.Address, error) {
	return bft.RecoverSigner(hash, seal)
}

// ProtocolName is "istanbul".
func (Format) ProtocolName() string { return ProtocolName }

// ProtocolVersion is 100.
func (Format) ProtocolVersion() uint { return ProtocolVersion }

// ProtocolLength is 22.
func (Format) ProtocolLength() uint64 { return ProtocolLength }

// Code is the istanbul/100 code of a message kind.
func (Format) Code(k bft.Kind) uint64 { return Code(k) }

// DecodeMessage decodes an istanbul/100 QBFT message.
func (Format) DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	return Decode(code, data)
}

// Sign signs and encodes m.
func (Format) Sign(m *bft.Message, key *ecdsa.PrivateKey) error { return Sign(m, key) }
