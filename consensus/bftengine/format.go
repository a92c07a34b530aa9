// Package bftengine is the block-level engine both BFT protocols share:
// header rules, the vote tally (validators by block-header votes or read
// from a validator contract), block rewards, the devp2p sub-protocols, the
// producer that runs the pure core (package bft) through the adapter
// (package driver), and the JSON-RPC group. A protocol supplies a Format
// — its extraData codec, block hashes, message codec and message-set
// rules — and an engine runs a schedule of them by block number, which is
// how a network moves from IBFT 2.0 to QBFT at a block.
package bftengine

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/bft"
)

// Spec names a protocol and its devp2p sub-protocol.
type Spec struct {
	// Name names the protocol in logs and errors ("IBFT 2.0", "QBFT").
	Name string
	// Key is its genesis config key ("ibft2", "qbft"), which also names
	// its metrics (besu_consensus_<key>_...).
	Key string
	// RPCPrefix is the prefix of its JSON-RPC methods ("ibft", "qbft") and
	// RPCGroup the group that enables them.
	RPCPrefix, RPCGroup string
	// Rules are its message set's rules on the shared core.
	Rules bft.Rules
	// Protocol, Version and Length are its devp2p sub-protocol.
	Protocol string
	Version  uint
	Length   uint64
}

// Format is one BFT protocol's codecs and rules: package ibft2 and package
// qbft each provide one.
type Format interface {
	// Spec names the protocol.
	Spec() Spec

	// ExtraCodec reads and writes a header's extraData; the engine
	// proposes blocks with zero vanity, round 0 and no seals.
	bft.ExtraCodec
	// BlockHash is the on-chain hash of a header.
	BlockHash(header *types.Header) common.Hash
	// Digest is the hash a proposal of the block is known by.
	Digest(header *types.Header) (common.Hash, error)
	// SealHash is the hash the commit seals of header committed in round
	// sign (each recovered with bft.RecoverSigner, as both protocols do).
	SealHash(header *types.Header, round uint32) (common.Hash, error)

	// Code is the sub-protocol message code of a message kind.
	Code(kind bft.Kind) uint64
	// DecodeMessage decodes a message of code, recovering its signers.
	DecodeMessage(code uint64, data []byte) (*bft.Message, error)
	// Sign signs m with key, setting m.Signed and m.Wire.
	Sign(m *bft.Message, key *ecdsa.PrivateKey) error
}
