package bft

import "fmt"

// qbftRules are QBFT's (the QBFT specification's isJustified, as Besu's
// QBFT and GoQuorum's qbft core check it).
type qbftRules struct{}

func (qbftRules) Name() string           { return "QBFT" }
func (qbftRules) proposerPrepares() bool { return true }
func (qbftRules) roundInHeader() bool    { return false }

// checkPrepared: the claimed round is an earlier round, and a quorum of
// distinct validators prepared the claimed digest in exactly that round. A
// certificate whose prepares are of a lower round than claimed is rejected:
// it would let a validator pass off an old prepared block as the latest.
func (qbftRules) checkPrepared(c *Core, pc *PreparedCertificate, target uint32) error {
	if pc.Proposal != nil {
		return fmt.Errorf("%w: a QBFT round change carries no proposal", ErrInvalidCert)
	}
	if pc.PreparedRound >= target {
		return fmt.Errorf("%w: prepared round %d not below round %d", ErrInvalidCert, pc.PreparedRound, target)
	}
	view := View{Sequence: c.height.Sequence, Round: pc.PreparedRound}
	return c.checkPrepares(pc.Prepares, view, pc.PreparedDigest, nil, c.quorum())
}

// checkJustification: a quorum of round changes for the proposal's round;
// when any claims a prepared block, the proposal's prepares are a quorum for
// the highest claimed round and digest, and the proposal re-proposes that
// block.
func (qbftRules) checkJustification(c *Core, p *Message) error {
	if err := c.checkRoundChangeQuorum(p); err != nil {
		return err
	}
	for _, rc := range p.RoundChanges {
		if rc.Prepared != nil && rc.Prepared.Round() >= p.View.Round {
			return fmt.Errorf("%w: round change claims round %d, not below %d", ErrInvalidCert, rc.Prepared.Round(), p.View.Round)
		}
	}
	best := bestPrepared(p.RoundChanges)
	if best == nil {
		if len(p.Prepares) != 0 {
			return fmt.Errorf("%w: prepares without a prepared round change", ErrInvalidCert)
		}
		return nil
	}
	view := View{Sequence: c.height.Sequence, Round: best.Prepared.Round()}
	if err := c.checkPrepares(p.Prepares, view, best.Prepared.Digest(), nil, c.quorum()); err != nil {
		return err
	}
	return c.checkReproposal(p)
}
