package manager

import (
	"context"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/payload"
)

// StorePushed stores a payload another instance pushed (CBOR) and returns
// its digest. The payload must be for a hosted key: at least one of its
// encrypted keys must open with one, else EnclaveNotPayloadOwner.
func (m *Manager) StorePushed(ctx context.Context, data []byte) (string, error) {
	p, err := payload.DecodeEncryptedPayload(data)
	if err != nil {
		return "", ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	openers := m.Enclave.Openers(p)
	if len(openers) == 0 {
		return "", ptm.Errorf(ptm.EnclaveNotPayloadOwner, "pushed payload from %s is for no key hosted here", p.Sender)
	}
	digest, err := m.putPayload(ctx, p, openers)
	if err != nil {
		return "", ptm.Wrap(ptm.Unmapped, err)
	}
	return digest, nil
}

// StorePushedGroup stores a privacy group another instance pushed (CBOR):
// under its id, with the membership index updated (the id removed for a
// DELETED group). It returns the id. At least one member must be hosted
// here, else EnclaveNotPayloadOwner; and auth, the request's
// GroupAuthHeader, must show that a member pushed it, else
// PrivacyGroupNotFromMember — a group, or its deletion, is never taken from
// an instance that hosts none of its members.
func (m *Manager) StorePushedGroup(ctx context.Context, data []byte, auth string) (string, error) {
	g, err := payload.DecodePrivacyGroup(data)
	if err != nil {
		return "", ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	members, _ := g.Members() // validated by the decoder
	hosted := false
	for _, k := range members {
		hosted = hosted || m.Enclave.Hosts(k)
	}
	if !hosted {
		return "", ptm.Errorf(ptm.EnclaveNotPayloadOwner, "pushed privacy group has no member hosted here")
	}
	if err := m.verifyGroupPush(data, g, auth); err != nil {
		return "", err
	}
	id := enclave.GroupIDString(members, g.RandomSeed, g.Type)
	if err := m.storeGroup(ctx, id, g); err != nil {
		return "", err
	}
	return id, nil
}
