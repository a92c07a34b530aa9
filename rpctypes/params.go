package rpctypes

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Parameter types that read JSON the way Besu's Jackson types do. Their
// decoders return plain errors, so the method's declared parameter error
// (Method.ParamErrors) is what the caller sees.

var errBadParam = errors.New("bad parameter")

// Block tags, as BlockNumber.Tag and api.BlockParam.Tag hold them.
const (
	TagLatest    = "latest"
	TagEarliest  = "earliest"
	TagPending   = "pending"
	TagSafe      = "safe"
	TagFinalized = "finalized"
)

// Unquote reads a JSON string into s, without reflection for the common
// case of a string with no escapes (every hex parameter).
func Unquote(data []byte, s *string) error {
	if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data[1:n-1], '\\') < 0 && bytes.IndexByte(data[1:n-1], '"') < 0 {
		*s = string(data[1 : n-1])
		return nil
	}
	return json.Unmarshal(data, s)
}

// Address is an account address read like Besu's Address.fromHexString:
// 0x optional, odd length allowed, fewer than 40 digits left-padded.
type Address common.Address

// UnmarshalJSON implements json.Unmarshaler.
func (a *Address) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return errBadParam
	}
	var s string
	if err := Unquote(data, &s); err != nil {
		return errBadParam
	}
	b, err := LenientHex(s, common.AddressLength)
	if err != nil {
		return errBadParam
	}
	*a = Address(common.BytesToAddress(b))
	return nil
}

// Hash is a 32-byte hash read like Besu's Hash.fromHexString: 0x optional,
// exactly 64 digits.
type Hash common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (h *Hash) UnmarshalJSON(data []byte) error {
	var s string
	if err := Unquote(data, &s); err != nil {
		return errBadParam
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return errBadParam
	}
	b, err := LenientHex(s, common.HashLength)
	if err != nil {
		return errBadParam
	}
	*h = Hash(common.BytesToHash(b))
	return nil
}

// BlockNumber is Besu's plain "block parameter" (eth_getBlockByNumber,
// eth_estimateGas, eth_feeHistory, …): a tag or a number read like Java's
// Long.decode. A negative number parses and names no block.
type BlockNumber struct {
	Tag    string
	Number int64
}

// UnmarshalJSON parses a block number parameter; failures are Besu's
// "Invalid block param (block not found)" (methods may override it with
// Method.ParamErrors only when the decoder's error is not an *rpctypes.Error,
// so BlockNumber reports errBlockNumberSyntax and lets the method decide).
func (b *BlockNumber) UnmarshalJSON(data []byte) error {
	var s string
	if err := Unquote(data, &s); err != nil {
		var n int64
		if err := json.Unmarshal(data, &n); err != nil {
			return errBlockNumberSyntax
		}
		*b = BlockNumber{Number: n}
		return nil
	}
	if tag, ok := ParseTag(s); ok {
		*b = BlockNumber{Tag: tag}
		return nil
	}
	n, err := DecodeLong(s)
	if err != nil {
		return errBlockNumberSyntax
	}
	*b = BlockNumber{Number: n}
	return nil
}

// errBlockNumberSyntax is a plain error so that each method's declared
// parameter error (rpctypes.Method.ParamErrors) is what the caller sees.
var errBlockNumberSyntax = errors.New("invalid block number")

// LatestNumber is the "latest" block number parameter.
var LatestNumber = BlockNumber{Tag: TagLatest}

// ParseTag returns the block tag s names, case-insensitively, and true, or
// false when s is no tag.
func ParseTag(s string) (string, bool) {
	switch lower := strings.ToLower(s); lower {
	case TagLatest, TagEarliest, TagPending, TagSafe, TagFinalized:
		return lower, true
	}
	return "", false
}

// DecodeLong parses s as java.lang.Long.decode does: an optional sign,
// then "0x", "0X" or "#" for hexadecimal, a leading "0" for octal, or
// decimal; the value must fit a signed 64-bit integer.
func DecodeLong(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("empty number")
	}
	neg := false
	i := 0
	switch s[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	base := 10
	switch rest := s[i:]; {
	case strings.HasPrefix(rest, "0x"), strings.HasPrefix(rest, "0X"):
		base, i = 16, i+2
	case strings.HasPrefix(rest, "#"):
		base, i = 16, i+1
	case strings.HasPrefix(rest, "0") && len(rest) > 1:
		base, i = 8, i+1
	}
	digits := s[i:]
	if digits == "" || digits[0] == '-' || digits[0] == '+' {
		return 0, errors.New("bad number")
	}
	if neg {
		digits = "-" + digits
	}
	return strconv.ParseInt(digits, base, 64)
}

// LenientHex decodes hex with an optional 0x and odd length into at most
// size bytes (Besu's Bytes.fromHexStringLenient).
func LenientHex(s string, size int) ([]byte, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	if len(s) > 2*size {
		return nil, errors.New("hex value too long")
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		hi, ok1 := hexNibble(s[2*i])
		lo, ok2 := hexNibble(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, errors.New("invalid hex")
		}
		out[i] = hi<<4 | lo
	}
	return out, nil
}

func hexNibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
