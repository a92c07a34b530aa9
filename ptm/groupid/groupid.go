// Package groupid computes privacy group ids the way Orion and Besu do. The
// privacy manager (ptm/enclave, when it encrypts a payload or creates a
// group) and the node's privacy service (privacy, for the legacy group a
// private transaction's nonce counts in) must get the same id from the
// same members, so both call this package; it imports no Basalt package,
// which lets the node use it without the privacy manager's internals.
package groupid

import (
	"sort"

	"github.com/ethereum/go-ethereum/rlp"
	"golang.org/x/crypto/sha3"
)

// ID computes a privacy group id as Orion's generatePrivacyGroupId and
// Besu's calculateEeaPrivacyGroupId do, from the members' 32-byte public
// keys:
//
//  1. drop duplicate members (keeping the first of each);
//  2. sort stably, ascending, by Java's Arrays.hashCode of the key bytes as a
//     signed int32 (JavaHashCode, not by the bytes themselves);
//  3. when seed is not nil (a PANTHEON group with a seed), append the seed;
//  4. Keccak-256 (legacy Keccak, not SHA3) of the RLP list of those byte strings.
//
// Because equal hash codes keep the input order, two orderings of the same
// members can in principle give different ids, exactly as in Orion. A legacy
// group (privateFrom and privateFor) has no seed.
func ID[K ~[32]byte](members []K, seed []byte) [32]byte {
	seen := make(map[K]bool, len(members))
	distinct := make([]K, 0, len(members))
	for _, m := range members {
		if !seen[m] {
			seen[m] = true
			distinct = append(distinct, m)
		}
	}
	sort.SliceStable(distinct, func(i, j int) bool {
		return JavaHashCode(distinct[i][:]) < JavaHashCode(distinct[j][:])
	})
	list := make([][]byte, 0, len(distinct)+1)
	for i := range distinct {
		list = append(list, distinct[i][:])
	}
	if seed != nil {
		list = append(list, seed)
	}
	enc, err := rlp.EncodeToBytes(list)
	if err != nil {
		panic(err) // a list of byte strings always encodes
	}
	h := sha3.NewLegacyKeccak256()
	h.Write(enc)
	var id [32]byte
	h.Sum(id[:0])
	return id
}

// JavaHashCode is Java's Arrays.hashCode(byte[]) of b: h = 31*h + b over
// the bytes as signed values, starting from 1, in 32-bit arithmetic. Orion
// orders group members by it.
func JavaHashCode(b []byte) int32 {
	h := int32(1)
	for _, c := range b {
		h = 31*h + int32(int8(c))
	}
	return h
}
