package enclave

import (
	"bytes"
	"testing"
)

// FuzzDecodePayload: the /receive payload field comes from the network;
// decoding never panics and undoes EncodePayload.
func FuzzDecodePayload(f *testing.F) {
	for _, s := range []string{"", "d3dFQ0F3PT0=", "+A==", "====", "d3dFQ0F3", EncodePayload([]byte{0xc0})} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rlp, err := DecodePayload(s)
		if err != nil {
			return
		}
		if back, err := DecodePayload(EncodePayload(rlp)); err != nil || !bytes.Equal(back, rlp) {
			t.Fatalf("round trip of %q: %x %v", s, back, err)
		}
	})
}
