package tesserapayload

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestEncodeCBORLayout: fields a payload leaves nil are written as Tessera's
// encoder writes them, empty byte strings, lists and maps (never CBOR null),
// all 11 keys in its order; the affected map keeps the payload's order when
// written and comes back sorted by transaction hash.
func TestEncodeCBORLayout(t *testing.T) {
	const keysBefore = "ab6673656e646572406a6369706865725465787440656e6f6e6365406e726563697069656e744e6f6e6365406e726563697069656e74426f786573806a726563697069656e7473806b70726976616379466c6167"
	const keysAfter = "686578656348617368406c6d616e6461746f7279466f72806e7072697661637947726f7570496440"
	for _, c := range []struct {
		name string
		p    *Payload
		want string // privacyFlag's value and the affected entry
	}{
		{"empty", &Payload{}, "00" + "686166666563746564" + "a0"},
		{"affected", &Payload{Mode: PrivateStateValidation, Affected: []Affected{
			{TxHash: []byte{2}, SecurityHash: []byte{0xbb}},
			{TxHash: []byte{1}, SecurityHash: []byte{0xaa}},
		}}, "03" + "686166666563746564" + "a2" + "6441673d3d" + "41bb" + "6441513d3d" + "41aa"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := EncodeCBOR(c.p)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := hex.DecodeString(keysBefore + c.want + keysAfter)
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%x\nwant\n%x", got, want)
			}
			back, err := DecodeCBOR(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(back.Affected) != len(c.p.Affected) {
				t.Fatalf("%d affected back", len(back.Affected))
			}
			for i := 1; i < len(back.Affected); i++ {
				if bytes.Compare(back.Affected[i-1].TxHash, back.Affected[i].TxHash) >= 0 {
					t.Errorf("affected not sorted: %x", back.Affected)
				}
			}
		})
	}
}
