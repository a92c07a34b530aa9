package bft

import (
	"bytes"
	"slices"

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

// VoteUseful says whether self voting to add (add) or drop candidate in
// its next block would change the tally: the candidate is not already what
// the vote asks for, and self has not cast that vote yet (the BFT engines'
// rule for consensus.Proposals.Next).
func (t *Tally) VoteUseful(self, candidate common.Address, add bool) bool {
	if add == t.IsValidator(candidate) {
		return false
	}
	prev, voted := t.Voted(self, candidate)
	return !voted || prev != add
}
