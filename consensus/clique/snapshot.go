package clique

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Difficulties of Clique blocks: the signer whose turn it is seals with 2,
// any other authorised signer with 1, so the chain of in-turn blocks is the
// heaviest.
var (
	DiffInTurn    = big.NewInt(2)
	DiffNoTurn    = big.NewInt(1)
	nonceAuthVote = types.BlockNonce{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	nonceDropVote = types.BlockNonce{}
)

// Errors of the signer rules.
var (
	ErrUnauthorizedSigner = errors.New("clique: signer is not authorised")
	ErrRecentlySigned     = errors.New("clique: signer signed a recent block")
	ErrInvalidVote        = errors.New("clique: nonce is neither the add (0xff…ff) nor the drop (0x0) vote")
	ErrNotContiguous      = errors.New("clique: headers do not extend the snapshot")
)

// Vote is an outstanding vote: signer, in a block it sealed, asked to add
// (Authorize) or drop Candidate.
type Vote struct {
	Signer    common.Address `json:"signer"`
	Candidate common.Address `json:"candidate"`
	Authorize bool           `json:"authorize"`
}

// Snapshot is the signer state after one block: who may sign, who signed
// the latest blocks and the votes not yet decided. It is immutable; apply
// returns a new one. Everything about it is a pure function of the chain:
// no clock, key or storage is involved, so the voting and recency rules are
// tested on it alone.
type Snapshot struct {
	// Number and Hash name the block the snapshot is taken after.
	Number uint64      `json:"number"`
	Hash   common.Hash `json:"hash"`
	// Signers are the authorised signers, in ascending order (the order of
	// turns and of the checkpoint lists in extraData).
	Signers []common.Address `json:"signers"`
	// Recents holds the signer of each of the latest blocks, by number:
	// enough of them for the recency rule (a signer may seal at most one
	// of any len(Signers)/2+1 consecutive blocks), plus one in case a vote
	// grows the signer set.
	Recents map[uint64]common.Address `json:"recents"`
	// Votes are the outstanding votes in the order they were cast; a
	// signer has at most one per candidate.
	Votes []Vote `json:"votes"`
}

// newSnapshot returns the snapshot after a checkpoint (the genesis block):
// signers and nothing else.
func newSnapshot(number uint64, hash common.Hash, signers []common.Address) *Snapshot {
	return &Snapshot{Number: number, Hash: hash, Signers: sortedCopy(signers), Recents: map[uint64]common.Address{}}
}

func sortedCopy(a []common.Address) []common.Address {
	out := slices.Clone(a)
	slices.SortFunc(out, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return slices.Compact(out)
}

func (s *Snapshot) copy() *Snapshot {
	return &Snapshot{
		Number:  s.Number,
		Hash:    s.Hash,
		Signers: slices.Clone(s.Signers),
		Recents: maps.Clone(s.Recents),
		Votes:   slices.Clone(s.Votes),
	}
}

// IsSigner reports whether a is an authorised signer.
func (s *Snapshot) IsSigner(a common.Address) bool {
	_, ok := slices.BinarySearchFunc(s.Signers, a, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return ok
}

// limit is the number of consecutive blocks of which a signer may seal at
// most one: floor(n/2)+1 for n signers.
func (s *Snapshot) limit() uint64 { return uint64(len(s.Signers)/2 + 1) }

// InTurn reports whether it is signer's turn to seal block number (the
// child of the snapshot's block when number is Number+1): the signer at
// index number mod n of the sorted list.
func (s *Snapshot) InTurn(number uint64, signer common.Address) bool {
	if len(s.Signers) == 0 {
		return false
	}
	return s.Signers[number%uint64(len(s.Signers))] == signer
}

// Difficulty is the difficulty of block number sealed by signer.
func (s *Snapshot) Difficulty(number uint64, signer common.Address) *big.Int {
	if s.InTurn(number, signer) {
		return new(big.Int).Set(DiffInTurn)
	}
	return new(big.Int).Set(DiffNoTurn)
}

// RecentlySigned reports whether signer sealed one of the blocks that
// forbid it to seal block number: the previous len(Signers)/2 blocks.
func (s *Snapshot) RecentlySigned(number uint64, signer common.Address) bool {
	limit := s.limit()
	for seen, who := range s.Recents {
		if who == signer && seen < number && seen+limit > number {
			return true
		}
	}
	return false
}

// CanSeal reports whether signer may seal the block after the snapshot's:
// it is authorised and did not seal one of the latest blocks.
func (s *Snapshot) CanSeal(signer common.Address) error {
	switch {
	case !s.IsSigner(signer):
		return ErrUnauthorizedSigner
	case s.RecentlySigned(s.Number+1, signer):
		return ErrRecentlySigned
	}
	return nil
}

// voteOf returns the vote a header carries, if any: the coinbase names the
// candidate (zero: no vote) and the nonce says add or drop.
func voteOf(header *types.Header) (candidate common.Address, authorize, ok bool, err error) {
	switch header.Nonce {
	case nonceAuthVote:
		authorize = true
	case nonceDropVote:
	default:
		return common.Address{}, false, false, ErrInvalidVote
	}
	if header.Coinbase == (common.Address{}) {
		return common.Address{}, false, false, nil
	}
	return header.Coinbase, authorize, true, nil
}

// apply returns the snapshot after headers, which must extend the
// snapshot's block one by one; signers[i] sealed headers[i] and hashes[i]
// is its block hash. Every header is checked against the signer rules
// (authorised, not recent, a known vote value) before it is applied, so a
// snapshot never holds a state the rules forbid.
//
// A block on an epoch boundary (number mod epoch == 0) is a checkpoint: it
// casts no vote and clears the outstanding ones. Any other block with a
// non-zero coinbase casts its signer's vote for it, tallied as Besu's
// VoteTally does:
//   - a signer's new vote on a candidate replaces its previous one;
//   - when the add (or drop) votes on a candidate reach floor(n/2)+1 of the
//     n current signers, the candidate is added (or dropped) and every vote
//     on it is discarded;
//   - a dropped signer's own outstanding votes are discarded with it.
func (s *Snapshot) apply(headers []*types.Header, signers []common.Address, hashes []common.Hash, epoch uint64) (*Snapshot, error) {
	if len(headers) == 0 {
		return s, nil
	}
	snap := s.copy()
	for i, header := range headers {
		number := header.Number.Uint64()
		if number != snap.Number+1 || header.ParentHash != snap.Hash {
			return nil, fmt.Errorf("%w: block %d on snapshot %d", ErrNotContiguous, number, snap.Number)
		}
		signer := signers[i]
		if err := snap.CanSeal(signer); err != nil {
			return nil, fmt.Errorf("block %d signed by %s: %w", number, signer.Hex(), err)
		}
		candidate, authorize, voted, err := voteOf(header)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", number, err)
		}
		if epoch > 0 && number%epoch == 0 {
			snap.Votes = nil
		} else if voted {
			snap.cast(Vote{Signer: signer, Candidate: candidate, Authorize: authorize})
		}
		snap.Recents[number] = signer
		// Keep the window the next block is checked against, and one more
		// block in case the next vote grows the signer set.
		keep := snap.limit()
		for seen := range snap.Recents {
			if seen+keep <= number {
				delete(snap.Recents, seen)
			}
		}
		snap.Number, snap.Hash = number, hashes[i]
	}
	return snap, nil
}

// cast records v and enacts the change on its candidate if a majority of
// the signers now asks for it.
func (s *Snapshot) cast(v Vote) {
	s.Votes = slices.DeleteFunc(s.Votes, func(o Vote) bool {
		return o.Signer == v.Signer && o.Candidate == v.Candidate
	})
	s.Votes = append(s.Votes, v)

	var adds, drops uint64
	for _, o := range s.Votes {
		if o.Candidate != v.Candidate {
			continue
		}
		if o.Authorize {
			adds++
		} else {
			drops++
		}
	}
	limit := s.limit()
	onCandidate := func(o Vote) bool { return o.Candidate == v.Candidate }
	switch {
	case adds >= limit:
		if !s.IsSigner(v.Candidate) {
			s.Signers = sortedCopy(append(s.Signers, v.Candidate))
		}
		s.Votes = slices.DeleteFunc(s.Votes, onCandidate)
	case drops >= limit:
		s.Signers = slices.DeleteFunc(s.Signers, func(a common.Address) bool { return a == v.Candidate })
		s.Votes = slices.DeleteFunc(s.Votes, func(o Vote) bool {
			return o.Candidate == v.Candidate || o.Signer == v.Candidate
		})
	}
}

// Proposals returns the outstanding votes on candidate: who asked to add
// it and who asked to drop it.
func (s *Snapshot) Proposals(candidate common.Address) (add, drop []common.Address) {
	for _, v := range s.Votes {
		if v.Candidate != candidate {
			continue
		}
		if v.Authorize {
			add = append(add, v.Signer)
		} else {
			drop = append(drop, v.Signer)
		}
	}
	return add, drop
}

// hasVoted reports whether signer has an outstanding vote on candidate in
// the given direction.
func (s *Snapshot) hasVoted(signer, candidate common.Address, authorize bool) bool {
	for _, v := range s.Votes {
		if v.Signer == signer && v.Candidate == candidate && v.Authorize == authorize {
			return true
		}
	}
	return false
}

// marshal encodes the snapshot for the database.
func (s *Snapshot) marshal() ([]byte, error) { return json.Marshal(s) }

// unmarshalSnapshot decodes a snapshot written by marshal.
func unmarshalSnapshot(data []byte) (*Snapshot, error) {
	s := new(Snapshot)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, err
	}
	if s.Recents == nil {
		s.Recents = map[uint64]common.Address{}
	}
	s.Signers = sortedCopy(s.Signers)
	return s, nil
}
