package api

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpctypes"
)

// Parameter types that read JSON the way Besu's Jackson types do. Their
// decoders return plain errors, so the method's declared parameter error
// (rpctypes.Method.ParamErrors) is what the caller sees.

var errBadParam = errors.New("bad parameter")

// Bytes is hex data read like Besu's Bytes.fromHexString: 0x optional, an
// even number of digits.
type Bytes []byte

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return errBadParam
	}
	out, err := evenHex(s)
	if err != nil {
		return errBadParam
	}
	*b = out
	return nil
}

// RawTransaction is a signed (private) transaction's hex read like Besu's
// Bytes.fromHexString: 0x optional (web3js-quorum sends none), an odd
// number of digits read as if a 0 led. JSON null or a non-string is as
// invalid as a non-hex digit (a struct, so that the dispatcher does not
// take null as an empty value); the method decodes Data.
type RawTransaction struct {
	Data []byte
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *RawTransaction) UnmarshalJSON(data []byte) error {
	var s string
	if string(data) == "null" || rpctypes.Unquote(data, &s) != nil {
		return errBadParam
	}
	out, err := rpctypes.LenientHex(s, (len(s)+1)/2)
	if err != nil {
		return errBadParam
	}
	r.Data = out
	return nil
}

func evenHex(s string) ([]byte, error) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(body)%2 == 1 {
		return nil, errBadParam
	}
	return rpctypes.LenientHex(body, len(body)/2)
}

// Quantity is an unsigned 256-bit integer read like Besu's UInt256 and Wei
// parameters: hex with an optional 0x; a JSON number is taken as decimal.
type Quantity big.Int

// UnmarshalJSON implements json.Unmarshaler.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	n, err := parseQuantityJSON(data, 256)
	if err != nil {
		return err
	}
	*q = Quantity(*n)
	return nil
}

// Big returns q as a *big.Int (nil for a nil q).
func (q *Quantity) Big() *big.Int { return (*big.Int)(q) }

// Uint64Param is an unsigned 64-bit quantity read like Besu's
// OptionalUnsignedLongDeserializer: the JSON value's text as hex (0x
// optional), capped at the largest signed 64-bit value.
type Uint64Param uint64

// UnmarshalJSON implements json.Unmarshaler.
func (u *Uint64Param) UnmarshalJSON(data []byte) error {
	s := jsonText(data)
	if s == "null" {
		return errBadParam
	}
	b, err := rpctypes.LenientHex(s, 8)
	if err != nil || strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X") == "" {
		return errBadParam
	}
	n := new(big.Int).SetBytes(b)
	if n.BitLen() > 63 {
		n.SetUint64(1<<63 - 1)
	}
	*u = Uint64Param(n.Uint64())
	return nil
}

// parseQuantityJSON reads a hex string (0x optional) or a JSON integer of at
// most bits bits.
func parseQuantityJSON(data []byte, bits int) (*big.Int, error) {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		var num json.Number
		if err := json.Unmarshal(data, &num); err != nil {
			return nil, errBadParam
		}
		n, ok := new(big.Int).SetString(string(num), 10)
		if !ok || n.Sign() < 0 || n.BitLen() > bits {
			return nil, errBadParam
		}
		return n, nil
	}
	body := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if body == "" {
		return nil, errBadParam
	}
	b, err := rpctypes.LenientHex(body, (bits+7)/8)
	if err != nil {
		return nil, errBadParam
	}
	return new(big.Int).SetBytes(b), nil
}

// UintIndex is Besu's UnsignedIntParameter: a string read like Java's
// Integer.decode, or a JSON integer, from 0 to 2^31-1.
type UintIndex uint32

// UnmarshalJSON implements json.Unmarshaler.
func (u *UintIndex) UnmarshalJSON(data []byte) error {
	var s string
	var n int64
	if err := rpctypes.Unquote(data, &s); err == nil {
		v, err := rpctypes.DecodeLong(s)
		if err != nil {
			return errBadParam
		}
		n = v
	} else if err := json.Unmarshal(data, &n); err != nil {
		return errBadParam
	}
	if n < 0 || n > 1<<31-1 {
		return errBadParam
	}
	*u = UintIndex(n)
	return nil
}

// hexBig is a quantity for results.
func hexBig(n *big.Int) *hexutil.Big { return (*hexutil.Big)(n) }
