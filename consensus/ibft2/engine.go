// Package ibft2 is IBFT 2.0, compatible with Besu's: the extraData codec,
// the block hashes (on chain without round and seals, the commit-seal hash
// with the round), the IBF/1 message codec and the IBFT 2.0 message-set
// rules of the shared core (bft.IBFT2). The engine itself — header rules,
// vote tally, producer, IBFT JSON-RPC group — is package bftengine's, run
// with this package's Format.
package ibft2

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/rpctypes"
)

// Header verification errors (the engine's).
var (
	ErrInvalidMixDigest  = bftengine.ErrInvalidMixDigest
	ErrInvalidNonce      = bftengine.ErrInvalidNonce
	ErrInvalidDifficulty = bftengine.ErrInvalidDifficulty
	ErrInvalidUncleHash  = bftengine.ErrInvalidUncleHash
	ErrInvalidTimestamp  = bftengine.ErrInvalidTimestamp
	ErrInvalidValidators = bftengine.ErrInvalidValidators
	ErrInvalidCoinbase   = bftengine.ErrInvalidCoinbase
	ErrInsufficientSeals = bftengine.ErrInsufficientSeals
	ErrInvalidCommitSeal = bftengine.ErrInvalidCommitSeal
)

// Engine is the IBFT 2.0 engine: the shared BFT engine running Format.
type Engine = bftengine.Engine

// Options are optional settings of New.
type Options = bftengine.Options

// New returns an IBFT 2.0 engine with the genesis options cfg.
func New(cfg *config.IBFT2Config, opts Options) *Engine {
	e, err := bftengine.New([]bftengine.Segment{{Format: Format{}, Config: cfg}}, opts)
	if err != nil {
		panic(err) // one segment from block 0 cannot fail
	}
	return e
}

// Format is IBFT 2.0's codecs and rules for bftengine.
type Format struct{}

var _ bftengine.Format = Format{}

// Name is "IBFT 2.0".
func (Format) Name() string { return "IBFT 2.0" }

// Key is "ibft2".
func (Format) Key() string { return "ibft2" }

// RPCPrefix is "ibft".
func (Format) RPCPrefix() string { return "ibft" }

// RPCGroup is the IBFT group.
func (Format) RPCGroup() string { return rpctypes.GroupIBFT }

// Rules are IBFT 2.0's message-set rules.
func (Format) Rules() bft.Rules { return bft.IBFT2 }

// DecodeExtra reads an IBFT 2.0 extraData.
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

// EncodeExtra writes the extraData of a block to propose.
func (Format) EncodeExtra(vals []common.Address, vote *bftengine.Vote) []byte {
	x := &ExtraData{Validators: vals}
	if vote != nil {
		x.Vote = &Vote{Recipient: vote.Recipient, Add: vote.Add}
	}
	return x.Encode()
}

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

// WithRoundAndSeals returns header carrying round and seals.
func (Format) WithRoundAndSeals(h *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return WithRoundAndSeals(h, round, seals)
}

// RecoverSeal returns the signer of a commit seal.
func (Format) RecoverSeal(hash common.Hash, seal []byte) (common.Address, error) {
	return bft.RecoverSigner(hash, seal)
}

// ProtocolName is "IBF".
func (Format) ProtocolName() string { return ProtocolName }

// ProtocolVersion is 1.
func (Format) ProtocolVersion() uint { return ProtocolVersion }

// ProtocolLength is 4.
func (Format) ProtocolLength() uint64 { return ProtocolLength }

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
