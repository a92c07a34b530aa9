package bft

import (
	"bytes"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// Tally is the validator set and the outstanding votes after a block, as
// Besu's VoteTally keeps them: a candidate is added or dropped once more
// than half of the current validators voted so, and the votes about it are
// then forgotten; a dropped validator's own votes go with it; an epoch
// block discards every outstanding vote.
type Tally struct {
	validators []common.Address
	add        map[common.Address]map[common.Address]bool // candidate -> voters
	drop       map[common.Address]map[common.Address]bool
}

// NewTally returns a tally of validators with no votes.
func NewTally(validators []common.Address) *Tally {
	v := slices.Clone(validators)
	SortValidators(v)
	return &Tally{validators: slices.Compact(v), add: map[common.Address]map[common.Address]bool{},
		drop: map[common.Address]map[common.Address]bool{}}
}

// Copy returns an independent copy.
func (t *Tally) Copy() *Tally {
	c := &Tally{validators: slices.Clone(t.validators), add: map[common.Address]map[common.Address]bool{},
		drop: map[common.Address]map[common.Address]bool{}}
	for k, v := range t.add {
		c.add[k] = cloneSet(v)
	}
	for k, v := range t.drop {
		c.drop[k] = cloneSet(v)
	}
	return c
}

func cloneSet(s map[common.Address]bool) map[common.Address]bool {
	out := make(map[common.Address]bool, len(s))
	for k := range s {
		out[k] = true
	}
	return out
}

// Validators returns the validators, ascending (a copy).
func (t *Tally) Validators() []common.Address { return slices.Clone(t.validators) }

// IsValidator reports whether a is a validator.
func (t *Tally) IsValidator(a common.Address) bool {
	_, ok := slices.BinarySearchFunc(t.validators, a, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return ok
}

// Voted reports the outstanding vote of voter about candidate, if any.
func (t *Tally) Voted(voter, candidate common.Address) (add, ok bool) {
	if t.add[candidate][voter] {
		return true, true
	}
	if t.drop[candidate][voter] {
		return false, true
	}
	return false, false
}

// AddVote records proposer's vote to add (or drop) candidate and applies
// it when a majority (n/2+1) agrees.
func (t *Tally) AddVote(proposer, candidate common.Address, add bool) {
	if t.add[candidate] == nil {
		t.add[candidate] = map[common.Address]bool{}
	}
	if t.drop[candidate] == nil {
		t.drop[candidate] = map[common.Address]bool{}
	}
	if add {
		t.add[candidate][proposer] = true
		delete(t.drop[candidate], proposer)
	} else {
		t.drop[candidate][proposer] = true
		delete(t.add[candidate], proposer)
	}
	limit := len(t.validators)/2 + 1
	if len(t.add[candidate]) >= limit {
		if !t.IsValidator(candidate) {
			t.validators = append(t.validators, candidate)
			SortValidators(t.validators)
		}
		delete(t.add, candidate)
		delete(t.drop, candidate)
	}
	if len(t.drop[candidate]) >= limit {
		t.validators = slices.DeleteFunc(t.validators, func(a common.Address) bool { return a == candidate })
		delete(t.add, candidate)
		delete(t.drop, candidate)
		for _, s := range t.add {
			delete(s, candidate)
		}
		for _, s := range t.drop {
			delete(s, candidate)
		}
	}
}

// DiscardOutstandingVotes forgets every vote (at an epoch block).
func (t *Tally) DiscardOutstandingVotes() {
	clear(t.add)
	clear(t.drop)
}

// Proposals are the local validator's pending votes
// (ibft_proposeValidatorVote), cast one per proposed block, in turn (Besu's
// VoteProposer). It is safe for concurrent use: RPC methods change it while
// the producer reads it.
type Proposals struct {
	mu      sync.Mutex
	votes   map[common.Address]bool
	pointer int
}

// NewProposals returns an empty set of proposals.
func NewProposals() *Proposals { return &Proposals{votes: map[common.Address]bool{}} }

// Propose records a vote to add (true) or drop (false) a.
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

// Pending returns the votes by address.
func (p *Proposals) Pending() map[common.Address]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[common.Address]bool, len(p.votes))
	for k, v := range p.votes {
		out[k] = v
	}
	return out
}

// Next returns the vote self should put in its next block given the tally
// after the parent: the next (in address order, round robin) proposal that
// would change the set and that self has not already cast.
func (p *Proposals) Next(self common.Address, t *Tally) (candidate common.Address, add, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var useful []common.Address
	for a, add := range p.votes {
		if add == t.IsValidator(a) {
			continue // already what the vote asks for
		}
		if prev, voted := t.Voted(self, a); voted && prev == add {
			continue
		}
		useful = append(useful, a)
	}
	if len(useful) == 0 {
		return common.Address{}, false, false
	}
	SortValidators(useful)
	p.pointer = (p.pointer + 1) % len(useful)
	a := useful[p.pointer]
	return a, p.votes[a], true
}
