package bft

import "fmt"

// ibft2Rules are IBFT 2.0's (Besu's IBFT 2.0 RoundChangeCertificateValidator
// and its prepared-certificate check).
type ibft2Rules struct{}

func (ibft2Rules) Name() string           { return "IBFT 2.0" }
func (ibft2Rules) proposerPrepares() bool { return false }
func (ibft2Rules) roundInHeader() bool    { return true }

// checkPrepared: the signed proposal of an earlier round of this height by
// its proposer, and quorum-1 prepares of it by other validators.
func (ibft2Rules) checkPrepared(c *Core, pc *PreparedCertificate, target uint32) error {
	p := pc.Proposal
	if p == nil || p.Kind != KindProposal || p.View.Sequence != c.height.Sequence || p.View.Round >= target ||
		p.Author != c.proposer(p.View.Round) {
		return fmt.Errorf("%w: prepared certificate's proposal", ErrInvalidCert)
	}
	return c.checkPrepares(pc.Prepares, p.View, p.Digest, &p.Author, c.quorum()-1)
}

// checkJustification: a quorum of round changes, each with a valid prepared
// certificate if it has one, and the latest prepared block re-proposed.
func (r ibft2Rules) checkJustification(c *Core, p *Message) error {
	if err := c.checkRoundChangeQuorum(p); err != nil {
		return err
	}
	for _, rc := range p.RoundChanges {
		if rc.Prepared != nil {
			if err := r.checkPrepared(c, rc.Prepared, p.View.Round); err != nil {
				return err
			}
		}
	}
	return c.checkReproposal(p)
}
