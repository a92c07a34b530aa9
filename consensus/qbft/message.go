package qbft

import (
	"bytes"
	"crypto/ecdsa"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
)

// istanbul/100, the devp2p sub-protocol of QBFT in GoQuorum and Besu. It
// declares 22 message codes; QBFT uses the last four.
const (
	ProtocolName    = "istanbul"
	ProtocolVersion = 100
	ProtocolLength  = 22
)

// QBFT message codes, relative to the istanbul/100 offset.
const (
	CodeProposal    uint64 = 0x12 // PRE-PREPARE
	CodePrepare     uint64 = 0x13
	CodeCommit      uint64 = 0x14
	CodeRoundChange uint64 = 0x15
)

// ErrMessageFormat is wrapped by every message decoding error.
var ErrMessageFormat = errors.New("invalid QBFT message")

func msgErr(what string, err error) error { return bft.FormatError(ErrMessageFormat, what, err) }

// Prepare is a signed PREPARE: [[seq, round, digest], sig]. It is also the
// prepare entry of a justification.
type Prepare struct {
	View   bft.View
	Digest common.Hash
	// Signature is the author's 65-byte signature; Author is recovered from
	// it on decoding and set by Sign.
	Signature []byte
	Author    common.Address
}

// Commit is a signed COMMIT: [[seq, round, digest, commitSeal], sig].
type Commit struct {
	View       bft.View
	Digest     common.Hash
	CommitSeal []byte
	Signature  []byte
	Author     common.Address
}

// Prepared is a round change's claim that a block was prepared in Round,
// with digest Digest.
type Prepared struct {
	Round  uint32
	Digest common.Hash
}

// SignedRoundChange is the signed payload of a ROUND-CHANGE,
// [[seq, round, prepared], sig], with prepared [] or
// [preparedRound, preparedDigest]. Proposals carry these as their
// round-change justification.
type SignedRoundChange struct {
	View bft.View
	// Prepared is nil when the author prepared nothing.
	Prepared  *Prepared
	Signature []byte
	Author    common.Address
}

// RoundChange is a ROUND-CHANGE message:
// [[[seq, round, prepared], sig], preparedBlock, [prepares...]], with
// preparedBlock 0xc0 when there is none.
type RoundChange struct {
	SignedRoundChange
	// PreparedBlock is nil when there is none.
	PreparedBlock *types.Block
	Prepares      []*Prepare
}

// Proposal is a PRE-PREPARE:
// [[[seq, round, block], sig], [[roundChanges...], [prepares...]]]. Both
// justification lists are empty in round 0.
type Proposal struct {
	View      bft.View
	Block     *types.Block
	Signature []byte
	Author    common.Address
	// RoundChanges and Prepares justify a proposal for a round above 0.
	RoundChanges []*SignedRoundChange
	Prepares     []*Prepare
}

// encoding helpers

func finish(w rlp.EncoderBuffer) []byte {
	out := w.ToBytes()
	w.Flush()
	return out
}

// signingHash is what a message signature signs:
// keccak256(RLP([code, payload])), payload being the RLP payload list.
func signingHash(code uint64, payload []byte) common.Hash {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.WriteUint64(code)
	w.Write(payload)
	w.ListEnd(l)
	return crypto.Keccak256Hash(finish(w))
}

func sign(code uint64, payload []byte, key *ecdsa.PrivateKey) ([]byte, common.Address, error) {
	h := signingHash(code, payload)
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		return nil, common.Address{}, err
	}
	return sig, crypto.PubkeyToAddress(key.PublicKey), nil
}

func writeView(w rlp.EncoderBuffer, v bft.View) {
	w.WriteUint64(v.Sequence)
	w.WriteUint64(uint64(v.Round))
}

func writeBlock(w rlp.EncoderBuffer, b *types.Block) error {
	if b == nil {
		w.Write([]byte{0xc0})
		return nil
	}
	return b.EncodeRLP(w)
}

// signed writes [payload, sig].
func signed(payload, sig []byte) []byte {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.Write(payload)
	w.WriteBytes(sig)
	w.ListEnd(l)
	return finish(w)
}

// Payload returns the RLP of the signed payload [seq, round, digest].
func (p *Prepare) Payload() []byte {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	writeView(w, p.View)
	w.WriteBytes(p.Digest[:])
	w.ListEnd(l)
	return finish(w)
}

// Sign signs p with key and sets its Signature and Author.
func (p *Prepare) Sign(key *ecdsa.PrivateKey) (err error) {
	p.Signature, p.Author, err = sign(CodePrepare, p.Payload(), key)
	return err
}

// Encode returns the wire form [[seq, round, digest], sig].
func (p *Prepare) Encode() []byte { return signed(p.Payload(), p.Signature) }

// Payload returns the RLP of the signed payload
// [seq, round, digest, commitSeal].
func (c *Commit) Payload() []byte {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	writeView(w, c.View)
	w.WriteBytes(c.Digest[:])
	w.WriteBytes(c.CommitSeal)
	w.ListEnd(l)
	return finish(w)
}

// Sign signs c with key and sets its Signature and Author.
func (c *Commit) Sign(key *ecdsa.PrivateKey) (err error) {
	c.Signature, c.Author, err = sign(CodeCommit, c.Payload(), key)
	return err
}

// Encode returns the wire form [[seq, round, digest, commitSeal], sig].
func (c *Commit) Encode() []byte { return signed(c.Payload(), c.Signature) }

// Payload returns the RLP of the signed payload [seq, round, prepared].
func (r *SignedRoundChange) Payload() []byte {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	writeView(w, r.View)
	pl := w.List()
	if r.Prepared != nil {
		w.WriteUint64(uint64(r.Prepared.Round))
		w.WriteBytes(r.Prepared.Digest[:])
	}
	w.ListEnd(pl)
	w.ListEnd(l)
	return finish(w)
}

// Sign signs r with key and sets its Signature and Author.
func (r *SignedRoundChange) Sign(key *ecdsa.PrivateKey) (err error) {
	r.Signature, r.Author, err = sign(CodeRoundChange, r.Payload(), key)
	return err
}

// Encode returns [[seq, round, prepared], sig].
func (r *SignedRoundChange) Encode() []byte { return signed(r.Payload(), r.Signature) }

func writePrepares(w rlp.EncoderBuffer, ps []*Prepare) {
	l := w.List()
	for _, p := range ps {
		w.Write(p.Encode())
	}
	w.ListEnd(l)
}

// Encode returns the wire form
// [[[seq, round, prepared], sig], preparedBlock, [prepares...]].
func (r *RoundChange) Encode() ([]byte, error) {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.Write(r.SignedRoundChange.Encode())
	if err := writeBlock(w, r.PreparedBlock); err != nil {
		return nil, err
	}
	writePrepares(w, r.Prepares)
	w.ListEnd(l)
	return finish(w), nil
}

// Payload returns the RLP of the signed payload [seq, round, block].
func (p *Proposal) Payload() ([]byte, error) {
	if p.Block == nil {
		return nil, errors.New("proposal without a block")
	}
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	writeView(w, p.View)
	if err := p.Block.EncodeRLP(w); err != nil {
		return nil, err
	}
	w.ListEnd(l)
	return finish(w), nil
}

// Sign signs p with key and sets its Signature and Author.
func (p *Proposal) Sign(key *ecdsa.PrivateKey) error {
	payload, err := p.Payload()
	if err != nil {
		return err
	}
	p.Signature, p.Author, err = sign(CodeProposal, payload, key)
	return err
}

// Encode returns the wire form
// [[[seq, round, block], sig], [[roundChanges...], [prepares...]]].
func (p *Proposal) Encode() ([]byte, error) {
	payload, err := p.Payload()
	if err != nil {
		return nil, err
	}
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.Write(signed(payload, p.Signature))
	jl := w.List()
	rl := w.List()
	for _, rc := range p.RoundChanges {
		w.Write(rc.Encode())
	}
	w.ListEnd(rl)
	writePrepares(w, p.Prepares)
	w.ListEnd(jl)
	w.ListEnd(l)
	return finish(w), nil
}

// decoding

// onlyList returns the content of b, which must be exactly one RLP list.
func onlyList(what string, b []byte) ([]byte, error) {
	c, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, msgErr(what+" must be a list", err)
	}
	if len(rest) != 0 {
		return nil, msgErr(what+": trailing bytes", nil)
	}
	return c, nil
}

func readView(b []byte) (bft.View, []byte, error) {
	var v bft.View
	s, b, err := rlp.SplitUint64(b)
	if err != nil {
		return v, nil, msgErr("sequence must be a canonical RLP integer", err)
	}
	r, b, err := rlp.SplitUint64(b)
	if err != nil {
		return v, nil, msgErr("round must be a canonical RLP integer", err)
	}
	if r > 0xffffffff {
		return v, nil, msgErr("round exceeds 32 bits", nil)
	}
	v.Sequence, v.Round = s, uint32(r)
	return v, b, nil
}

func readHash(what string, b []byte) (common.Hash, []byte, error) {
	d, rest, err := rlp.SplitString(b)
	if err != nil || len(d) != common.HashLength {
		return common.Hash{}, nil, msgErr(what+" must be 32 bytes", err)
	}
	return common.BytesToHash(d), rest, nil
}

// splitSigned splits [payload, sig] and recovers the signer of payload
// under code.
func splitSigned(code uint64, b []byte) (payload, sig []byte, author common.Address, err error) {
	c, err := onlyList("signed payload", b)
	if err != nil {
		return nil, nil, author, err
	}
	payload, c, err = bft.SplitRaw(c)
	if err != nil {
		return nil, nil, author, msgErr("payload", err)
	}
	sig, c, err = rlp.SplitString(c)
	if err != nil || len(sig) != bft.SealLength {
		return nil, nil, author, msgErr("signature must be 65 bytes", err)
	}
	if len(c) != 0 {
		return nil, nil, author, msgErr("signed payload has more than two items", nil)
	}
	if author, err = bft.RecoverSigner(signingHash(code, payload), sig); err != nil {
		return nil, nil, author, msgErr("signature", err)
	}
	return payload, bytes.Clone(sig), author, nil
}

// DecodePrepare decodes a signed PREPARE and recovers its author.
func DecodePrepare(b []byte) (*Prepare, error) {
	payload, sig, author, err := splitSigned(CodePrepare, b)
	if err != nil {
		return nil, err
	}
	c, err := onlyList("prepare payload", payload)
	if err != nil {
		return nil, err
	}
	p := &Prepare{Signature: sig, Author: author}
	if p.View, c, err = readView(c); err != nil {
		return nil, err
	}
	if p.Digest, c, err = readHash("digest", c); err != nil {
		return nil, err
	}
	if len(c) != 0 {
		return nil, msgErr("prepare payload has more than three items", nil)
	}
	return p, nil
}

// DecodeCommit decodes a signed COMMIT and recovers its author. The commit
// seal must be 65 bytes; whether it signs the block is the engine's check.
func DecodeCommit(b []byte) (*Commit, error) {
	payload, sig, author, err := splitSigned(CodeCommit, b)
	if err != nil {
		return nil, err
	}
	c, err := onlyList("commit payload", payload)
	if err != nil {
		return nil, err
	}
	m := &Commit{Signature: sig, Author: author}
	if m.View, c, err = readView(c); err != nil {
		return nil, err
	}
	if m.Digest, c, err = readHash("digest", c); err != nil {
		return nil, err
	}
	s, c, err := rlp.SplitString(c)
	if err != nil || len(s) != bft.SealLength {
		return nil, msgErr("commit seal must be 65 bytes", err)
	}
	m.CommitSeal = bytes.Clone(s)
	if len(c) != 0 {
		return nil, msgErr("commit payload has more than four items", nil)
	}
	return m, nil
}

// DecodeSignedRoundChange decodes [[seq, round, prepared], sig] and recovers
// its author.
func DecodeSignedRoundChange(b []byte) (*SignedRoundChange, error) {
	payload, sig, author, err := splitSigned(CodeRoundChange, b)
	if err != nil {
		return nil, err
	}
	c, err := onlyList("round-change payload", payload)
	if err != nil {
		return nil, err
	}
	r := &SignedRoundChange{Signature: sig, Author: author}
	if r.View, c, err = readView(c); err != nil {
		return nil, err
	}
	pc, c, err := rlp.SplitList(c)
	if err != nil {
		return nil, msgErr("prepared must be a list", err)
	}
	if len(c) != 0 {
		return nil, msgErr("round-change payload has more than three items", nil)
	}
	if len(pc) > 0 {
		pr, pc, err := rlp.SplitUint64(pc)
		if err != nil {
			return nil, msgErr("prepared round must be a canonical RLP integer", err)
		}
		if pr > 0xffffffff {
			return nil, msgErr("prepared round exceeds 32 bits", nil)
		}
		d, pc, err := readHash("prepared digest", pc)
		if err != nil {
			return nil, err
		}
		if len(pc) != 0 {
			return nil, msgErr("prepared has more than two items", nil)
		}
		r.Prepared = &Prepared{Round: uint32(pr), Digest: d}
	}
	return r, nil
}

func readPrepares(b []byte) ([]*Prepare, []byte, error) {
	ps, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, nil, msgErr("prepares must be a list", err)
	}
	var out []*Prepare
	for len(ps) > 0 {
		var s []byte
		if s, ps, err = bft.SplitRaw(ps); err != nil {
			return nil, nil, msgErr("prepare", err)
		}
		p, err := DecodePrepare(s)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, p)
	}
	return out, rest, nil
}

func decodeBlock(b []byte) (*types.Block, error) {
	blk := new(types.Block)
	if err := rlp.DecodeBytes(b, blk); err != nil {
		return nil, msgErr("block", err)
	}
	return blk, nil
}

// DecodeRoundChange decodes a ROUND-CHANGE and recovers the authors of it
// and of its prepares.
func DecodeRoundChange(b []byte) (*RoundChange, error) {
	c, err := onlyList("round change", b)
	if err != nil {
		return nil, err
	}
	s, c, err := bft.SplitRaw(c)
	if err != nil {
		return nil, msgErr("signed round change", err)
	}
	src, err := DecodeSignedRoundChange(s)
	if err != nil {
		return nil, err
	}
	r := &RoundChange{SignedRoundChange: *src}
	blk, c, err := bft.SplitRaw(c)
	if err != nil {
		return nil, msgErr("prepared block", err)
	}
	if !bytes.Equal(blk, []byte{0xc0}) {
		if r.PreparedBlock, err = decodeBlock(blk); err != nil {
			return nil, err
		}
	}
	if r.Prepares, c, err = readPrepares(c); err != nil {
		return nil, err
	}
	if len(c) != 0 {
		return nil, msgErr("round change has more than three items", nil)
	}
	return r, nil
}

// DecodeProposal decodes a PRE-PREPARE and recovers the authors of it and
// of its justification.
func DecodeProposal(b []byte) (*Proposal, error) {
	c, err := onlyList("proposal", b)
	if err != nil {
		return nil, err
	}
	s, c, err := bft.SplitRaw(c)
	if err != nil {
		return nil, msgErr("signed proposal", err)
	}
	payload, sig, author, err := splitSigned(CodeProposal, s)
	if err != nil {
		return nil, err
	}
	p := &Proposal{Signature: sig, Author: author}
	pc, err := onlyList("proposal payload", payload)
	if err != nil {
		return nil, err
	}
	if p.View, pc, err = readView(pc); err != nil {
		return nil, err
	}
	blk, pc, err := bft.SplitRaw(pc)
	if err != nil {
		return nil, msgErr("block", err)
	}
	if len(pc) != 0 {
		return nil, msgErr("proposal payload has more than three items", nil)
	}
	if p.Block, err = decodeBlock(blk); err != nil {
		return nil, err
	}
	j, c, err := rlp.SplitList(c)
	if err != nil {
		return nil, msgErr("justification must be a list", err)
	}
	if len(c) != 0 {
		return nil, msgErr("proposal has more than two items", nil)
	}
	rcs, j, err := rlp.SplitList(j)
	if err != nil {
		return nil, msgErr("round changes must be a list", err)
	}
	for len(rcs) > 0 {
		var s []byte
		if s, rcs, err = bft.SplitRaw(rcs); err != nil {
			return nil, msgErr("round change", err)
		}
		rc, err := DecodeSignedRoundChange(s)
		if err != nil {
			return nil, err
		}
		p.RoundChanges = append(p.RoundChanges, rc)
	}
	if p.Prepares, j, err = readPrepares(j); err != nil {
		return nil, err
	}
	if len(j) != 0 {
		return nil, msgErr("justification has more than two items", nil)
	}
	return p, nil
}

// DecodeMessage decodes the istanbul/100 payload of a QBFT message code
// (relative to the sub-protocol offset) into a *Proposal, *Prepare, *Commit
// or *RoundChange.
func DecodeMessage(code uint64, data []byte) (any, error) {
	var (
		m   any
		err error
	)
	switch code {
	case CodeProposal:
		m, err = DecodeProposal(data)
	case CodePrepare:
		m, err = DecodePrepare(data)
	case CodeCommit:
		m, err = DecodeCommit(data)
	case CodeRoundChange:
		m, err = DecodeRoundChange(data)
	default:
		return nil, msgErr(fmt.Sprintf("message code %#x is not a QBFT message", code), nil)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
