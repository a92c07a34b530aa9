package payload

import (
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
)

// GroupType is the kind of a privacy group.
type GroupType string

// Group types. LEGACY groups are made implicitly by a /send with "to" (Besu's
// privateFor); PANTHEON groups by /createPrivacyGroup.
const (
	Legacy   GroupType = "LEGACY"
	Pantheon GroupType = "PANTHEON"
)

// GroupState is the state of a privacy group.
type GroupState string

// Group states.
const (
	Active  GroupState = "ACTIVE"
	Deleted GroupState = "DELETED"
)

// Legacy group name and description, as Orion stores them.
const (
	LegacyName        = "legacy"
	LegacyDescription = "Privacy groups to support the creation of groups by privateFor and privateFrom"
)

// PrivacyGroup is Orion's PrivacyGroupPayload. Addresses are the members'
// Base64 public keys as given by the creator (duplicates kept).
type PrivacyGroup struct {
	Addresses   []string   `cbor:"addresses"`
	Name        string     `cbor:"name"`
	Description string     `cbor:"description"`
	State       GroupState `cbor:"state"`
	Type        GroupType  `cbor:"type"`
	RandomSeed  []byte     `cbor:"randomSeed,omitempty"`
}

// Members decodes Addresses.
func (g *PrivacyGroup) Members() ([]keys.PublicKey, error) {
	return ParseKeys(g.Addresses)
}

// MarshalCBOR encodes g.
func (g *PrivacyGroup) MarshalCBOR() ([]byte, error) {
	type plain PrivacyGroup // no MarshalCBOR method: no recursion
	return encMode.Marshal((*plain)(g))
}

// DecodePrivacyGroup decodes and validates a CBOR PrivacyGroupPayload: every
// address a Base64 32-byte key (at least one), a known state and type.
func DecodePrivacyGroup(data []byte) (*PrivacyGroup, error) {
	type plain PrivacyGroup
	var g plain
	if err := Unmarshal(data, &g); err != nil {
		return nil, err
	}
	if len(g.Addresses) == 0 {
		return nil, malformed("privacy group without addresses", nil)
	}
	if _, err := ParseKeys(g.Addresses); err != nil {
		return nil, malformed("addresses", err)
	}
	if g.State != Active && g.State != Deleted {
		return nil, malformed(fmt.Sprintf("unknown state %q", g.State), nil)
	}
	if g.Type != Legacy && g.Type != Pantheon {
		return nil, malformed(fmt.Sprintf("unknown type %q", g.Type), nil)
	}
	return (*PrivacyGroup)(&g), nil
}

// DecodeGroupState reads only the state of a CBOR PrivacyGroupPayload. A
// legacy send checks its group's state on every send; reading the one field
// skips decoding the addresses, name and description.
func DecodeGroupState(data []byte) (GroupState, error) {
	var g struct {
		State GroupState `cbor:"state"`
	}
	if err := Unmarshal(data, &g); err != nil {
		return "", err
	}
	if g.State != Active && g.State != Deleted {
		return "", malformed(fmt.Sprintf("unknown state %q", g.State), nil)
	}
	return g.State, nil
}

// GroupIndex is Orion's QueryPrivacyGroupPayload as stored: the ids of the
// groups whose member set is exactly Addresses.
type GroupIndex struct {
	Addresses       []string `cbor:"addresses"`
	PrivacyGroupIDs []string `cbor:"privacyGroupId"`
	ToDelete        bool     `cbor:"toDelete"` // always false when stored; Jackson writes it
}

// MarshalCBOR encodes x.
func (x *GroupIndex) MarshalCBOR() ([]byte, error) {
	type plain GroupIndex
	return encMode.Marshal((*plain)(x))
}

// DecodeGroupIndex decodes a stored GroupIndex.
func DecodeGroupIndex(data []byte) (*GroupIndex, error) {
	type plain GroupIndex
	var x plain
	if err := Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return (*GroupIndex)(&x), nil
}

// ParseKeys decodes Base64 public keys.
func ParseKeys(b64 []string) ([]keys.PublicKey, error) {
	out := make([]keys.PublicKey, len(b64))
	for i, s := range b64 {
		k, err := keys.ParsePublicKey(s)
		if err != nil {
			return nil, fmt.Errorf("key %d (%q): %w", i, s, err)
		}
		out[i] = k
	}
	return out, nil
}
