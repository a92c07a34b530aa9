package clique

import (
	"github.com/ethereum/go-ethereum/common"
)

// Propose records the node's proposal to add (authorize) or drop a signer.
func (e *Engine) Propose(a common.Address, authorize bool) { e.proposals.Propose(a, authorize) }

// Discard forgets the node's proposal about a.
func (e *Engine) Discard(a common.Address) { e.proposals.Discard(a) }

// Proposals returns the node's proposals: true to add, false to drop.
func (e *Engine) Proposals() map[common.Address]bool { return e.proposals.Pending() }

// pickVote chooses the vote for the next block the node seals after snap,
// as Besu's VoteProposer does: among the proposals whose vote would change
// the tally (add a non-signer the node has not yet voted to add, drop a
// signer it has not yet voted to drop, or reverse its outstanding vote),
// the next one in turn, so that several proposals are all voted on. The
// proposals are taken in address order, so the rotation is deterministic.
func (e *Engine) pickVote(snap *Snapshot) (Vote, bool) {
	c, auth, ok := e.proposals.Next(func(c common.Address, auth bool) bool {
		return voteChangesTally(snap, e.signer, c, auth)
	})
	return Vote{Signer: e.signer, Candidate: c, Authorize: auth}, ok
}

// voteChangesTally is Besu's VoteProposer.voteNotYetCast.
func voteChangesTally(snap *Snapshot, self, candidate common.Address, authorize bool) bool {
	votedAdd := snap.hasVoted(self, candidate, true)
	votedDrop := snap.hasVoted(self, candidate, false)
	signer := snap.IsSigner(candidate)
	if authorize {
		return (!signer && !votedAdd) || votedDrop
	}
	return (signer && !votedDrop) || votedAdd
}
