package tesserapayload

import (
	"encoding/binary"
)

// legacyReader reads LEGACY fields. Every length and count is checked
// against the bytes left before anything is allocated, so a hostile length
// costs nothing.
type legacyReader struct {
	data []byte
	off  int
}

func (r *legacyReader) remaining() int { return len(r.data) - r.off }

func (r *legacyReader) u64(what string) (uint64, error) {
	if r.remaining() < 8 {
		return 0, malformed("%s: %d bytes left, want an 8-byte length", what, r.remaining())
	}
	v := binary.BigEndian.Uint64(r.data[r.off:])
	r.off += 8
	return v, nil
}

func (r *legacyReader) field(what string) ([]byte, error) {
	n, err := r.u64(what)
	if err != nil {
		return nil, err
	}
	if n > uint64(r.remaining()) {
		return nil, malformed("%s: length %d exceeds the %d bytes left", what, n, r.remaining())
	}
	b := make([]byte, n)
	copy(b, r.data[r.off:])
	r.off += int(n)
	return b, nil
}

func (r *legacyReader) list(what string) ([][]byte, error) {
	n, err := r.u64(what + " count")
	if err != nil {
		return nil, err
	}
	// Each entry takes at least its 8-byte length.
	if n > uint64(r.remaining()/8) {
		return nil, malformed("%s: %d entries cannot fit in the %d bytes left", what, n, r.remaining())
	}
	out := make([][]byte, 0, n)
	for i := uint64(0); i < n; i++ {
		b, err := r.field(what)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// DecodeLegacy decodes Tessera's LEGACY encoding, accepting what Tessera's
// decoder accepts: the payload may end after the recipient nonce or after
// the recipient keys, the exec hash is read only for privacy flag 3 and the
// mandatory recipients only for flag 2, each when bytes remain, and the
// privacy group id when bytes remain after those. Bytes after the privacy
// group id are ignored, as Tessera ignores them.
func DecodeLegacy(data []byte) (*Payload, error) {
	r := &legacyReader{data: data}
	p := &Payload{}
	var err error
	if p.Sender, err = r.field("sender"); err != nil {
		return nil, err
	}
	if p.CipherText, err = r.field("cipherText"); err != nil {
		return nil, err
	}
	if p.CipherTextNonce, err = r.field("nonce"); err != nil {
		return nil, err
	}
	if p.RecipientBoxes, err = r.list("recipientBoxes"); err != nil {
		return nil, err
	}
	if p.RecipientNonce, err = r.field("recipientNonce"); err != nil {
		return nil, err
	}
	if r.remaining() == 0 {
		return p, nil
	}
	if p.Recipients, err = r.list("recipients"); err != nil {
		return nil, err
	}
	if r.remaining() == 0 {
		return p, nil
	}
	flag, err := r.field("privacyFlag")
	if err != nil {
		return nil, err
	}
	if len(flag) == 0 {
		return nil, malformed("privacyFlag is empty")
	}
	// Tessera reads the first byte as a signed Java byte.
	if p.Mode, err = modeFromFlag(int64(int8(flag[0]))); err != nil {
		return nil, err
	}
	n, err := r.u64("affected count")
	if err != nil {
		return nil, err
	}
	if n > uint64(r.remaining()/16) {
		return nil, malformed("affected: %d entries cannot fit in the %d bytes left", n, r.remaining())
	}
	for i := uint64(0); i < n; i++ {
		var a Affected
		if a.TxHash, err = r.field("affected txHash"); err != nil {
			return nil, err
		}
		if a.SecurityHash, err = r.field("affected securityHash"); err != nil {
			return nil, err
		}
		p.Affected = append(p.Affected, a)
	}
	if r.remaining() > 0 && p.Mode == PrivateStateValidation {
		if p.ExecHash, err = r.field("execHash"); err != nil {
			return nil, err
		}
	}
	if r.remaining() > 0 && p.Mode == MandatoryRecipients {
		if p.MandatoryRecipients, err = r.list("mandatoryRecipients"); err != nil {
			return nil, err
		}
	}
	if r.remaining() == 0 {
		return p, nil
	}
	if p.PrivacyGroupID, err = r.field("privacyGroupId"); err != nil {
		return nil, err
	}
	if len(p.PrivacyGroupID) == 0 {
		p.PrivacyGroupID = nil
	}
	return p, nil
}

type legacyWriter struct{ buf []byte }

func (w *legacyWriter) u64(v int) { w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v)) }

func (w *legacyWriter) field(b []byte) {
	w.u64(len(b))
	w.buf = append(w.buf, b...)
}

func (w *legacyWriter) list(bs [][]byte) {
	w.u64(len(bs))
	for _, b := range bs {
		w.field(b)
	}
}

// EncodeLegacy encodes p as Tessera's LEGACY encoder does: every field up
// to the affected transactions, then the exec hash when there is one, the
// mandatory recipients for flag 2, and the privacy group id when set.
func EncodeLegacy(p *Payload) []byte {
	w := &legacyWriter{}
	w.field(p.Sender)
	w.field(p.CipherText)
	w.field(p.CipherTextNonce)
	w.list(p.RecipientBoxes)
	w.field(p.RecipientNonce)
	w.list(p.Recipients)
	w.field([]byte{byte(p.Mode)})
	w.u64(len(p.Affected))
	for _, a := range p.Affected {
		w.field(a.TxHash)
		w.field(a.SecurityHash)
	}
	if len(p.ExecHash) > 0 {
		w.field(p.ExecHash)
	}
	if p.Mode == MandatoryRecipients {
		w.list(p.MandatoryRecipients)
	}
	if len(p.PrivacyGroupID) > 0 {
		w.field(p.PrivacyGroupID)
	}
	return w.buf
}
