package graphql

import (
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestParseScalar checks the inputs each scalar accepts (Besu's coercing)
// and refuses.
func TestParseScalar(t *testing.T) {
	h := func(s string) common.Hash { return common.HexToHash(s) }
	tests := []struct {
		scalar string
		in     any
		want   any   // nil: refused
		err    error // for refusals: errNoHexPrefix or errBadScalar
	}{
		{scalarAddress, "0x6295ee1b4f6dd65047762f924ecd367c17eabf8f", common.HexToAddress("0x6295ee1b4f6dd65047762f924ecd367c17eabf8f"), nil},
		{scalarAddress, "6295ee1b4f6dd65047762f924ecd367c17eabf8f", common.HexToAddress("0x6295ee1b4f6dd65047762f924ecd367c17eabf8f"), nil},
		{scalarAddress, "0x6295", nil, errBadScalar},
		{scalarAddress, "0x6295ee1b4f6dd65047762f924ecd367c17eabf8", nil, errBadScalar},
		{scalarAddress, int64(5), nil, errBadScalar},
		{scalarBytes, "0x", []byte{}, nil},
		{scalarBytes, "0x123", []byte{0x01, 0x23}, nil},
		{scalarBytes, "12a7b914", nil, errNoHexPrefix},
		{scalarBytes, "0xzz", nil, errBadScalar},
		{scalarBytes32, "0x00000000000000000000000000000004", h("0x04"), nil},
		{scalarBytes32, "0x" + string(make64('f')) + "ff", nil, errBadScalar},
		{scalarHash, "c8df", nil, errNoHexPrefix},
		{scalarHash, "0x1", h("0x01"), nil},
		{scalarLogTopic, "0x01", h("0x01"), nil},
		{scalarVersionedHash, "0x01", h("0x01"), nil},
		{scalarLong, int32(30), int64(30), nil},
		{scalarLong, int64(88888888), int64(88888888), nil},
		{scalarLong, "0x1e", int64(30), nil},
		{scalarLong, "0X1E", int64(30), nil},
		{scalarLong, "30", int64(30), nil},
		{scalarLong, "-1", int64(-1), nil},
		{scalarLong, json.Number("29"), int64(29), nil},
		{scalarLong, "0xffffffffffffffff", int64(-1), nil},
		{scalarLong, "0x1ffffffffffffffff", nil, errBadScalar},
		{scalarLong, "abc", nil, errBadScalar},
		{scalarLong, json.Number("1.5"), nil, errBadScalar},
		{scalarLong, true, nil, errBadScalar},
		{scalarBigInt, "0x10", big.NewInt(16), nil},
		{scalarBigInt, "10", big.NewInt(10), nil},
		{scalarBigInt, int32(7), big.NewInt(7), nil},
		{scalarBigInt, json.Number("12345678901234567890"), new(big.Int).SetUint64(12345678901234567890), nil},
		{scalarBigInt, "-1", nil, errBadScalar},
		{scalarBigInt, "0x1" + string(make64('0')), nil, errBadScalar},
		{scalarBigInt, "ten", nil, errBadScalar},
	}
	for _, tc := range tests {
		got, err := parseScalar(tc.scalar, tc.in)
		if tc.want == nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s %v: error %v, want %v", tc.scalar, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", tc.scalar, tc.in, err)
			continue
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(tc.want)
		if string(gb) != string(wb) {
			t.Errorf("%s %v: got %s, want %s", tc.scalar, tc.in, gb, wb)
		}
	}
}

func make64(c byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return b
}

// TestScalarOutput checks Besu's output forms: minimal hex quantities,
// 0x-prefixed byte strings.
func TestScalarOutput(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{Long(0), `"0x0"`},
		{Long(34), `"0x22"`},
		{Long(-1), `"0xffffffffffffffff"`},
		{newBigInt(nil), `"0x0"`},
		{newBigInt(big.NewInt(0x140)), `"0x140"`},
		{Bytes{}, `"0x"`},
		{Bytes{0xab, 0x01}, `"0xab01"`},
		{Bytes32(common.HexToHash("0x04")), `"0x0000000000000000000000000000000000000000000000000000000000000004"`},
		{Address(common.HexToAddress("0x6295EE1B4F6DD65047762F924ECD367C17EABF8F")), `"0x6295ee1b4f6dd65047762f924ecd367c17eabf8f"`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T %v: %s %v, want %s", tc.v, tc.v, got, err, tc.want)
		}
	}
}
