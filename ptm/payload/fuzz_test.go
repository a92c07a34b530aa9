package payload

import (
	"bytes"
	"testing"
)

func FuzzDecodeEncryptedPayload(f *testing.F) {
	f.Add(jacksonStyle(false, nil))
	f.Add(jacksonStyle(true, func(c *cb) { c.text("encryptedKeyOwners").indefMap().brk() }))
	f.Add([]byte{0xbf, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeEncryptedPayload(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to something that decodes the same.
		enc, err := p.MarshalCBOR()
		if err != nil {
			t.Fatal(err)
		}
		q, err := DecodeEncryptedPayload(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if q.Sender != p.Sender || q.Nonce != p.Nonce || !bytes.Equal(q.CipherText, p.CipherText) ||
			len(q.EncryptedKeys) != len(p.EncryptedKeys) || !bytes.Equal(q.PrivacyGroupID, p.PrivacyGroupID) {
			t.Fatal("round trip changed the payload")
		}
	})
}

func FuzzDecodePrivacyGroup(f *testing.F) {
	g := &PrivacyGroup{Addresses: []string{senderB64}, State: Active, Type: Pantheon, RandomSeed: []byte{1}}
	enc, _ := g.MarshalCBOR()
	f.Add(enc)
	f.Add([]byte{0xbf, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		state, stateErr := DecodeGroupState(data)
		g, err := DecodePrivacyGroup(data)
		if err != nil {
			return
		}
		if stateErr != nil || state != g.State {
			t.Fatalf("state %q (%v) of a group in state %q", state, stateErr, g.State)
		}
		enc, err := g.MarshalCBOR()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodePrivacyGroup(enc); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		_, _ = DecodeGroupIndex(data)
	})
}
