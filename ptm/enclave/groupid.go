package enclave

import (
	"encoding/base64"

	"github.com/basaltchain/basalt/ptm/groupid"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

// indexSeed is the fixed seed of the membership index key (Orion's
// QueryPrivacyGroupStorage).
var indexSeed = []byte{
	0x53, 0x75, 0xba, 0x87, 0x1e, 0x5c, 0x3d, 0x0f, 0x1d, 0x05,
	0x5b, 0x5d, 0xa0, 0xac, 0x02, 0xea, 0x03, 0x5b, 0xed, 0x38,
}

// GroupID computes a privacy group id (groupid.ID): of the members alone
// for a LEGACY group or a nil seed, of the members and the seed for a
// PANTHEON group with one.
func GroupID(members []keys.PublicKey, seed []byte, typ payload.GroupType) [32]byte {
	if typ != payload.Pantheon {
		seed = nil
	}
	return groupid.ID(members, seed)
}

// GroupIDString is GroupID in Base64, the form APIs and storage use.
func GroupIDString(members []keys.PublicKey, seed []byte, typ payload.GroupType) string {
	id := GroupID(members, seed, typ)
	return base64.StdEncoding.EncodeToString(id[:])
}

// IndexKey is the storage key of the membership index entry for a member set:
// the PANTHEON id of the members with a fixed seed. Order and duplicates of
// members do not matter (up to equal Java hash codes, see groupid.ID).
func IndexKey(members []keys.PublicKey) string {
	return GroupIDString(members, indexSeed, payload.Pantheon)
}
