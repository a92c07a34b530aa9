// Package tesserapayload reads and writes Tessera's EncodedPayload, the form
// in which Tessera stores a private payload (column ENCODED_PAYLOAD of its
// ENCRYPTED_TRANSACTION table) and pushes it to other Tessera nodes, in the
// two codecs Tessera 24.x writes:
//
//   - LEGACY: fields as an 8-byte big-endian length and the bytes, lists as
//     an 8-byte count and fields, in the order sender, cipher text, cipher
//     text nonce, recipient boxes, recipient nonce, recipient keys, privacy
//     flag, affected transactions, exec hash (privacy flag 3 only), mandatory
//     recipients (flag 2 only), privacy group id. A payload may end after the
//     recipient nonce (the oldest form, no recipient keys) or after the
//     recipient keys; each optional tail field is read only when bytes
//     remain;
//   - CBOR: a map with the keys sender, cipherText, nonce, recipientNonce,
//     recipientBoxes, recipients, privacyFlag, affected (a map from the
//     Base64 transaction hash to the security hash), execHash, mandatoryFor
//     and privacyGroupId, as Jackson writes it. Tessera stores new rows in
//     this codec and names it in the column PAYLOAD_CODEC (NULL: LEGACY).
//
// Decoding is structural, as Tessera's own: a field may have any length.
// CheckSizes says whether the cryptographic fields have NaCl's sizes, which
// a payload must have before it can be opened (Open).
//
// Tessera's encryption (Seal, Open) differs from Orion's (package enclave):
// the cipher text is secretbox(plaintext, cipherTextNonce, masterKey) with a
// random nonce, and each recipient box is box(masterKey, recipientNonce,
// recipient, sender). A sender's stored copy has a box per recipient, the
// sender's own included, with the recipients' keys in the same order; a
// recipient's copy (ForRecipient) keeps only its own box and key.
package tesserapayload

import (
	"errors"
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
)

// Sizes of the cryptographic fields.
const (
	KeySize   = keys.Size // Curve25519 public key
	NonceSize = 24        // XSalsa20 nonce
	BoxSize   = 32 + 16   // master key + Poly1305 tag
)

// Mode is Tessera's privacy mode (PrivacyMode), the privacyFlag.
type Mode int

// Privacy modes.
const (
	StandardPrivate        Mode = 0
	PartyProtection        Mode = 1
	MandatoryRecipients    Mode = 2
	PrivateStateValidation Mode = 3
)

// String names the mode as Tessera does.
func (m Mode) String() string {
	switch m {
	case StandardPrivate:
		return "STANDARD_PRIVATE"
	case PartyProtection:
		return "PARTY_PROTECTION"
	case MandatoryRecipients:
		return "MANDATORY_RECIPIENTS"
	case PrivateStateValidation:
		return "PRIVATE_STATE_VALIDATION"
	default:
		return fmt.Sprintf("privacy flag %d", int(m))
	}
}

// Affected is an affected contract transaction of a privacy-enhanced
// payload: its transaction hash (a Tessera key) and security hash.
type Affected struct {
	TxHash       []byte
	SecurityHash []byte
}

// Payload is Tessera's EncodedPayload.
type Payload struct {
	Sender              []byte
	CipherText          []byte
	CipherTextNonce     []byte
	RecipientBoxes      [][]byte
	RecipientNonce      []byte
	Recipients          [][]byte
	Mode                Mode
	Affected            []Affected
	ExecHash            []byte
	MandatoryRecipients [][]byte
	PrivacyGroupID      []byte
}

// Codec is a value of Tessera's PAYLOAD_CODEC column.
type Codec string

// Codecs.
const (
	Legacy Codec = "LEGACY"
	CBOR   Codec = "CBOR"
)

// ErrMalformed wraps every decoding failure.
var ErrMalformed = errors.New("malformed Tessera encoded payload")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseCodec reads a PAYLOAD_CODEC value: "" (a NULL column, rows written
// before the column existed) is LEGACY.
func ParseCodec(s string) (Codec, error) {
	switch Codec(s) {
	case "", Legacy:
		return Legacy, nil
	case CBOR:
		return CBOR, nil
	default:
		return "", fmt.Errorf("unknown payload codec %q (want LEGACY or CBOR)", s)
	}
}

// Decode decodes data in codec c.
func Decode(c Codec, data []byte) (*Payload, error) {
	switch c {
	case Legacy, "":
		return DecodeLegacy(data)
	case CBOR:
		return DecodeCBOR(data)
	default:
		return nil, fmt.Errorf("unknown payload codec %q", c)
	}
}

// Encode encodes p in codec c.
func Encode(c Codec, p *Payload) ([]byte, error) {
	switch c {
	case Legacy, "":
		return EncodeLegacy(p), nil
	case CBOR:
		return EncodeCBOR(p)
	default:
		return nil, fmt.Errorf("unknown payload codec %q", c)
	}
}

func modeFromFlag(flag int64) (Mode, error) {
	if flag < 0 || flag > 3 {
		return 0, malformed("privacy flag %d is not a privacy mode", flag)
	}
	return Mode(flag), nil
}

// CheckSizes reports whether the fields used to open p have NaCl's sizes:
// a 32-byte sender and recipient keys, 24-byte nonces, 48-byte boxes, at
// least one box, and a cipher text at least as long as its MAC.
func (p *Payload) CheckSizes() error {
	switch {
	case len(p.Sender) != KeySize:
		return fmt.Errorf("sender key is %d bytes, want %d", len(p.Sender), KeySize)
	case len(p.CipherTextNonce) != NonceSize:
		return fmt.Errorf("cipher text nonce is %d bytes, want %d", len(p.CipherTextNonce), NonceSize)
	case len(p.RecipientNonce) != NonceSize:
		return fmt.Errorf("recipient nonce is %d bytes, want %d", len(p.RecipientNonce), NonceSize)
	case len(p.RecipientBoxes) == 0:
		return errors.New("no recipient box")
	case len(p.CipherText) < 16:
		return fmt.Errorf("cipher text is %d bytes, shorter than its MAC", len(p.CipherText))
	}
	for i, b := range p.RecipientBoxes {
		if len(b) != BoxSize {
			return fmt.Errorf("recipient box %d is %d bytes, want %d", i, len(b), BoxSize)
		}
	}
	for i, k := range p.Recipients {
		if len(k) != KeySize {
			return fmt.Errorf("recipient key %d is %d bytes, want %d", i, len(k), KeySize)
		}
	}
	return nil
}
