package ibft2

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

// IBF/1, the devp2p sub-protocol of IBFT 2.0 (Besu's IbftSubProtocol).
const (
	ProtocolName    = "IBF"
	ProtocolVersion = 1
	ProtocolLength  = 4
)

// ErrMessageFormat is wrapped by every message decoding error.
var ErrMessageFormat = errors.New("invalid IBF/1 message")

func formatErr(what string, err error) error { return bft.FormatError(ErrMessageFormat, what, err) }

// writeRoundID inlines a round identifier: the sequence as a fixed 8-byte
// and the round as a fixed 4-byte big-endian value.
func writeRoundID(w rlp.EncoderBuffer, v bft.View) {
	var s [8]byte
	var r [4]byte
	for i := range 8 {
		s[i] = byte(v.Sequence >> (56 - 8*i))
	}
	for i := range 4 {
		r[i] = byte(v.Round >> (24 - 8*i))
	}
	w.WriteBytes(s[:])
	w.WriteBytes(r[:])
}

func readRoundID(b []byte) (bft.View, []byte, error) {
	s, b, err := rlp.SplitString(b)
	if err != nil || len(s) != 8 {
		return bft.View{}, nil, formatErr("sequence must be 8 bytes", err)
	}
	r, b, err := rlp.SplitString(b)
	if err != nil || len(r) != 4 {
		return bft.View{}, nil, formatErr("round must be 4 bytes", err)
	}
	var v bft.View
	for _, x := range s {
		v.Sequence = v.Sequence<<8 | uint64(x)
	}
	for _, x := range r {
		v.Round = v.Round<<8 | uint32(x)
	}
	return v, b, nil
}

// payload is the RLP of a message's unsigned payload.
func payload(m *bft.Message) ([]byte, error) {
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	writeRoundID(w, m.View)
	switch m.Kind {
	case bft.KindProposal, bft.KindPrepare:
		w.WriteBytes(m.Digest[:])
	case bft.KindCommit:
		w.WriteBytes(m.Digest[:])
		w.WriteBytes(m.CommitSeal)
	case bft.KindRoundChange:
		if m.Prepared == nil {
			w.WriteBytes(nil)
		} else {
			pl := w.List()
			if m.Prepared.Proposal.Signed == nil {
				return nil, errors.New("prepared certificate's proposal is not signed")
			}
			w.Write(m.Prepared.Proposal.Signed)
			ps := w.List()
			for _, p := range m.Prepared.Prepares {
				if p.Signed == nil {
					return nil, errors.New("prepared certificate's prepare is not signed")
				}
				w.Write(p.Signed)
			}
			w.ListEnd(ps)
			w.ListEnd(pl)
		}
	default:
		return nil, fmt.Errorf("unknown message kind %d", m.Kind)
	}
	w.ListEnd(l)
	out := w.ToBytes()
	w.Flush()
	return out, nil
}

// signingHash is what a message signature signs: keccak256(code ‖ RLP(payload)).
func signingHash(kind bft.Kind, payload []byte) common.Hash {
	return crypto.Keccak256Hash([]byte{byte(kind)}, payload)
}

// Sign signs m with key and sets m.Signed and m.Wire.
func Sign(m *bft.Message, key *ecdsa.PrivateKey) error {
	p, err := payload(m)
	if err != nil {
		return err
	}
	h := signingHash(m.Kind, p)
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		return err
	}
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.Write(p)
	w.WriteBytes(sig)
	w.ListEnd(l)
	m.Signed = w.ToBytes()
	w.Flush()
	return encodeWire(m)
}

// encodeWire sets m.Wire from m.Signed and the message's wrapper items.
func encodeWire(m *bft.Message) error {
	switch m.Kind {
	case bft.KindPrepare, bft.KindCommit:
		m.Wire = m.Signed
		return nil
	}
	w := rlp.NewEncoderBuffer(nil)
	l := w.List()
	w.Write(m.Signed)
	if m.Block == nil {
		w.WriteBytes(nil)
	} else if err := m.Block.EncodeRLP(w); err != nil {
		return err
	}
	if m.Kind == bft.KindProposal {
		if len(m.RoundChanges) == 0 {
			w.WriteBytes(nil)
		} else {
			outer := w.List()
			inner := w.List()
			for _, rc := range m.RoundChanges {
				w.Write(rc.Signed)
			}
			w.ListEnd(inner)
			w.ListEnd(outer)
		}
	}
	w.ListEnd(l)
	m.Wire = w.ToBytes()
	w.Flush()
	return nil
}

// DecodeMessage decodes an IBF/1 message of code and recovers the signers
// of it and of every message it embeds.
func DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	if code >= ProtocolLength {
		return nil, formatErr(fmt.Sprintf("message code %d", code), nil)
	}
	kind := bft.Kind(code)
	var m *bft.Message
	switch kind {
	case bft.KindPrepare, bft.KindCommit:
		signed, rest, err := bft.SplitRaw(data)
		if err != nil || len(rest) != 0 {
			return nil, formatErr("signed data", err)
		}
		if m, err = decodeSigned(kind, signed); err != nil {
			return nil, err
		}
	case bft.KindProposal, bft.KindRoundChange:
		body, rest, err := rlp.SplitList(data)
		if err != nil || len(rest) != 0 {
			return nil, formatErr("message list", err)
		}
		signed, body, err := bft.SplitRaw(body)
		if err != nil {
			return nil, formatErr("signed data", err)
		}
		if m, err = decodeSigned(kind, signed); err != nil {
			return nil, err
		}
		blk, body, err := bft.SplitRaw(body)
		if err != nil {
			return nil, formatErr("block", err)
		}
		if !bytes.Equal(blk, []byte{0x80}) {
			m.Block = new(types.Block)
			if err := rlp.DecodeBytes(blk, m.Block); err != nil {
				return nil, formatErr("block", err)
			}
		} else if kind == bft.KindProposal {
			return nil, formatErr("proposal without a block", nil)
		}
		if kind == bft.KindProposal {
			cert, r, err := bft.SplitRaw(body)
			if err != nil {
				return nil, formatErr("round-change certificate", err)
			}
			body = r
			if !bytes.Equal(cert, []byte{0x80}) {
				if m.RoundChanges, err = decodeRoundChangeCert(cert); err != nil {
					return nil, err
				}
			}
		}
		if len(body) != 0 {
			return nil, formatErr("too many items", nil)
		}
	}
	m.Wire = data
	return m, nil
}

func decodeRoundChangeCert(b []byte) ([]*bft.Message, error) {
	outer, rest, err := rlp.SplitList(b)
	if err != nil || len(rest) != 0 {
		return nil, formatErr("round-change certificate", err)
	}
	inner, rest, err := rlp.SplitList(outer)
	if err != nil || len(rest) != 0 {
		return nil, formatErr("round-change certificate", err)
	}
	var out []*bft.Message
	for len(inner) > 0 {
		var s []byte
		if s, inner, err = bft.SplitRaw(inner); err != nil {
			return nil, formatErr("round change", err)
		}
		rc, err := decodeSigned(bft.KindRoundChange, s)
		if err != nil {
			return nil, err
		}
		out = append(out, rc)
	}
	return out, nil
}

// decodeSigned decodes SignedData [payload, signature] of kind.
func decodeSigned(kind bft.Kind, signed []byte) (*bft.Message, error) {
	list, rest, err := rlp.SplitList(signed)
	if err != nil || len(rest) != 0 {
		return nil, formatErr("signed data", err)
	}
	p, list, err := bft.SplitRaw(list)
	if err != nil {
		return nil, formatErr("payload", err)
	}
	sig, list, err := rlp.SplitString(list)
	if err != nil || len(list) != 0 {
		return nil, formatErr("signature", err)
	}
	author, err := bft.RecoverSigner(signingHash(kind, p), sig)
	if err != nil {
		return nil, formatErr("signature", err)
	}
	m := &bft.Message{Kind: kind, Author: author, Signed: signed}
	body, rest, err := rlp.SplitList(p)
	if err != nil || len(rest) != 0 {
		return nil, formatErr("payload", err)
	}
	if m.View, body, err = readRoundID(body); err != nil {
		return nil, err
	}
	switch kind {
	case bft.KindProposal, bft.KindPrepare, bft.KindCommit:
		d, r, err := rlp.SplitString(body)
		if err != nil || len(d) != common.HashLength {
			return nil, formatErr("digest", err)
		}
		m.Digest, body = common.BytesToHash(d), r
		if kind == bft.KindCommit {
			s, r, err := rlp.SplitString(body)
			if err != nil || len(s) != bft.SealLength {
				return nil, formatErr("commit seal", err)
			}
			m.CommitSeal, body = bytes.Clone(s), r
		}
	case bft.KindRoundChange:
		pc, r, err := bft.SplitRaw(body)
		if err != nil {
			return nil, formatErr("prepared certificate", err)
		}
		body = r
		if !bytes.Equal(pc, []byte{0x80}) {
			if m.Prepared, err = decodePreparedCert(pc); err != nil {
				return nil, err
			}
		}
	}
	if len(body) != 0 {
		return nil, formatErr("too many payload items", nil)
	}
	return m, nil
}

func decodePreparedCert(b []byte) (*bft.PreparedCertificate, error) {
	list, rest, err := rlp.SplitList(b)
	if err != nil || len(rest) != 0 {
		return nil, formatErr("prepared certificate", err)
	}
	sp, list, err := bft.SplitRaw(list)
	if err != nil {
		return nil, formatErr("prepared certificate proposal", err)
	}
	pc := new(bft.PreparedCertificate)
	if pc.Proposal, err = decodeSigned(bft.KindProposal, sp); err != nil {
		return nil, err
	}
	prepares, list, err := rlp.SplitList(list)
	if err != nil || len(list) != 0 {
		return nil, formatErr("prepared certificate prepares", err)
	}
	for len(prepares) > 0 {
		var s []byte
		if s, prepares, err = bft.SplitRaw(prepares); err != nil {
			return nil, formatErr("prepare", err)
		}
		p, err := decodeSigned(bft.KindPrepare, s)
		if err != nil {
			return nil, err
		}
		pc.Prepares = append(pc.Prepares, p)
	}
	return pc, nil
}
