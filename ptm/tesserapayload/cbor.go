package tesserapayload

import (
	"encoding/base64"
	"encoding/binary"
	"slices"

	"github.com/basaltchain/basalt/ptm/cborlimit"
)

// maxNesting bounds how deep decoded CBOR may nest (the element bound is
// cborlimit's): a payload nests at most two levels.
const maxNesting = 4

var decMode = cborlimit.DecMode(maxNesting)

// cborWire is the map Tessera's CBOR codec writes. Every field is optional
// when decoding, as in Tessera; unknown keys are ignored.
type cborWire struct {
	Sender         []byte            `cbor:"sender"`
	CipherText     []byte            `cbor:"cipherText"`
	Nonce          []byte            `cbor:"nonce"`
	RecipientNonce []byte            `cbor:"recipientNonce"`
	RecipientBoxes [][]byte          `cbor:"recipientBoxes"`
	Recipients     [][]byte          `cbor:"recipients"`
	PrivacyFlag    int64             `cbor:"privacyFlag"`
	Affected       map[string][]byte `cbor:"affected"`
	ExecHash       []byte            `cbor:"execHash"`
	MandatoryFor   [][]byte          `cbor:"mandatoryFor"`
	PrivacyGroupID []byte            `cbor:"privacyGroupId"`
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
		ExecHash:            w.ExecHash,
		MandatoryRecipients: w.MandatoryFor,
		PrivacyGroupID:      w.PrivacyGroupID,
	}
	if len(p.PrivacyGroupID) == 0 {
		p.PrivacyGroupID = nil
	}
	hashes := make([]string, 0, len(w.Affected))
	for k := range w.Affected {
		hashes = append(hashes, k)
	}
	slices.Sort(hashes)
	for _, k := range hashes {
		// Tessera names an affected transaction by its Base64 hash. Strict:
		// two spellings of one hash would be two entries here and one in
		// Tessera.
		h, err := base64.StdEncoding.Strict().DecodeString(k)
		if err != nil {
			return nil, malformed("affected transaction %q is not Base64", k)
		}
		p.Affected = append(p.Affected, Affected{TxHash: h, SecurityHash: w.Affected[k]})
	}
	return p, nil
}

// cborWriter writes definite-length CBOR as Jackson's CBORGenerator does
// for the calls Tessera's encoder makes.
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

func (w *cborWriter) byteList(bs [][]byte) {
	w.head(4, uint64(len(bs)))
	for _, b := range bs {
		w.bytes(b)
	}
}

// EncodeCBOR encodes p as Tessera's CBOR codec does: an 11-entry map in the
// order sender, cipherText, nonce, recipientNonce, recipientBoxes,
// recipients, privacyFlag, affected, execHash, mandatoryFor,
// privacyGroupId (empty bytes when there is none).
func EncodeCBOR(p *Payload) ([]byte, error) {
	w := &cborWriter{}
	w.head(5, 11)
	w.text("sender")
	w.bytes(p.Sender)
	w.text("cipherText")
	w.bytes(p.CipherText)
	w.text("nonce")
	w.bytes(p.CipherTextNonce)
	w.text("recipientNonce")
	w.bytes(p.RecipientNonce)
	w.text("recipientBoxes")
	w.byteList(p.RecipientBoxes)
	w.text("recipients")
	w.byteList(p.Recipients)
	w.text("privacyFlag")
	w.head(0, uint64(p.Mode))
	w.text("affected")
	w.head(5, uint64(len(p.Affected)))
	for _, a := range p.Affected {
		w.text(base64.StdEncoding.EncodeToString(a.TxHash))
		w.bytes(a.SecurityHash)
	}
	w.text("execHash")
	w.bytes(p.ExecHash)
	w.text("mandatoryFor")
	w.byteList(p.MandatoryRecipients)
	w.text("privacyGroupId")
	w.bytes(p.PrivacyGroupID)
	return w.buf, nil
}
