package discovery

import (
	"encoding/hex"
	"testing"
)

func FuzzDecodePartyInfo(f *testing.F) {
	data, _ := hex.DecodeString(orionPartyInfo)
	f.Add(data)
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, entries, err := DecodePartyInfo(data)
		if err != nil {
			return
		}
		if len(entries) != len(p.NodePKs) {
			t.Fatalf("%d entries from %d nodePKs", len(entries), len(p.NodePKs))
		}
		for _, u := range entries {
			if CheckURL(u) != nil {
				t.Fatalf("accepted URL %q", u)
			}
		}
	})
}
