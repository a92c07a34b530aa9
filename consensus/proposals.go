package consensus

import (
	"bytes"
	"maps"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// Proposals are the node's own pending votes on the validator (or signer)
// set — clique_propose, ibft_proposeValidatorVote, qbft_proposeValidatorVote:
// candidates it wants added (true) or dropped (false). They stay until
// discarded, as in Besu, and the node casts one in each block it proposes,
// in turn (Besu's VoteProposer, which Clique and the BFT engines share). It
// is safe for concurrent use: JSON-RPC methods change it while the
// producer reads it.
type Proposals struct {
	mu      sync.Mutex
	votes   map[common.Address]bool
	pointer int // rotates through the useful proposals
}

// NewProposals returns an empty set of proposals.
func NewProposals() *Proposals { return &Proposals{votes: map[common.Address]bool{}} }

// Propose records a vote to add (true) or drop (false) a, replacing any
// earlier one about a.
func (p *Proposals) Propose(a common.Address, add bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.votes[a] = add
}

// Discard forgets the vote about a.
func (p *Proposals) Discard(a common.Address) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.votes, a)
}

// Pending returns a copy of the votes by address.
func (p *Proposals) Pending() map[common.Address]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.votes)
}

// Next returns the vote to cast in the next block: among the proposals
// useful says would change the tally after the parent (the engine's rule),
// taken in address order, the one after the last cast, so that several
// proposals are all voted on.
func (p *Proposals) Next(useful func(candidate common.Address, add bool) bool) (candidate common.Address, add, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var cands []common.Address
	for a, add := range p.votes {
		if useful(a, add) {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return common.Address{}, false, false
	}
	slices.SortFunc(cands, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	p.pointer = (p.pointer + 1) % len(cands)
	a := cands[p.pointer]
	return a, p.votes[a], true
}
