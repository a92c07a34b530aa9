package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/rpc"
)

// Block tags.
const (
	tagLatest    = "latest"
	tagEarliest  = "earliest"
	tagPending   = "pending"
	tagSafe      = "safe"
	tagFinalized = "finalized"
)

// BlockParam is Besu's "block parameter or block hash" (eth_getBalance,
// eth_call, eth_getProof, …): a tag, a number, a block hash, or an EIP-1898
// object {"blockNumber": …} / {"blockHash": …, "requireCanonical": …}.
// Numbers are read like Java's Long.decode (0x hex, # hex, leading-zero
// octal, decimal, optional sign); a string of 65 characters or more is a
// hash (0x optional); anything else longer than 16 characters is refused.
// Failures are Besu's "Invalid block param (block not found)".
type BlockParam struct {
	Tag              string // one of the tags, or "" for Number/Hash
	Number           int64  // negative numbers parse; methods refuse them
	Hash             *common.Hash
	RequireCanonical bool
}

// Latest is the "latest" block parameter.
var Latest = BlockParam{Tag: tagLatest}

// UnmarshalJSON parses a block parameter.
func (b *BlockParam) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return rpc.ErrInvalidBlockParams
		}
		if raw, ok := obj["blockHash"]; ok && string(raw) != "null" {
			h, err := parseLenientHash(jsonText(raw))
			if err != nil {
				return rpc.ErrInvalidBlockParams
			}
			*b = BlockParam{Hash: &h, RequireCanonical: jsonText(obj["requireCanonical"]) == "true"}
			return nil
		}
		raw, ok := obj["blockNumber"]
		if !ok || string(raw) == "null" {
			return rpc.ErrInvalidBlockParams
		}
		n, err := javaLongDecode(jsonText(raw))
		if err != nil {
			return rpc.ErrInvalidBlockParams
		}
		*b = BlockParam{Number: n}
		return nil
	}
	var s string
	if err := unquote(data, &s); err != nil {
		return rpc.ErrInvalidBlockParams
	}
	if tag, ok := parseTag(s); ok {
		*b = BlockParam{Tag: tag}
		return nil
	}
	switch {
	case len(s) >= 65:
		h, err := parseLenientHash(s)
		if err != nil {
			return rpc.ErrInvalidBlockParams
		}
		*b = BlockParam{Hash: &h}
		return nil
	case len(s) > 16:
		return rpc.ErrInvalidBlockParams
	}
	n, err := javaLongDecode(s)
	if err != nil {
		return rpc.ErrInvalidBlockParams
	}
	*b = BlockParam{Number: n}
	return nil
}

// String renders the parameter for logs.
func (b BlockParam) String() string {
	switch {
	case b.Tag != "":
		return b.Tag
	case b.Hash != nil:
		return b.Hash.Hex()
	}
	return strconv.FormatInt(b.Number, 10)
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
// rpc.Method.ParamErrors only when the decoder's error is not an *rpc.Error,
// so BlockNumber reports errBlockNumberSyntax and lets the method decide).
func (b *BlockNumber) UnmarshalJSON(data []byte) error {
	var s string
	if err := unquote(data, &s); err != nil {
		var n int64
		if err := json.Unmarshal(data, &n); err != nil {
			return errBlockNumberSyntax
		}
		*b = BlockNumber{Number: n}
		return nil
	}
	if tag, ok := parseTag(s); ok {
		*b = BlockNumber{Tag: tag}
		return nil
	}
	n, err := javaLongDecode(s)
	if err != nil {
		return errBlockNumberSyntax
	}
	*b = BlockNumber{Number: n}
	return nil
}

// errBlockNumberSyntax is a plain error so that each method's declared
// parameter error (rpc.Method.ParamErrors) is what the caller sees.
var errBlockNumberSyntax = errors.New("invalid block number")

// LatestNumber is the "latest" block number parameter.
var LatestNumber = BlockNumber{Tag: tagLatest}

func parseTag(s string) (string, bool) {
	switch lower := strings.ToLower(s); lower {
	case tagLatest, tagEarliest, tagPending, tagSafe, tagFinalized:
		return lower, true
	}
	return "", false
}

// jsonText is the text of a JSON value the way Jackson's asText reads it:
// a string's contents, or the literal of anything else.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// javaLongDecode parses s as java.lang.Long.decode does: an optional sign,
// then "0x", "0X" or "#" for hexadecimal, a leading "0" for octal, or
// decimal; the value must fit a signed 64-bit integer.
func javaLongDecode(s string) (int64, error) {
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

// parseLenientHash reads 32 bytes of hex, 0x optional, an odd number of
// digits and fewer than 64 digits allowed (left-padded), as Besu's
// Bytes32.fromHexStringLenient.
func parseLenientHash(s string) (common.Hash, error) {
	b, err := lenientHex(s, common.HashLength)
	if err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(b), nil
}

// lenientHex decodes hex with an optional 0x and odd length into at most
// size bytes (Besu's Bytes.fromHexStringLenient).
func lenientHex(s string, size int) ([]byte, error) {
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
