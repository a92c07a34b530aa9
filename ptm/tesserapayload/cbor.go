package tesserapayload

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/fxamacker/cbor/v2"

	"github.com/basaltchain/basalt/ptm/cborlimit"
)

// maxNesting bounds how deep decoded CBOR may nest (the element bound is
// cborlimit's): a payload nests at most two levels.
const maxNesting = 4

var decMode = cborlimit.DecMode(maxNesting)

// cborWire is Tessera's CBOR layout, the one description of it both
// directions use: the map its CBOR codec writes, keys in its write order
// (encMode keeps the field order and writes a nil field as an empty one,
// as Tessera's encoder does). Every field is optional when decoding, as in
// Tessera; unknown keys are ignored.
type cborWire struct {
	Sender         []byte      `cbor:"sender"`
	CipherText     []byte      `cbor:"cipherText"`
	Nonce          []byte      `cbor:"nonce"`
	RecipientNonce []byte      `cbor:"recipientNonce"`
	RecipientBoxes [][]byte    `cbor:"recipientBoxes"`
	Recipients     [][]byte    `cbor:"recipients"`
	PrivacyFlag    int64       `cbor:"privacyFlag"`
	Affected       affectedMap `cbor:"affected"`
	ExecHash       []byte      `cbor:"execHash"`
	MandatoryFor   [][]byte    `cbor:"mandatoryFor"`
	PrivacyGroupID []byte      `cbor:"privacyGroupId"`
}

// encMode writes a cborWire as Jackson's CBORGenerator writes Tessera's
// map: fields in declaration order, definite lengths, nil byte strings,
// lists and maps as empty ones rather than null.
var encMode = func() cbor.EncMode {
	m, err := cbor.EncOptions{Sort: cbor.SortNone, NilContainers: cbor.NilContainerAsEmpty}.EncMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// affectedMap is the "affected" map: Base64 transaction hash to security
// hash. It is written in the payload's order (a Go map has none) and read
// back sorted by transaction hash.
type affectedMap []Affected

// MarshalCBOR writes the map entry by entry: duplicates, if a caller made
// any, are written as they are, as Tessera's encoder would.
func (a affectedMap) MarshalCBOR() ([]byte, error) {
	w := &cborWriter{}
	w.head(5, uint64(len(a)))
	for _, x := range a {
		w.text(base64.StdEncoding.EncodeToString(x.TxHash))
		w.bytes(x.SecurityHash)
	}
	return w.buf, nil
}

// UnmarshalCBOR reads the map with the package's bounds.
func (a *affectedMap) UnmarshalCBOR(data []byte) error {
	var m map[string][]byte
	if err := decMode.Unmarshal(data, &m); err != nil {
		return err
	}
	hashes := make([]string, 0, len(m))
	for k := range m {
		hashes = append(hashes, k)
	}
	slices.Sort(hashes)
	*a = nil
	for _, k := range hashes {
		// Tessera names an affected transaction by its Base64 hash. Strict:
		// two spellings of one hash would be two entries here and one in
		// Tessera.
		h, err := base64.StdEncoding.Strict().DecodeString(k)
		if err != nil {
			return fmt.Errorf("affected transaction %q is not Base64", k)
		}
		*a = append(*a, Affected{TxHash: h, SecurityHash: m[k]})
	}
	return nil
}

// DecodeCBOR decodes Tessera's CBOR encoding. The affected transactions
// come back sorted by transaction hash (the map has no order).
func DecodeCBOR(data []byte) (*Payload, error) {
	var w cborWire
	if err := decMode.Unmarshal(data, &w); err != nil {
		return nil, malformed("%v", err)
	}
	mode, err := modeFromFlag(w.PrivacyFlag)
	if err != nil {
		return nil, err
	}
	p := &Payload{
		Sender:              w.Sender,
		CipherText:          w.CipherText,
		CipherTextNonce:     w.Nonce,
		RecipientBoxes:      w.RecipientBoxes,
		RecipientNonce:      w.RecipientNonce,
		Recipients:          w.Recipients,
		Mode:                mode,
		Affected:            w.Affected,
		ExecHash:            w.ExecHash,
		MandatoryRecipients: w.MandatoryFor,
		PrivacyGroupID:      w.PrivacyGroupID,
	}
	if len(p.PrivacyGroupID) == 0 {
		p.PrivacyGroupID = nil
	}
	return p, nil
}

// cborWriter writes definite-length CBOR as Jackson's CBORGenerator does,
// for the affected map, whose order a Go map would lose.
type cborWriter struct{ buf []byte }

func (w *cborWriter) head(major byte, n uint64) {
	switch {
	case n < 24:
		w.buf = append(w.buf, major<<5|byte(n))
	case n <= 0xff:
		w.buf = append(w.buf, major<<5|24, byte(n))
	case n <= 0xffff:
		w.buf = append(w.buf, major<<5|25)
		w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(n))
	case n <= 0xffffffff:
		w.buf = append(w.buf, major<<5|26)
		w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(n))
	default:
		w.buf = append(w.buf, major<<5|27)
		w.buf = binary.BigEndian.AppendUint64(w.buf, n)
	}
}

func (w *cborWriter) text(s string) {
	w.head(3, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *cborWriter) bytes(b []byte) {
	w.head(2, uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// EncodeCBOR encodes p as Tessera's CBOR codec does: cborWire's 11 entries
// in its order (privacyGroupId empty bytes when there is none).
func EncodeCBOR(p *Payload) ([]byte, error) {
	return encMode.Marshal(&cborWire{
		Sender:         p.Sender,
		CipherText:     p.CipherText,
		Nonce:          p.CipherTextNonce,
		RecipientNonce: p.RecipientNonce,
		RecipientBoxes: p.RecipientBoxes,
		Recipients:     p.Recipients,
		PrivacyFlag:    int64(p.Mode),
		Affected:       p.Affected,
		ExecHash:       p.ExecHash,
		MandatoryFor:   p.MandatoryRecipients,
		PrivacyGroupID: p.PrivacyGroupID,
	})
}
