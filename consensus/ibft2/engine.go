// Package ibft2 is IBFT 2.0, compatible with Besu's: the extraData codec,
// the block hashes (on chain without round and seals, the commit-seal hash
// with the round), the IBF/1 message codec and the IBFT 2.0 message-set
// rules of the shared core (bft.IBFT2). The engine itself — header rules,
// vote tally, producer, IBFT JSON-RPC group — is package bftengine's, run
// with this package's Format.
package ibft2

import (
	"crypto/ecdsa"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/rpctypes"
)

// Engine is the IBFT 2.0 engine: the shared BFT engine running Format.
type Engine = bftengine.Engine

// Options are optional settings of New.
type Options = bftengine.Options

// New returns the IBFT 2.0 engine of a genesis with config.ibft2 and its
// transitions.
func New(g *config.Genesis, opts Options) (*Engine, error) {
	if g.IBFT2 == nil {
		return nil, errors.New("genesis has no config.ibft2")
	}
	return bftengine.New(Schedule(g.IBFT2, g.IBFT2Transitions), opts)
}

// Schedule returns the IBFT 2.0 engine segments of config.ibft2 (cfg) and
// config.transitions.ibft2 (ts): one from block 0, then one per
// transition with its options applied over those before it and, when it
// names validators, the set it imposes.
func Schedule(cfg *config.IBFT2Config, ts []config.QBFTTransition) []bftengine.Segment {
	segs := []bftengine.Segment{{Format: Format{}, Config: cfg}}
	opts := *cfg
	for _, t := range ts {
		opts = t.Apply(opts)
		next := opts
		segs = append(segs, bftengine.Segment{From: t.Block, Format: Format{}, Config: &next, Validators: t.Validators})
	}
	return segs
}

// Format is IBFT 2.0's codecs and rules for bftengine.
type Format struct{}

var _ bftengine.Format = Format{}

// Spec names IBFT 2.0 and IBF/1.
func (Format) Spec() bftengine.Spec {
	return bftengine.Spec{Name: "IBFT 2.0", Key: "ibft2", RPCPrefix: "ibft", RPCGroup: rpctypes.GroupIBFT,
		Rules: bft.IBFT2, Protocol: ProtocolName, Version: ProtocolVersion, Length: ProtocolLength}
}

// DecodeExtra reads an IBFT 2.0 extraData.
func (Format) DecodeExtra(b []byte) (*bft.Extra, error) {
	x, err := DecodeExtraData(b)
	return (*bft.Extra)(x), err
}

// EncodeExtra writes an IBFT 2.0 extraData.
func (Format) EncodeExtra(x *bft.Extra) []byte { return (*ExtraData)(x).Encode() }

// BlockHash is the on-chain hash.
func (Format) BlockHash(h *types.Header) common.Hash { return BlockHash(h) }

// Digest is the commit-seal hash: proposals name blocks by it.
func (Format) Digest(h *types.Header) (common.Hash, error) { return SealHash(h) }

// SealHash is the commit-seal hash of header with round.
func (Format) SealHash(h *types.Header, round uint32) (common.Hash, error) {
	h, err := WithRoundAndSeals(h, round, nil)
	if err != nil {
		return common.Hash{}, err
	}
	return SealHash(h)
}

// Code is the IBF/1 code of a message kind: the kind itself.
func (Format) Code(k bft.Kind) uint64 { return uint64(k) }

// DecodeMessage decodes an IBF/1 message.
func (Format) DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	return DecodeMessage(code, data)
}

// Sign signs and encodes m.
func (Format) Sign(m *bft.Message, key *ecdsa.PrivateKey) error { return Sign(m, key) }

// Validators returns the validators of header's block (its extraData), as
// ibft_getValidatorsByBlock* report them: no replay needed.
func Validators(header *types.Header) ([]common.Address, error) {
	extra, err := DecodeExtraData(header.Extra)
	if err != nil {
		return nil, err
	}
	return extra.Validators, nil
}
