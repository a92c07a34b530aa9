package clique

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestParseExtra(t *testing.T) {
	a := common.HexToAddress("0x01a54556254bfa3db2daa7673435ec63649925c5")
	b := common.HexToAddress("0x3b63a1ee47ffd227458746ca9bb079d0d3cbb4bd")
	zeros := func(n int) string { return strings.Repeat("00", n) }
	for _, tc := range []struct {
		name    string
		hex     string
		signers []common.Address
		err     error
	}{
		// Besu's documented genesis extraData for one signer.
		{"besu docs genesis", "0x" + zeros(32) + "01a54556254bfa3db2daa7673435ec63649925c5" + zeros(65), []common.Address{a}, nil},
		{"two signers", "0x" + zeros(32) + "01a54556254bfa3db2daa7673435ec63649925c5" + "3b63a1ee47ffd227458746ca9bb079d0d3cbb4bd" + zeros(65), []common.Address{a, b}, nil},
		{"no signers (an ordinary block)", "0x" + zeros(97), nil, nil},
		{"empty", "0x", nil, ErrExtraTooShort},
		{"vanity only", "0x" + zeros(32), nil, ErrExtraTooShort},
		{"one byte short", "0x" + zeros(96), nil, ErrExtraTooShort},
		{"partial address", "0x" + zeros(32) + "01a5" + zeros(65), nil, ErrExtraSigners},
		{"one byte over", "0x" + zeros(98), nil, ErrExtraSigners},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := common.FromHex(tc.hex)
			ex, err := ParseExtra(raw)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if !slices.Equal(ex.Signers, tc.signers) {
				t.Fatalf("signers %v, want %v", ex.Signers, tc.signers)
			}
			if !bytes.Equal(ex.Encode(), raw) {
				t.Fatalf("re-encoded %x, want %x", ex.Encode(), raw)
			}
		})
	}
}

func TestGenesisExtraAndVanity(t *testing.T) {
	a, b := common.Address{2}, common.Address{1}
	ex, err := ParseExtra(GenesisExtra(a, b, a))
	if err != nil || !slices.Equal(ex.Signers, []common.Address{b, a}) || ex.Sealed() {
		t.Fatalf("genesis extra %+v %v: want sorted, deduplicated, unsealed", ex, err)
	}
	if v := Vanity([]byte{1, 2}); v[30] != 1 || v[31] != 2 || v[0] != 0 {
		t.Fatalf("vanity not left-padded: %x", v)
	}
	long := bytes.Repeat([]byte{7}, 40)
	if v := Vanity(long); !bytes.Equal(v[:], long[:32]) {
		t.Fatalf("long vanity %x", v)
	}
}

// FuzzParseExtra: extraData comes from the network; decoding never panics
// and what decodes re-encodes to the same bytes.
func FuzzParseExtra(f *testing.F) {
	f.Add(GenesisExtra(common.Address{1}, common.Address{2}))
	f.Add(make([]byte, 97))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, err := ParseExtra(data)
		if err != nil {
			return
		}
		if !bytes.Equal(ex.Encode(), data) {
			t.Fatalf("round trip %x -> %x", data, ex.Encode())
		}
	})
}
