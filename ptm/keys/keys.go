// Package keys holds the Curve25519 (NaCl crypto_box) key pairs that identify
// the parties of a private transaction, their Base64 text form, and Orion's
// key files (.pub and .key, see keyfile.go).
package keys

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/curve25519"
)

// Size is the length in bytes of a public or private key.
const Size = 32

// PublicKey is a crypto_box public key. Its text form is standard Base64 with
// padding (44 characters), as Java's Base64.getEncoder() writes it.
type PublicKey [Size]byte

// PrivateKey is a crypto_box secret key.
type PrivateKey [Size]byte

// KeyPair is a public key with its private key.
type KeyPair struct {
	Public  PublicKey
	Private PrivateKey
}

// ErrKeyLength reports Base64 text that does not decode to exactly 32 bytes.
var ErrKeyLength = errors.New("key is not 32 bytes")

// String returns the Base64 form of k.
func (k PublicKey) String() string { return base64.StdEncoding.EncodeToString(k[:]) }

// MarshalText implements encoding.TextMarshaler (Base64).
func (k PublicKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler (Base64).
func (k *PublicKey) UnmarshalText(b []byte) error {
	p, err := ParsePublicKey(string(b))
	if err != nil {
		return err
	}
	*k = p
	return nil
}

// ParsePublicKey decodes the Base64 form of a public key. Like Java's
// Base64.getDecoder() it takes the standard alphabet, with or without
// padding, and nothing else (no whitespace, no URL-safe alphabet).
func ParsePublicKey(s string) (PublicKey, error) {
	var k PublicKey
	b, err := DecodeBase64(s)
	if err != nil {
		return k, err
	}
	if len(b) != Size {
		return k, fmt.Errorf("%w (got %d)", ErrKeyLength, len(b))
	}
	copy(k[:], b)
	return k, nil
}

// DecodeBase64 decodes standard Base64, with or without "=" padding, as
// Java's basic decoder does.
func DecodeBase64(s string) ([]byte, error) {
	if strings.HasSuffix(s, "=") || len(s)%4 == 0 {
		return base64.StdEncoding.Strict().DecodeString(s)
	}
	return base64.RawStdEncoding.Strict().DecodeString(s)
}

// Generate returns a new random key pair read from r (crypto/rand when nil).
func Generate(r io.Reader) (KeyPair, error) {
	if r == nil {
		r = rand.Reader
	}
	var kp KeyPair
	if _, err := io.ReadFull(r, kp.Private[:]); err != nil {
		return kp, fmt.Errorf("generate key pair: %w", err)
	}
	pub, err := curve25519.X25519(kp.Private[:], curve25519.Basepoint)
	if err != nil {
		return kp, fmt.Errorf("generate key pair: %w", err)
	}
	copy(kp.Public[:], pub)
	return kp, nil
}

// PublicFor returns the public key of a private key.
func PublicFor(sk PrivateKey) (PublicKey, error) {
	var pk PublicKey
	pub, err := curve25519.X25519(sk[:], curve25519.Basepoint)
	if err != nil {
		return pk, err
	}
	copy(pk[:], pub)
	return pk, nil
}
