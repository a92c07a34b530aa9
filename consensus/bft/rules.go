package bft

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// Rules are what distinguishes a message set on the shared core: who
// prepares, what a prepared certificate and a proposal's justification
// carry, and how they are checked. Everything else (views, timers, quorums,
// proposer choice, buffering, round changes, catch-up) is the core's.
// The two values are IBFT2 and QBFT.
type Rules interface {
	// Name names the message set, for logs and errors.
	Name() string
	// proposerPrepares says whether the proposer sends a Prepare too, so
	// that a round is prepared on a quorum of prepares (QBFT), rather
	// than on the proposal and quorum-1 prepares of other validators
	// (IBFT 2.0).
	proposerPrepares() bool
	// roundInHeader says whether a proposal's header must record the
	// proposal's round. QBFT's block hash (the digest) leaves the round
	// out and GoQuorum proposes every round with round 0 in the header.
	roundInHeader() bool
	// checkPrepared checks the prepared certificate a round change for
	// target carries.
	checkPrepared(c *Core, pc *PreparedCertificate, target uint32) error
	// checkJustification checks the justification of proposal p for a
	// round above 0.
	checkJustification(c *Core, p *Message) error
}

// The message sets.
var (
	// IBFT2 is IBFT 2.0's: a round change carries a prepared certificate
	// of the signed proposal and its prepares; a proposal carries the
	// round changes whole.
	IBFT2 Rules = ibft2Rules{}
	// QBFT is QBFT's: a round change claims a prepared round and digest
	// and carries the prepared block and its prepares; a proposal carries
	// the round changes' signed claims and the prepares of the latest one.
	QBFT Rules = qbftRules{}
)

// checkRoundChangeQuorum checks what both message sets ask of the round
// changes justifying p: of p's view, by distinct validators, a quorum.
func (c *Core) checkRoundChangeQuorum(p *Message) error {
	seen := map[common.Address]bool{}
	for _, rc := range p.RoundChanges {
		if rc.Kind != KindRoundChange || rc.View != p.View || !c.isValidator(rc.Author) || seen[rc.Author] {
			return fmt.Errorf("%w: round change of another view, by a non-validator or repeated", ErrInvalidCert)
		}
		seen[rc.Author] = true
	}
	if len(seen) < c.quorum() {
		return fmt.Errorf("%w: %d round changes, quorum is %d", ErrInvalidCert, len(seen), c.quorum())
	}
	return nil
}

// checkReproposal checks that proposal p re-proposes the latest prepared
// block among its round changes, if any prepared one.
func (c *Core) checkReproposal(p *Message) error {
	best := bestPrepared(p.RoundChanges)
	if best == nil {
		return nil
	}
	b, err := c.b.WithRound(p.Block, best.Prepared.Round())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidCert, err)
	}
	if d, err := c.b.Digest(b); err != nil || d != best.Prepared.Digest() {
		return fmt.Errorf("%w: proposal is not the latest prepared block", ErrInvalidCert)
	}
	return nil
}

// checkPrepares checks that prepares are at least need distinct
// validators' prepares of view for digest, none by except.
func (c *Core) checkPrepares(prepares []*Message, view View, digest common.Hash, except *common.Address, need int) error {
	seen := map[common.Address]bool{}
	for _, pr := range prepares {
		if pr.Kind != KindPrepare || pr.View != view || pr.Digest != digest || !c.isValidator(pr.Author) ||
			(except != nil && pr.Author == *except) || seen[pr.Author] {
			return fmt.Errorf("%w: prepared certificate's prepares", ErrInvalidCert)
		}
		seen[pr.Author] = true
	}
	if len(seen) < need {
		return fmt.Errorf("%w: %d prepares, %d needed", ErrInvalidCert, len(seen), need)
	}
	return nil
}
