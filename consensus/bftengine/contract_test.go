package bftengine

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestDecodeAddressArray(t *testing.T) {
	word := func(b ...byte) []byte { return common.LeftPadBytes(b, 32) }
	a, b := common.Address{19: 1}, common.Address{0: 0xff, 19: 2}
	good := bytes.Join([][]byte{word(0x20), word(2), common.LeftPadBytes(a[:], 32), common.LeftPadBytes(b[:], 32)}, nil)
	got, err := decodeAddressArray(good)
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := decodeAddressArray(bytes.Join([][]byte{word(0x20), word(0)}, nil)); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
	bad := map[string][]byte{
		"nothing":          nil,
		"short":            word(0x20),
		"length past end":  bytes.Join([][]byte{word(0x20), word(3), common.LeftPadBytes(a[:], 32)}, nil),
		"offset past end":  bytes.Join([][]byte{word(0x40), word(0)}, nil),
		"dirty high bytes": bytes.Join([][]byte{word(0x20), word(1), word(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, nil),
		"huge length":      bytes.Join([][]byte{word(0x20), word(0xff, 0xff, 0xff)}, nil),
		"huge offset":      bytes.Join([][]byte{bytes.Repeat([]byte{0xff}, 32), word(0)}, nil),
	}
	for name, b := range bad {
		if _, err := decodeAddressArray(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
