package payload

import (
	"crypto/sha512"
	"encoding/base64"
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
)

// Sizes of the parts of an EncryptedPayload.
const (
	NonceSize        = 24                       // crypto_box nonce
	EncryptedKeySize = keys.Size + box.Overhead // 32-byte payload key + MAC
	MinCipherText    = secretbox.Overhead       // MAC of an empty plaintext
	GroupIDSize      = 32                       // Keccak-256
)

// EncryptedPayload is Orion's EncryptedPayload: the cipher text of a private
// payload under a random one-time key, and that key boxed for each recipient
// with one shared nonce (see package enclave).
type EncryptedPayload struct {
	Sender         keys.PublicKey
	Nonce          [NonceSize]byte
	EncryptedKeys  [][]byte // each EncryptedKeySize bytes
	CipherText     []byte
	PrivacyGroupID []byte // empty or GroupIDSize bytes

	// owners maps a recipient to its entry of EncryptedKeys. Orion does not
	// serialize it; it exists on the sender, for StripFor.
	owners map[keys.PublicKey]int
}

// encryptedKey is Orion's EncryptedKey: {"encoded": bytes}.
type encryptedKey struct {
	Encoded []byte `cbor:"encoded"`
}

// encryptedWire is the CBOR map. Field order is Jackson's for Orion's
// creator properties; "sender" is a Base64 string, the rest byte strings.
type encryptedWire struct {
	Sender         string         `cbor:"sender"`
	Nonce          []byte         `cbor:"nonce"`
	EncryptedKeys  []encryptedKey `cbor:"encryptedKeys"`
	CipherText     []byte         `cbor:"cipherText"`
	PrivacyGroupID []byte         `cbor:"privacyGroupId,omitempty"`
}

// SetOwners records that EncryptedKeys[i] belongs to recipients[i]; a key
// listed twice maps to its last entry, as in Orion.
func (p *EncryptedPayload) SetOwners(recipients []keys.PublicKey) {
	p.owners = make(map[keys.PublicKey]int, len(recipients))
	for i, k := range recipients {
		p.owners[k] = i
	}
}

// Digest is the payload key: Base64(SHA-512/256(CipherText)), 44 characters.
// It is the key /send returns, the storage key, and (decoded) the data of the
// privacy marker transaction.
func (p *EncryptedPayload) Digest() string {
	return Digest(p.CipherText)
}

// Digest returns Base64(SHA-512/256(cipherText)).
func Digest(cipherText []byte) string {
	sum := sha512.Sum512_256(cipherText)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// StripFor returns a copy of p that keeps only the encrypted keys of
// recipients, in that order: what a peer hosting those keys is sent. Every
// recipient must have an entry (SetOwners).
func (p *EncryptedPayload) StripFor(recipients []keys.PublicKey) (*EncryptedPayload, error) {
	out := &EncryptedPayload{
		Sender:         p.Sender,
		Nonce:          p.Nonce,
		CipherText:     p.CipherText,
		PrivacyGroupID: p.PrivacyGroupID,
		EncryptedKeys:  make([][]byte, 0, len(recipients)),
	}
	for _, k := range recipients {
		i, ok := p.owners[k]
		if !ok {
			return nil, fmt.Errorf("strip payload: %s is not a recipient", k)
		}
		out.EncryptedKeys = append(out.EncryptedKeys, p.EncryptedKeys[i])
	}
	return out, nil
}

// MarshalCBOR encodes p as Orion does.
func (p *EncryptedPayload) MarshalCBOR() ([]byte, error) {
	w := encryptedWire{
		Sender:         p.Sender.String(),
		Nonce:          p.Nonce[:],
		CipherText:     p.CipherText,
		PrivacyGroupID: p.PrivacyGroupID,
		EncryptedKeys:  make([]encryptedKey, len(p.EncryptedKeys)),
	}
	for i, k := range p.EncryptedKeys {
		w.EncryptedKeys[i].Encoded = k
	}
	return encMode.Marshal(w)
}

// DecodeEncryptedPayload decodes and validates a CBOR EncryptedPayload: a
// Base64 32-byte sender, a 24-byte nonce, at least one 48-byte encrypted
// key, a cipher text of at least 16 bytes (the MAC) and a privacy group id
// of 0 or 32 bytes.
func DecodeEncryptedPayload(data []byte) (*EncryptedPayload, error) {
	var w encryptedWire
	if err := Unmarshal(data, &w); err != nil {
		return nil, err
	}
	var p EncryptedPayload
	var err error
	if p.Sender, err = keys.ParsePublicKey(w.Sender); err != nil {
		return nil, malformed("sender", err)
	}
	if len(w.Nonce) != NonceSize {
		return nil, malformed(fmt.Sprintf("nonce is %d bytes, want %d", len(w.Nonce), NonceSize), nil)
	}
	copy(p.Nonce[:], w.Nonce)
	if len(w.EncryptedKeys) == 0 {
		return nil, malformed("no encryptedKeys", nil)
	}
	p.EncryptedKeys = make([][]byte, len(w.EncryptedKeys))
	for i, k := range w.EncryptedKeys {
		if len(k.Encoded) != EncryptedKeySize {
			return nil, malformed(fmt.Sprintf("encryptedKeys[%d] is %d bytes, want %d", i, len(k.Encoded), EncryptedKeySize), nil)
		}
		p.EncryptedKeys[i] = k.Encoded
	}
	if len(w.CipherText) < MinCipherText {
		return nil, malformed(fmt.Sprintf("cipherText is %d bytes, want at least %d", len(w.CipherText), MinCipherText), nil)
	}
	p.CipherText = w.CipherText
	if n := len(w.PrivacyGroupID); n != 0 && n != GroupIDSize {
		return nil, malformed(fmt.Sprintf("privacyGroupId is %d bytes, want %d", n, GroupIDSize), nil)
	}
	p.PrivacyGroupID = w.PrivacyGroupID
	return &p, nil
}
