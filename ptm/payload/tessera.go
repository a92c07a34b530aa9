package payload

import (
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
)

// TesseraKeySize is the size of a Tessera payload key: SHA3-512 of the
// cipher text. GoQuorum puts these 64 bytes in a private transaction's data.
const TesseraKeySize = 64

// TesseraKey returns the key Tessera gives a payload: SHA3-512(cipherText)
// (Tessera's DefaultPayloadDigest). The same cipher text has an Orion
// digest (Digest) too; both name one stored payload.
func TesseraKey(cipherText []byte) [TesseraKeySize]byte {
	return sha3.Sum512(cipherText)
}

// TesseraKeyString is TesseraKey in Base64, as the Q2T API writes keys.
func TesseraKeyString(cipherText []byte) string {
	k := TesseraKey(cipherText)
	return base64.StdEncoding.EncodeToString(k[:])
}

// Tags that keep the storage keys derived from a Tessera key apart from each
// other and from Orion digests (SHA-512/256 of a cipher text).
const (
	tagTesseraIndex = "basalt/tessera-index\x00"
	tagTesseraRaw   = "basalt/tessera-raw\x00"
)

// TesseraIndexKey is the storage key of the TesseraIndex of the payload
// whose Tessera key is k. It is a 32-byte hash in Base64 like every other
// storage key (PostgreSQL's store column holds 60 characters, too few for
// a 64-byte key in Base64).
func TesseraIndexKey(k []byte) string { return taggedKey(tagTesseraIndex, k) }

// TesseraRawKey is the storage key of a payload stored by the Q2T
// /storeraw under Tessera key k, which waits for /sendsignedtx.
func TesseraRawKey(k []byte) string { return taggedKey(tagTesseraRaw, k) }

func taggedKey(tag string, k []byte) string {
	h := sha512.New512_256()
	h.Write([]byte(tag))
	h.Write(k)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// TesseraIndex maps a Tessera key to the stored payload it names and keeps
// what the payload alone does not tell (an Orion payload does not name its
// recipients): the participants this instance knows of — every party on
// the sender's instance, the hosted recipients on a recipient's.
type TesseraIndex struct {
	Digest       string   `cbor:"digest"`
	Participants []string `cbor:"participants"`
}

// MarshalCBOR encodes x.
func (x *TesseraIndex) MarshalCBOR() ([]byte, error) {
	type plain TesseraIndex
	return encMode.Marshal((*plain)(x))
}

// DecodeTesseraIndex decodes and validates a stored TesseraIndex.
func DecodeTesseraIndex(data []byte) (*TesseraIndex, error) {
	type plain TesseraIndex
	var x plain
	if err := Unmarshal(data, &x); err != nil {
		return nil, err
	}
	if raw, err := base64.StdEncoding.DecodeString(x.Digest); err != nil || len(raw) != 32 {
		return nil, malformed(fmt.Sprintf("digest %q is not a Base64 32-byte hash", x.Digest), err)
	}
	for _, p := range x.Participants {
		if _, err := keys.ParsePublicKey(p); err != nil {
			return nil, malformed("participant", err)
		}
	}
	out := TesseraIndex(x)
	return &out, nil
}
