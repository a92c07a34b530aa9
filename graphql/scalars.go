package graphql

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// The schema's custom scalars. Each Go type reads its input with the same
// function the pre-execution check uses (parseScalar), so a value that
// passes the check always unpacks, and writes its output as Besu does:
// quantities as 0x-prefixed minimal hex, byte strings as 0x-prefixed hex.

// Scalar names.
const (
	scalarAddress       = "Address"
	scalarBigInt        = "BigInt"
	scalarBytes         = "Bytes"
	scalarBytes32       = "Bytes32"
	scalarHash          = "Hash"
	scalarLogTopic      = "LogTopic"
	scalarLong          = "Long"
	scalarVersionedHash = "VersionedHash"
)

// Why an input is refused; the caller words the message the way Besu's
// coercing does (it needs the value's syntax, or the variable's name).
var (
	errNoHexPrefix = errors.New("not prefixed with 0x")
	errBadScalar   = errors.New("invalid value")
)

// isCustomScalar reports whether name is one of the schema's own scalars.
func isCustomScalar(name string) bool {
	switch name {
	case scalarAddress, scalarBigInt, scalarBytes, scalarBytes32, scalarHash, scalarLogTopic, scalarLong, scalarVersionedHash:
		return true
	}
	return false
}

// parseScalar reads an input of a custom scalar: a literal (a string, or
// an int32 or int64 from an Int literal) or a variable's JSON value (a
// string or a json.Number). It returns common.Address, *big.Int, []byte,
// common.Hash or int64 according to the scalar.
func parseScalar(name string, in any) (any, error) {
	switch name {
	case scalarAddress:
		s, ok := in.(string)
		if !ok {
			return nil, errBadScalar
		}
		b, err := decodeHex(strings.TrimPrefix(s, "0x"), false)
		if err != nil || len(b) != common.AddressLength {
			return nil, errBadScalar
		}
		return common.BytesToAddress(b), nil
	case scalarBytes:
		return hexInput(in)
	case scalarBytes32, scalarHash, scalarLogTopic, scalarVersionedHash:
		b, err := hexInput(in)
		if err != nil {
			return nil, err
		}
		if len(b) > common.HashLength {
			return nil, errBadScalar
		}
		return common.BytesToHash(b), nil
	case scalarLong:
		return parseLong(in)
	case scalarBigInt:
		return parseBigInt(in)
	}
	return nil, errBadScalar
}

// parseLong reads a Long as Besu does: an integer, a decimal string (a sign
// allowed) or a 0x-prefixed hex string of at most 8 bytes.
func parseLong(in any) (int64, error) {
	switch v := in.(type) {
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case float64:
		if v != math.Trunc(v) || v < math.MinInt64 || v >= math.MaxInt64 {
			return 0, errBadScalar
		}
		return int64(v), nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, errBadScalar
		}
		return n, nil
	case string:
		s := strings.ToLower(v)
		if strings.HasPrefix(s, "0x") {
			b, err := decodeHex(s[2:], true)
			if err != nil || len(b) > 8 {
				return 0, errBadScalar
			}
			return int64(new(big.Int).SetBytes(b).Uint64()), nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, errBadScalar
		}
		return n, nil
	}
	return 0, errBadScalar
}

// maxUint256 bounds BigInt inputs.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// parseBigInt reads a BigInt: a non-negative integer, a decimal string or
// a 0x-prefixed hex string, below 2^256.
func parseBigInt(in any) (*big.Int, error) {
	var n *big.Int
	switch v := in.(type) {
	case int32:
		n = big.NewInt(int64(v))
	case int64:
		n = big.NewInt(v)
	case int:
		n = big.NewInt(int64(v))
	case json.Number:
		var ok bool
		if n, ok = new(big.Int).SetString(string(v), 10); !ok {
			return nil, errBadScalar
		}
	case string:
		if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
			b, err := decodeHex(v[2:], true)
			if err != nil || len(b) > 32 {
				return nil, errBadScalar
			}
			n = new(big.Int).SetBytes(b)
		} else {
			var ok bool
			if n, ok = new(big.Int).SetString(v, 10); !ok {
				return nil, errBadScalar
			}
		}
	default:
		return nil, errBadScalar
	}
	if n.Sign() < 0 || n.Cmp(maxUint256) > 0 {
		return nil, errBadScalar
	}
	return n, nil
}

// decodeHex decodes hex digits without a prefix; lenient allows an odd
// number of digits (a leading zero is implied).
func decodeHex(s string, lenient bool) ([]byte, error) {
	if len(s)%2 == 1 {
		if !lenient {
			return nil, errBadScalar
		}
		s = "0" + s
	}
	return hex.DecodeString(s)
}

// unmarshalScalar is the common body of the UnmarshalGraphQL methods.
func unmarshalScalar(name string, in any) (any, error) {
	v, err := parseScalar(name, in)
	if err != nil {
		return nil, fmt.Errorf("invalid %s value %v", name, in)
	}
	return v, nil
}

// hexInput reads an input of the byte scalars: a string of 0x and hex
// digits, of any length (an odd count is left-padded).
func hexInput(in any) ([]byte, error) {
	s, ok := in.(string)
	if !ok {
		return nil, errBadScalar
	}
	if !strings.HasPrefix(s, "0x") {
		return nil, errNoHexPrefix
	}
	b, err := decodeHex(s[2:], true)
	if err != nil {
		return nil, errBadScalar
	}
	return b, nil
}

// Long is an unsigned 64-bit quantity (Besu reads it into a Java long, so
// a negative input parses and names no block).
type Long int64

// ImplementsGraphQLType maps Long to the schema's Long.
func (Long) ImplementsGraphQLType(name string) bool { return name == scalarLong }

// UnmarshalGraphQL reads an input Long.
func (l *Long) UnmarshalGraphQL(in any) error {
	v, err := unmarshalScalar(scalarLong, in)
	if err == nil {
		*l = Long(v.(int64))
	}
	return err
}

// MarshalJSON writes 0x-prefixed minimal hex.
func (l Long) MarshalJSON() ([]byte, error) {
	return quantityJSON(uint64(l)), nil
}

func quantityJSON(n uint64) []byte {
	b := make([]byte, 0, 20)
	b = append(b, `"0x`...)
	b = strconv.AppendUint(b, n, 16)
	return append(b, '"')
}

// BigInt is an unsigned integer of up to 256 bits.
type BigInt big.Int

// newBigInt wraps n (nil reads as zero).
func newBigInt(n *big.Int) BigInt {
	if n == nil {
		return BigInt{}
	}
	return BigInt(*n)
}

// optBigInt wraps n, nil for nil.
func optBigInt(n *big.Int) *BigInt {
	if n == nil {
		return nil
	}
	b := BigInt(*n)
	return &b
}

// ImplementsGraphQLType maps BigInt to the schema's BigInt.
func (BigInt) ImplementsGraphQLType(name string) bool { return name == scalarBigInt }

// UnmarshalGraphQL reads an input BigInt.
func (b *BigInt) UnmarshalGraphQL(in any) error {
	v, err := unmarshalScalar(scalarBigInt, in)
	if err == nil {
		*b = BigInt(*v.(*big.Int))
	}
	return err
}

// Big returns the value as a *big.Int.
func (b *BigInt) Big() *big.Int { return (*big.Int)(b) }

// MarshalJSON writes 0x-prefixed minimal hex ("0x0" for zero).
func (b BigInt) MarshalJSON() ([]byte, error) {
	n := big.Int(b)
	return []byte(`"0x` + n.Text(16) + `"`), nil
}

// Bytes is a byte string.
type Bytes []byte

// ImplementsGraphQLType maps Bytes to the schema's Bytes.
func (Bytes) ImplementsGraphQLType(name string) bool { return name == scalarBytes }

// UnmarshalGraphQL reads input Bytes.
func (b *Bytes) UnmarshalGraphQL(in any) error {
	v, err := unmarshalScalar(scalarBytes, in)
	if err == nil {
		*b = v.([]byte)
	}
	return err
}

// MarshalJSON writes 0x-prefixed hex.
func (b Bytes) MarshalJSON() ([]byte, error) { return hexJSON(b), nil }

func hexJSON(b []byte) []byte {
	out := make([]byte, 4+2*len(b))
	copy(out, `"0x`)
	hex.Encode(out[3:], b)
	out[len(out)-1] = '"'
	return out
}

// unmarshalHash reads an input of one of the 32-byte scalars into dst.
func unmarshalHash(scalar string, in any, dst *common.Hash) error {
	v, err := unmarshalScalar(scalar, in)
	if err == nil {
		*dst = v.(common.Hash)
	}
	return err
}

// The 32-byte scalars (Bytes32, Hash, LogTopic, VersionedHash) read and
// write alike; each is word with its own name, so that the schema's
// scalars stay distinct Go types.
type (
	// Bytes32 is a 32-byte value.
	Bytes32 = word[bytes32Name]
	// Hash is a 32-byte hash.
	Hash = word[hashName]
	// LogTopic is a 32-byte log topic.
	LogTopic = word[logTopicName]
	// VersionedHash is an EIP-4844 blob versioned hash.
	VersionedHash = word[versionedHashName]
)

// word is a 32-byte scalar named by N.
type word[N scalarName] common.Hash

// scalarName gives a word its schema scalar's name.
type scalarName interface{ name() string }

type (
	bytes32Name       struct{}
	hashName          struct{}
	logTopicName      struct{}
	versionedHashName struct{}
)

func (bytes32Name) name() string       { return scalarBytes32 }
func (hashName) name() string          { return scalarHash }
func (logTopicName) name() string      { return scalarLogTopic }
func (versionedHashName) name() string { return scalarVersionedHash }

// ImplementsGraphQLType maps the word to its schema scalar.
func (word[N]) ImplementsGraphQLType(name string) bool {
	var n N
	return name == n.name()
}

// UnmarshalGraphQL reads an input of the word's scalar.
func (w *word[N]) UnmarshalGraphQL(in any) error {
	var n N
	return unmarshalHash(n.name(), in, (*common.Hash)(w))
}

// MarshalJSON writes 0x and 64 hex digits.
func (w word[N]) MarshalJSON() ([]byte, error) { return hexJSON(w[:]), nil }

// Address is a 20-byte account address.
type Address common.Address

// ImplementsGraphQLType maps Address to the schema's Address.
func (Address) ImplementsGraphQLType(name string) bool { return name == scalarAddress }

// UnmarshalGraphQL reads an input Address.
func (a *Address) UnmarshalGraphQL(in any) error {
	v, err := unmarshalScalar(scalarAddress, in)
	if err == nil {
		*a = Address(v.(common.Address))
	}
	return err
}

// MarshalJSON writes 0x and 40 lower-case hex digits.
func (a Address) MarshalJSON() ([]byte, error) { return hexJSON(a[:]), nil }
