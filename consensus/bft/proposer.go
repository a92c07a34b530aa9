package bft

import (
	"bytes"
	"slices"

	"github.com/ethereum/go-ethereum/common"
)

// Quorum is the number of validators whose agreement commits a block:
// ceil(2n/3) (Besu's calculateRequiredValidatorQuorum).
func Quorum(n int) int { return (2*n + 2) / 3 }

// FaultTolerance is f = floor((n-1)/3), the number of faulty validators a
// set of n tolerates.
func FaultTolerance(n int) int {
	if n == 0 {
		return 0
	}
	return (n - 1) / 3
}

// Proposer returns the proposer of round in the height after a block
// proposed by prev, among validators (ascending), as Besu's
// ProposerSelector does with changeEachBlock on: the validator after prev,
// advanced by round; when prev is not a validator (the genesis block, a
// validator voted out), counting starts at the first validator above prev.
func Proposer(validators []common.Address, prev common.Address, round uint32) common.Address {
	n := len(validators)
	if n == 0 {
		return common.Address{}
	}
	if i := slices.Index(validators, prev); i >= 0 {
		return validators[(i+1+int(round%uint32(n)))%n]
	}
	base := 0 // validators.first() when none is above prev
	for i, v := range validators {
		if bytes.Compare(v[:], prev[:]) > 0 {
			base = i
			break
		}
	}
	return validators[(base+int(round%uint32(n)))%n]
}

// SortValidators sorts addresses ascending, the order of the validator set
// in extraData and of proposer selection.
func SortValidators(v []common.Address) {
	slices.SortFunc(v, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
}
