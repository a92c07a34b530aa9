package enclave

import (
	"encoding/base64"
	"sort"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/ethereum/go-ethereum/rlp"
	"golang.org/x/crypto/sha3"
)

// indexSeed is the fixed seed of the membership index key (Orion's
// QueryPrivacyGroupStorage).
var indexSeed = []byte{
	0x53, 0x75, 0xba, 0x87, 0x1e, 0x5c, 0x3d, 0x0f, 0x1d, 0x05,
	0x5b, 0x5d, 0xa0, 0xac, 0x02, 0xea, 0x03, 0x5b, 0xed, 0x38,
}

// GroupID computes a privacy group id as Orion's generatePrivacyGroupId and
// Besu's calculateEeaPrivacyGroupId do:
//
//  1. drop duplicate members (keeping the first of each);
//  2. sort stably, ascending, by Java's Arrays.hashCode of the key bytes as a
//     signed int32 (not by the bytes themselves);
//  3. for a PANTHEON group with a non-nil seed, append the seed;
//  4. Keccak-256 (legacy Keccak, not SHA3) of the RLP list of those byte strings.
//
// Because equal hash codes keep the input order, two orderings of the same
// members can in principle give different ids, exactly as in Orion.
func GroupID(members []keys.PublicKey, seed []byte, typ payload.GroupType) [32]byte {
	seen := make(map[keys.PublicKey]bool, len(members))
	distinct := make([]keys.PublicKey, 0, len(members))
	for _, m := range members {
		if !seen[m] {
			seen[m] = true
			distinct = append(distinct, m)
		}
	}
	sort.SliceStable(distinct, func(i, j int) bool {
		return distinct[i].JavaHashCode() < distinct[j].JavaHashCode()
	})
	list := make([][]byte, 0, len(distinct)+1)
	for i := range distinct {
		list = append(list, distinct[i][:])
	}
	if seed != nil && typ == payload.Pantheon {
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

// GroupIDString is GroupID in Base64, the form APIs and storage use.
func GroupIDString(members []keys.PublicKey, seed []byte, typ payload.GroupType) string {
	id := GroupID(members, seed, typ)
	return base64.StdEncoding.EncodeToString(id[:])
}

// IndexKey is the storage key of the membership index entry for a member set:
// the PANTHEON id of the members with a fixed seed. Order and duplicates of
// members do not matter (up to equal Java hash codes, see GroupID).
func IndexKey(members []keys.PublicKey) string {
	return GroupIDString(members, indexSeed, payload.Pantheon)
}
