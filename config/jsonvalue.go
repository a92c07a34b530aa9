package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// object is a decoded JSON object whose keys were lower-cased, as Besu
// normalises every genesis key (so "londonBlock", "LondonBlock" and
// "londonblock" are the same key). JSON null values are treated as absent.
type object map[string]any

// decodeObject decodes data, which must hold exactly one JSON object, with
// numbers kept as json.Number so that large values lose no precision.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: unexpected data after the top-level object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", jsonKind(v))
	}
	return m, nil
}

// lowerKeys returns m with lower-cased keys. When two keys differ only in
// case the result would depend on map order, so that is an error.
func lowerKeys(path string, m map[string]any) (object, error) {
	o := make(object, len(m))
	seen := make(map[string]string, len(m))
	for k, v := range m {
		lk := strings.ToLower(k)
		if prev, dup := seen[lk]; dup {
			return nil, fmt.Errorf("%skeys %q and %q differ only in case", prefix(path), prev, k)
		}
		seen[lk] = k
		o[lk] = v
	}
	return o, nil
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// get returns the value of key (matched case-insensitively); null is absent.
func (o object) get(key string) (any, bool) {
	v, ok := o[strings.ToLower(key)]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// has reports whether key is present, even with an empty object or null
// value: Besu selects a consensus engine by the mere presence of its key.
func (o object) has(key string) bool {
	_, ok := o[strings.ToLower(key)]
	return ok
}

// child returns the object under key with lower-cased keys, or nil when the
// key is absent.
func (o object) child(path, key string) (object, error) {
	v, ok := o.get(key)
	if !ok {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected an object, got %s", path, jsonKind(v))
	}
	return lowerKeys(path, m)
}

// rawJSON re-encodes v (a decoded value) as compact JSON.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// numberStyle says how a numeric string is read. JSON numbers are always
// decimal.
type numberStyle int

const (
	// decOrHex reads "0x..." as hexadecimal and anything else as decimal
	// (Besu's Long.decode / BigInteger rules: timestamp, gasLimit, balance,
	// fork blocks, ...).
	decOrHex numberStyle = iota
	// alwaysHex reads every string as hexadecimal, with or without "0x":
	// Besu parses nonce, difficulty, excessBlobGas and blobGasUsed this way,
	// so "difficulty": "10000" is 0x10000, as in Besu.
	alwaysHex
)

// parseBig reads a non-negative integer from a JSON number or string.
func parseBig(path string, v any, style numberStyle) (*big.Int, error) {
	var s string
	base := 10
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
		switch {
		case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
			s, base = s[2:], 16
		case style == alwaysHex:
			base = 16
		}
	default:
		return nil, fmt.Errorf("%s: expected a number or a numeric string, got %s", path, jsonKind(v))
	}
	if s == "" {
		if base == 16 {
			// "0x" alone is zero, as in Besu's lenient hex parsing.
			return new(big.Int), nil
		}
		return nil, fmt.Errorf("%s: empty number", path)
	}
	n, ok := new(big.Int).SetString(s, base)
	if !ok {
		return nil, fmt.Errorf("%s: invalid number %q", path, fmt.Sprint(v))
	}
	if n.Sign() < 0 {
		return nil, fmt.Errorf("%s: negative number %q", path, fmt.Sprint(v))
	}
	if n.BitLen() > 256 {
		return nil, fmt.Errorf("%s: number %q does not fit in 256 bits", path, fmt.Sprint(v))
	}
	return n, nil
}

// parseUint64 is parseBig limited to 64 bits.
func parseUint64(path string, v any, style numberStyle) (uint64, error) {
	n, err := parseBig(path, v, style)
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, fmt.Errorf("%s: number %q does not fit in 64 bits", path, fmt.Sprint(v))
	}
	return n.Uint64(), nil
}

// parseInt reads a number that must fit a non-negative int.
func parseInt(path string, v any) (int, error) {
	n, err := parseUint64(path, v, decOrHex)
	if err != nil {
		return 0, err
	}
	if n > 1<<31-1 {
		return 0, fmt.Errorf("%s: number %d is too large", path, n)
	}
	return int(n), nil
}

// parseBool reads a JSON boolean or the strings "true"/"false".
func parseBool(path string, v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, fmt.Errorf("%s: invalid boolean %q", path, x)
	}
	return false, fmt.Errorf("%s: expected a boolean, got %s", path, jsonKind(v))
}

// parseHexBytes reads a hex string with or without "0x". An odd number of
// digits is read as if a leading zero were present (Besu is lenient too).
func parseHexBytes(path string, v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s: expected a hex string, got %s", path, jsonKind(v))
	}
	b, err := decodeHex(s)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid hex string %q", path, s)
	}
	return b, nil
}

func decodeHex(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	return hex.DecodeString(s)
}

// parseWord reads up to 32 bytes of hex, left-padded to a 32-byte word
// (Besu's lenient Bytes32/UInt256 parsing of mixHash and storage).
func parseWord(path string, v any) (common.Hash, error) {
	b, err := parseHexBytes(path, v)
	if err != nil {
		return common.Hash{}, err
	}
	if len(b) > common.HashLength {
		return common.Hash{}, fmt.Errorf("%s: %d bytes, at most 32 allowed", path, len(b))
	}
	return common.BytesToHash(b), nil
}

// parseAddress reads a 20-byte address with or without "0x", in any case.
func parseAddress(path string, v any) (common.Address, error) {
	s, ok := v.(string)
	if !ok {
		return common.Address{}, fmt.Errorf("%s: expected an address string, got %s", path, jsonKind(v))
	}
	a, err := decodeAddress(s)
	if err != nil {
		return common.Address{}, fmt.Errorf("%s: %v", path, err)
	}
	return a, nil
}

// decodeAddress parses 40 hex digits, with or without "0x", in any case.
func decodeAddress(s string) (common.Address, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t = t[2:]
	}
	b, err := hex.DecodeString(t)
	if err != nil || len(b) != common.AddressLength {
		return common.Address{}, fmt.Errorf("invalid address %q: want 40 hex digits", s)
	}
	return common.BytesToAddress(b), nil
}
