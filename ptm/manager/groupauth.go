package manager

import (
	"bytes"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"golang.org/x/crypto/nacl/box"
)

// GroupAuthHeader is the HTTP header of a /pushPrivacyGroup request that
// says which member pushes the group, and proves it.
//
// Orion accepted any pushed group, so anyone who could reach a node API
// could delete the groups of others. Basalt accepts a pushed group only from
// an instance that holds the private key of one of its members: the pusher
// boxes, from that member's key to a member key hosted by the receiver,
//
//	groupAuthContext ‖ SHA-512/256(body)
//
// and sends "<sender key>,<recipient key>,<Base64(nonce ‖ box)>" in this
// header. The body stays Orion's PrivacyGroupPayload. The plaintext is 64
// bytes, never the 32 of a payload key, so such a box cannot be passed off
// as an encrypted key of a payload from that member.
const GroupAuthHeader = "Basalt-Privacy-Group-Auth"

// groupAuthContext is 32 bytes: the string padded with zero bytes.
var groupAuthContext = func() []byte {
	b := make([]byte, 32)
	copy(b, "basalt-privacy group push v1")
	return b
}()

// GroupAuth is a parsed GroupAuthHeader.
type GroupAuth struct {
	Sender    keys.PublicKey // the pushing member
	Recipient keys.PublicKey // a member hosted by the receiver
	Nonce     [24]byte
	Box       []byte
}

// String returns the header value.
func (a *GroupAuth) String() string {
	return a.Sender.String() + "," + a.Recipient.String() + "," +
		base64.StdEncoding.EncodeToString(append(a.Nonce[:len(a.Nonce):len(a.Nonce)], a.Box...))
}

// ParseGroupAuth parses a GroupAuthHeader value.
func ParseGroupAuth(s string) (*GroupAuth, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%s: want sender,recipient,box", GroupAuthHeader)
	}
	var a GroupAuth
	var err error
	if a.Sender, err = keys.ParsePublicKey(parts[0]); err != nil {
		return nil, fmt.Errorf("%s: sender: %w", GroupAuthHeader, err)
	}
	if a.Recipient, err = keys.ParsePublicKey(parts[1]); err != nil {
		return nil, fmt.Errorf("%s: recipient: %w", GroupAuthHeader, err)
	}
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != len(a.Nonce)+len(groupAuthContext)+sha512.Size256+box.Overhead {
		return nil, fmt.Errorf("%s: box is not Base64 of the expected size", GroupAuthHeader)
	}
	copy(a.Nonce[:], raw)
	a.Box = raw[len(a.Nonce):]
	return &a, nil
}

func groupAuthPlaintext(body []byte) []byte {
	sum := sha512.Sum512_256(body)
	return append(slices.Clip(groupAuthContext), sum[:]...)
}

// signGroupPush returns the GroupAuthHeader value for pushing body from the
// hosted member from to the member to.
func (m *Manager) signGroupPush(body []byte, from, to keys.PublicKey) (string, error) {
	a := GroupAuth{Sender: from, Recipient: to}
	if _, err := rand.Read(a.Nonce[:]); err != nil {
		return "", err
	}
	sealed, err := m.Enclave.Seal(from, to, &a.Nonce, groupAuthPlaintext(body))
	if err != nil {
		return "", err
	}
	a.Box = sealed
	return a.String(), nil
}

// verifyGroupPush checks that a pushed group (body, decoded as g) comes
// from one of its members, to one of its members hosted here.
func (m *Manager) verifyGroupPush(body []byte, g *payload.PrivacyGroup, header string) error {
	if header == "" {
		return ptm.Errorf(ptm.PrivacyGroupNotFromMember, "pushed privacy group without %s: only a member may push a group", GroupAuthHeader)
	}
	a, err := ParseGroupAuth(header)
	if err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotFromMember, err)
	}
	members, err := g.Members()
	if err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotFromMember, err)
	}
	if !slices.Contains(members, a.Sender) || !slices.Contains(members, a.Recipient) {
		return ptm.Errorf(ptm.PrivacyGroupNotFromMember, "pushed privacy group: %s or %s is not a member", a.Sender, a.Recipient)
	}
	if !m.Enclave.Hosts(a.Recipient) {
		return ptm.Errorf(ptm.PrivacyGroupNotFromMember, "pushed privacy group: %s is not hosted here", a.Recipient)
	}
	plain, ok := m.Enclave.Open(a.Recipient, a.Sender, &a.Nonce, a.Box)
	if !ok || !bytes.Equal(plain, groupAuthPlaintext(body)) {
		return ptm.Errorf(ptm.PrivacyGroupNotFromMember, "pushed privacy group: authentication by %s does not verify", a.Sender)
	}
	return nil
}
