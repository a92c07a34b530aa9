package payload

import (
	"encoding/base64"
	"testing"
)

// TestTesseraKeyVector: the key is Tessera's, SHA3-512 of the cipher text,
// checked on the cipher text of Tessera's LegacyPayloadEncoderTest vector
// (../shared/reference/goquorum-privacy.md §5.3).
func TestTesseraKeyVector(t *testing.T) {
	ct, _ := base64.StdEncoding.DecodeString("eVRXQdfbabdKIao1KiczjGFsMJRXfLlXsQ+L6Q==")
	if got := TesseraKeyString(ct); got != "b9YFfdMZYU1J5Ar0pvVWQWUSq5aY/LtOBJGgxec/Agg10yQbttuRGs+JMa1vZU/35Ix6wLhyq1ugRo/frGEXYw==" {
		t.Fatalf("key %s", got)
	}
}

func TestTesseraIndexRoundTrip(t *testing.T) {
	x := &TesseraIndex{Digest: Digest([]byte("ct")), Participants: []string{"BULeR8JyUWhiuuCMU/HLA0Q5pzkYT+cHII3ZKBey3Bo="}}
	data, err := x.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	y, err := DecodeTesseraIndex(data)
	if err != nil || y.Digest != x.Digest || len(y.Participants) != 1 || y.Participants[0] != x.Participants[0] {
		t.Fatalf("%+v %v", y, err)
	}
	for _, bad := range [][]byte{nil, {0xa0}, []byte("x"), func() []byte { d, _ := (&TesseraIndex{Digest: "AAAA"}).MarshalCBOR(); return d }(),
		func() []byte {
			d, _ := (&TesseraIndex{Digest: x.Digest, Participants: []string{"no"}}).MarshalCBOR()
			return d
		}()} {
		if _, err := DecodeTesseraIndex(bad); err == nil {
			t.Errorf("%x decoded", bad)
		}
	}
}
