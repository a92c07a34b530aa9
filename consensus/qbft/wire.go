package qbft

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/basaltchain/basalt/consensus/bft"
)

// Code is the istanbul/100 message code of a core message kind.
func Code(k bft.Kind) uint64 { return CodeProposal + uint64(k) }

// Sign signs m, a message of the local validator, with key and sets
// m.Signed (what justifications embed: the signed payload) and m.Wire (the
// message as sent).
func Sign(m *bft.Message, key *ecdsa.PrivateKey) error {
	switch m.Kind {
	case bft.KindPrepare:
		p := &Prepare{View: m.View, Digest: m.Digest}
		if err := p.Sign(key); err != nil {
			return err
		}
		m.Signed = p.Encode()
		m.Wire = m.Signed
	case bft.KindCommit:
		c := &Commit{View: m.View, Digest: m.Digest, CommitSeal: m.CommitSeal}
		if err := c.Sign(key); err != nil {
			return err
		}
		m.Signed = c.Encode()
		m.Wire = m.Signed
	case bft.KindRoundChange:
		rc := &RoundChange{SignedRoundChange: SignedRoundChange{View: m.View}, PreparedBlock: m.Block}
		if pc := m.Prepared; pc != nil {
			rc.Prepared = &Prepared{Round: pc.Round(), Digest: pc.Digest()}
			ps, err := prepares(pc.Prepares)
			if err != nil {
				return err
			}
			rc.Prepares = ps
		}
		if err := rc.SignedRoundChange.Sign(key); err != nil {
			return err
		}
		wire, err := rc.Encode()
		if err != nil {
			return err
		}
		m.Signed, m.Wire = rc.SignedRoundChange.Encode(), wire
	case bft.KindProposal:
		p := &Proposal{View: m.View, Block: m.Block}
		for _, rc := range m.RoundChanges {
			s, err := DecodeSignedRoundChange(rc.Signed)
			if err != nil {
				return fmt.Errorf("justification: %w", err)
			}
			p.RoundChanges = append(p.RoundChanges, s)
		}
		ps, err := prepares(m.Prepares)
		if err != nil {
			return err
		}
		p.Prepares = ps
		if err := p.Sign(key); err != nil {
			return err
		}
		payload, err := p.Payload()
		if err != nil {
			return err
		}
		wire, err := p.Encode()
		if err != nil {
			return err
		}
		m.Signed, m.Wire = signed(payload, p.Signature), wire
	default:
		return fmt.Errorf("unknown message kind %d", m.Kind)
	}
	return nil
}

// prepares re-reads the signed prepares of core messages.
func prepares(ms []*bft.Message) ([]*Prepare, error) {
	out := make([]*Prepare, 0, len(ms))
	for _, m := range ms {
		p, err := DecodePrepare(m.Signed)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

func prepareMessage(p *Prepare) *bft.Message {
	enc := p.Encode()
	return &bft.Message{Kind: bft.KindPrepare, View: p.View, Author: p.Author, Digest: p.Digest, Signed: enc, Wire: enc}
}

func prepareMessages(ps []*Prepare) []*bft.Message {
	out := make([]*bft.Message, len(ps))
	for i, p := range ps {
		out[i] = prepareMessage(p)
	}
	return out
}

// roundChangeClaim is the core message of a signed round change as a
// proposal's justification carries it: a claim, without prepares.
func roundChangeClaim(s *SignedRoundChange) *bft.Message {
	m := &bft.Message{Kind: bft.KindRoundChange, View: s.View, Author: s.Author, Signed: s.Encode()}
	if s.Prepared != nil {
		m.Prepared = &bft.PreparedCertificate{PreparedRound: s.Prepared.Round, PreparedDigest: s.Prepared.Digest}
	}
	return m
}

// Decode decodes an istanbul/100 QBFT message of code for the core,
// recovering the signers of it and of every message it embeds.
func Decode(code uint64, data []byte) (*bft.Message, error) {
	var m *bft.Message
	switch code {
	case CodePrepare:
		p, err := DecodePrepare(data)
		if err != nil {
			return nil, err
		}
		m = prepareMessage(p)
	case CodeCommit:
		c, err := DecodeCommit(data)
		if err != nil {
			return nil, err
		}
		m = &bft.Message{Kind: bft.KindCommit, View: c.View, Author: c.Author, Digest: c.Digest,
			CommitSeal: c.CommitSeal, Signed: data}
	case CodeRoundChange:
		rc, err := DecodeRoundChange(data)
		if err != nil {
			return nil, err
		}
		m = roundChangeClaim(&rc.SignedRoundChange)
		m.Block = rc.PreparedBlock
		if m.Prepared != nil {
			m.Prepared.Prepares = prepareMessages(rc.Prepares)
		} else if len(rc.Prepares) != 0 {
			return nil, msgErr("prepares in a round change that prepared nothing", nil)
		}
	case CodeProposal:
		p, err := DecodeProposal(data)
		if err != nil {
			return nil, err
		}
		m = &bft.Message{Kind: bft.KindProposal, View: p.View, Author: p.Author, Block: p.Block,
			Digest: BlockHash(p.Block.Header()), Prepares: prepareMessages(p.Prepares)}
		for _, rc := range p.RoundChanges {
			m.RoundChanges = append(m.RoundChanges, roundChangeClaim(rc))
		}
		payload, err := p.Payload()
		if err != nil {
			return nil, err
		}
		m.Signed = signed(payload, p.Signature)
	default:
		return nil, msgErr(fmt.Sprintf("message code %#x is not a QBFT message", code), nil)
	}
	m.Wire = data
	return m, nil
}
