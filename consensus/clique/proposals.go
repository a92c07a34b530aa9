package clique

import (
	"bytes"
	"maps"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// proposals are the node's own proposals (clique_propose): candidates it
// wants added (true) or dropped (false). They stay until discarded
// (clique_discard), as in Besu; the node votes for one of them in each
// block it seals, as long as the vote would change something.
type proposals struct {
	mu sync.Mutex
	m  map[common.Address]bool
}

// set records a proposal, replacing any earlier one for the address.
func (p *proposals) set(a common.Address, authorize bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = make(map[common.Address]bool)
	}
	p.m[a] = authorize
}

// discard drops the proposal for a, if any.
func (p *proposals) discard(a common.Address) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, a)
}

// all returns a copy of the proposals.
func (p *proposals) all() map[common.Address]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := maps.Clone(p.m)
	if out == nil {
		out = map[common.Address]bool{}
	}
	return out
}

// Propose records the node's proposal to add (authorize) or drop a signer.
func (e *Engine) Propose(a common.Address, authorize bool) { e.proposals.set(a, authorize) }

// Discard forgets the node's proposal about a.
func (e *Engine) Discard(a common.Address) { e.proposals.discard(a) }

// Proposals returns the node's proposals: true to add, false to drop.
func (e *Engine) Proposals() map[common.Address]bool { return e.proposals.all() }

// pickVote chooses the vote for the next block the node seals after snap,
// as Besu's VoteProposer does: among the proposals whose vote would change
// the tally (add a non-signer the node has not yet voted to add, drop a
// signer it has not yet voted to drop, or reverse its outstanding vote),
// the next one in turn, so that several proposals are all voted on. The
// proposals are taken in address order, so the rotation is deterministic.
func (e *Engine) pickVote(snap *Snapshot) (Vote, bool) {
	all := e.proposals.all()
	cands := slices.SortedFunc(maps.Keys(all), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	var valid []Vote
	for _, c := range cands {
		auth := all[c]
		if voteChangesTally(snap, e.signer, c, auth) {
			valid = append(valid, Vote{Signer: e.signer, Candidate: c, Authorize: auth})
		}
	}
	if len(valid) == 0 {
		return Vote{}, false
	}
	e.mu.Lock()
	e.votePos = (e.votePos + 1) % len(valid)
	v := valid[e.votePos]
	e.mu.Unlock()
	return v, true
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
