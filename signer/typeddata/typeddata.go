// Package typeddata reads EIP-712 typed structured data, the JSON that
// eth_signTypedData_v4 carries (as MetaMask and ethers send it), and
// computes the digest a key signs:
//
//	keccak256("\x19\x01" ‖ hashStruct(domain) ‖ hashStruct(message))
//
// It is written for input from the network: every malformed document is
// an error that says where it is wrong (never a panic), numbers are exact
// (no float64 on the way), and the work is bounded by the size of the
// document.
//
// # Why not go-ethereum's apitypes
//
// go-ethereum's signer/core/apitypes computes the same digest for
// well-formed documents, and the tests check that this package agrees with
// its published vectors. It is not used for network input because a null
// array element makes it panic, an undefined primaryType hashes as an
// empty struct instead of failing, JSON numbers pass through float64 (a
// uint256 written as a number beyond 2^53 is silently rounded), fixed-size
// array lengths and intN ranges are not checked, an empty domain string is
// dropped instead of hashed, and every struct value re-validates all types
// and re-derives its type encoding, so the cost of one document grows with
// the product of its types and its values.
//
// # Rules
//
//   - The document is an object with types, primaryType, domain and
//     message. types holds EIP712Domain and every struct type, each a list
//     of {name, type}; type names are identifiers, field names are
//     non-empty and unique within their struct.
//   - Field types are the EIP-712 atomic and dynamic types (bool, address,
//     string, bytes, bytes1..bytes32, uint8..uint256, int8..int256, and
//     uint and int for the 256-bit ones, as go-ethereum and MetaMask accept
//     them), struct names, and arrays of either: T[] or T[n], nested as in
//     Solidity (T[2][3] is three arrays of two).
//   - Every field of a struct value must be given and no other member:
//     a value that is not hashed must not look signed. The one exception
//     is a domain member that EIP712Domain does not declare and whose
//     value is "" or null, which go-ethereum writes for the standard
//     domain fields a document does not use.
//   - Values: address as 20-byte hex (0x optional); bool as a JSON bool;
//     string as a JSON string; bytes and bytesN as 0x hex (bytesN exactly
//     N bytes); integers as JSON integer numbers, decimal strings or 0x hex
//     strings, optionally negative, within the range of their type.
package typeddata

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
)

// DomainType is the struct type of the domain.
const DomainType = "EIP712Domain"

// Limits that keep the work for one document proportional to its size.
const (
	// MaxEncodedTypes bounds the total length of the type encodings
	// (encodeType) of the struct types a document uses. A chain of n
	// struct types, each referencing the next, has encodings whose total
	// length grows with n²; real documents stay under a few kilobytes.
	MaxEncodedTypes = 1 << 20
	// maxIntDigits bounds the digits of an integer value (2^256 has 78
	// decimal digits) so that parsing never meets a megabyte-long number.
	maxIntDigits = 100
	// maxArrayLength bounds the declared length of a fixed-size array.
	maxArrayLength = 1 << 20
)

// field is one member of a struct type.
type field struct {
	Name string
	Type string
}

// TypedData is a parsed and hashed EIP-712 document.
type TypedData struct {
	// PrimaryType is the struct type of the message.
	PrimaryType string
	// DomainSeparator is hashStruct(domain).
	DomainSeparator common.Hash
	// StructHash is hashStruct(message).
	StructHash common.Hash
	// Digest is keccak256("\x19\x01" ‖ DomainSeparator ‖ StructHash), what
	// the key signs.
	Digest common.Hash
	// ChainID is the domain's chainId, or nil when the domain has none.
	ChainID *big.Int
}

// Error is a malformed document: Path says where ("message.to[1].wallet"),
// Reason what is wrong.
type Error struct {
	Path   string
	Reason string
}

// Error implements error: "<path>: <reason>".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

func fail(path, format string, a ...any) *Error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, a...)}
}

// document is the top level of the JSON, its values kept raw so that each
// is decoded with json.Number.
type document struct {
	Types       json.RawMessage `json:"types"`
	PrimaryType json.RawMessage `json:"primaryType"`
	Domain      json.RawMessage `json:"domain"`
	Message     json.RawMessage `json:"message"`
}

// Parse reads a typed-data JSON document and hashes it. Every error is an
// *Error.
func Parse(data []byte) (*TypedData, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fail("", "typed data must be a JSON object")
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fail("", "typed data is not valid JSON")
	}
	types, err := parseTypes(doc.Types)
	if err != nil {
		return nil, err
	}
	var primary string
	if len(doc.PrimaryType) == 0 || doc.PrimaryType[0] != '"' || json.Unmarshal(doc.PrimaryType, &primary) != nil {
		return nil, fail("primaryType", "must be a string")
	}
	switch {
	case primary == DomainType:
		return nil, fail("primaryType", "must be the message's type, not %s", DomainType)
	case types[primary] == nil:
		return nil, fail("primaryType", "%q is not defined in types", primary)
	}
	domain, err := object(doc.Domain, "domain")
	if err != nil {
		return nil, err
	}
	message, err := object(doc.Message, "message")
	if err != nil {
		return nil, err
	}

	// go-ethereum's apitypes.TypedData marshals all five standard domain
	// fields, those the document lacks as "" or null; an undeclared domain
	// member with such a value carries nothing and is dropped. Any other
	// undeclared member is refused below, as in the message.
	for name, v := range domain {
		if s, isString := v.(string); (v == nil || isString && s == "") &&
			!slices.ContainsFunc(types[DomainType], func(f field) bool { return f.Name == name }) {
			delete(domain, name)
		}
	}

	h := &hasher{types: types, typeHashes: map[string][]byte{}}
	sep, err := h.hashStruct(DomainType, domain, "domain")
	if err != nil {
		return nil, err
	}
	msg, err := h.hashStruct(primary, message, "message")
	if err != nil {
		return nil, err
	}
	td := &TypedData{
		PrimaryType:     primary,
		DomainSeparator: common.BytesToHash(sep),
		StructHash:      common.BytesToHash(msg),
	}
	td.Digest = crypto.Keccak256Hash([]byte{0x19, 0x01}, sep, msg)
	if v, ok := domain["chainId"]; ok {
		// hashStruct accepted it, so it is an integer of the declared type.
		id, err := integer(v, "domain.chainId")
		if err != nil {
			return nil, err
		}
		td.ChainID = id
	}
	return td, nil
}

// object decodes a JSON object with exact numbers.
func object(raw json.RawMessage, path string) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fail(path, "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fail(path, "is not valid JSON")
	}
	return m, nil
}

// parseTypes decodes and checks the types member.
func parseTypes(raw json.RawMessage) (map[string][]field, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fail("types", "must be a JSON object of struct types")
	}
	var rawTypes map[string]json.RawMessage
	if json.Unmarshal(raw, &rawTypes) != nil {
		return nil, fail("types", "must be a JSON object of struct types")
	}
	// Sorted, so that the first error reported does not depend on map
	// order.
	names := make([]string, 0, len(rawTypes))
	for name := range rawTypes {
		names = append(names, name)
	}
	slices.Sort(names)
	types := make(map[string][]field, len(rawTypes))
	for _, name := range names {
		def := rawTypes[name]
		path := "types." + name
		if !isIdentifier(name) {
			return nil, fail(path, "%q is not a valid struct type name", name)
		}
		if _, ok := atomicOrDynamic(name); ok {
			return nil, fail(path, "%q is an atomic type, not a struct name", name)
		}
		var fields []struct {
			Name *string `json:"name"`
			Type *string `json:"type"`
		}
		if json.Unmarshal(def, &fields) != nil || fields == nil {
			return nil, fail(path, "must be a list of {name, type}")
		}
		out := make([]field, len(fields))
		seen := make(map[string]bool, len(fields))
		for i, f := range fields {
			fp := fmt.Sprintf("%s[%d]", path, i)
			if f.Name == nil || *f.Name == "" {
				return nil, fail(fp, "name must be a non-empty string")
			}
			if f.Type == nil || *f.Type == "" {
				return nil, fail(fp, "type must be a non-empty string")
			}
			if seen[*f.Name] {
				return nil, fail(fp, "field %q is declared twice", *f.Name)
			}
			seen[*f.Name] = true
			out[i] = field{Name: *f.Name, Type: *f.Type}
		}
		types[name] = out
	}
	if types[DomainType] == nil {
		return nil, fail("types", "%s is missing", DomainType)
	}
	// Every field type must resolve: an atomic or dynamic type or a struct,
	// with well-formed array suffixes.
	for _, name := range names {
		for i, f := range types[name] {
			base, dims, ok := splitArray(f.Type)
			if !ok {
				return nil, fail(fmt.Sprintf("types.%s[%d]", name, i), "malformed type %q", f.Type)
			}
			for _, d := range dims {
				if d == 0 || d > maxArrayLength {
					return nil, fail(fmt.Sprintf("types.%s[%d]", name, i), "array length in %q must be 1 to %d", f.Type, maxArrayLength)
				}
			}
			if _, ok := atomicOrDynamic(base); !ok && types[base] == nil {
				return nil, fail(fmt.Sprintf("types.%s[%d]", name, i), "type %q is neither an EIP-712 type nor defined in types", base)
			}
		}
	}
	return types, nil
}

// isIdentifier reports whether s is a Solidity-style identifier, the only
// names that keep encodeType unambiguous.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '$':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// splitArray splits "T[2][]" into "T" and the dimensions [2, -1] (-1 for a
// dynamic one), innermost first.
func splitArray(t string) (base string, dims []int, ok bool) {
	i := strings.IndexByte(t, '[')
	if i < 0 {
		return t, nil, true
	}
	base, rest := t[:i], t[i:]
	if base == "" {
		return "", nil, false
	}
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 {
			return "", nil, false
		}
		n := rest[1:end]
		switch {
		case n == "":
			dims = append(dims, -1)
		case n[0] == '0' && len(n) > 1, len(n) > 9:
			return "", nil, false
		default:
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 {
				return "", nil, false
			}
			dims = append(dims, v)
		}
		rest = rest[end+1:]
	}
	return base, dims, true
}

// kind is an atomic or dynamic EIP-712 type.
type kind struct {
	name string // "address", "bool", "string", "bytes", "bytesN", "int", "uint"
	size int    // N of bytesN; bits of intN/uintN
}

// atomicOrDynamic recognises the EIP-712 types that are not structs.
func atomicOrDynamic(t string) (kind, bool) {
	switch t {
	case "address", "bool", "string", "bytes":
		return kind{name: t}, true
	case "int", "uint":
		return kind{name: t, size: 256}, true
	}
	for _, p := range []string{"bytes", "uint", "int"} {
		n, ok := strings.CutPrefix(t, p)
		if !ok || n == "" || n[0] == '0' || len(n) > 3 {
			continue
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			return kind{}, false
		}
		if p == "bytes" {
			return kind{name: "bytesN", size: v}, v >= 1 && v <= 32
		}
		return kind{name: p, size: v}, v >= 8 && v <= 256 && v%8 == 0
	}
	return kind{}, false
}

// hasher encodes values of one document's types.
type hasher struct {
	types      map[string][]field
	typeHashes map[string][]byte
	encoded    int // bytes of type encodings so far (MaxEncodedTypes)
}

// typeHash is keccak256(encodeType(name)), computed once per type.
func (h *hasher) typeHash(name string) ([]byte, error) {
	if th, ok := h.typeHashes[name]; ok {
		return th, nil
	}
	enc := h.encodeType(name)
	h.encoded += len(enc)
	if h.encoded > MaxEncodedTypes {
		return nil, fail("types", "the type encodings exceed %d bytes", MaxEncodedTypes)
	}
	th := crypto.Keccak256(enc)
	h.typeHashes[name] = th
	return th, nil
}

// encodeType is EIP-712's encodeType: the type, then the struct types it
// references (directly or not) sorted by name, each as
// Name(type1 name1,type2 name2).
func (h *hasher) encodeType(name string) []byte {
	seen := map[string]bool{name: true}
	var deps []string
	stack := []string{name}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, f := range h.types[t] {
			base, _, _ := splitArray(f.Type)
			if h.types[base] != nil && !seen[base] {
				seen[base] = true
				deps = append(deps, base)
				stack = append(stack, base)
			}
		}
	}
	slices.Sort(deps)
	var b []byte
	for _, t := range append([]string{name}, deps...) {
		b = append(b, t...)
		b = append(b, '(')
		for i, f := range h.types[t] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, f.Type...)
			b = append(b, ' ')
			b = append(b, f.Name...)
		}
		b = append(b, ')')
	}
	return b
}

// hashStruct is keccak256(typeHash ‖ encodeData(value)).
func (h *hasher) hashStruct(typ string, v any, path string) ([]byte, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fail(path, "must be an object of type %s", typ)
	}
	th, err := h.typeHash(typ)
	if err != nil {
		return nil, err
	}
	fields := h.types[typ]
	buf := make([]byte, 0, 32*(1+len(fields)))
	buf = append(buf, th...)
	for _, f := range fields {
		fv, ok := m[f.Name]
		fp := path + "." + f.Name
		if !ok {
			return nil, fail(fp, "missing (type %s)", f.Type)
		}
		enc, err := h.encodeValue(f.Type, fv, fp)
		if err != nil {
			return nil, err
		}
		buf = append(buf, enc...)
	}
	if len(m) != len(fields) {
		// Every field is present and names are unique, so there is a
		// member that is not a field; name one (sorted, for a stable
		// message).
		declared := make(map[string]bool, len(fields))
		for _, f := range fields {
			declared[f.Name] = true
		}
		var extra []string
		for name := range m {
			if !declared[name] {
				extra = append(extra, name)
			}
		}
		slices.Sort(extra)
		return nil, fail(path, "%q is not a field of %s", extra[0], typ)
	}
	return crypto.Keccak256(buf), nil
}

// encodeValue is EIP-712's encodeData for one member: 32 bytes.
func (h *hasher) encodeValue(typ string, v any, path string) ([]byte, error) {
	if strings.HasSuffix(typ, "]") {
		// The last brackets are the outer array: T[2][3] holds three T[2].
		open := strings.LastIndexByte(typ, '[')
		inner, dim := typ[:open], typ[open+1:len(typ)-1]
		arr, ok := v.([]any)
		if !ok {
			return nil, fail(path, "must be an array (type %s)", typ)
		}
		if dim != "" {
			if n, _ := strconv.Atoi(dim); len(arr) != n {
				return nil, fail(path, "has %d elements, type %s needs %d", len(arr), typ, n)
			}
		}
		buf := make([]byte, 0, 32*len(arr))
		for i, el := range arr {
			enc, err := h.encodeValue(inner, el, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			buf = append(buf, enc...)
		}
		return crypto.Keccak256(buf), nil
	}
	if h.types[typ] != nil {
		return h.hashStruct(typ, v, path)
	}
	k, _ := atomicOrDynamic(typ) // parseTypes checked every field type
	return encodeAtomic(k, typ, v, path)
}

// encodeAtomic encodes a value of an atomic or dynamic type.
func encodeAtomic(k kind, typ string, v any, path string) ([]byte, error) {
	switch k.name {
	case "address":
		s, ok := v.(string)
		h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		b, err := hex.DecodeString(h)
		if !ok || len(h) != 40 || err != nil {
			return nil, fail(path, "must be a 20-byte hex address")
		}
		return common.LeftPadBytes(b, 32), nil
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return nil, fail(path, "must be true or false")
		}
		out := make([]byte, 32)
		if b {
			out[31] = 1
		}
		return out, nil
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fail(path, "must be a string")
		}
		return crypto.Keccak256([]byte(s)), nil
	case "bytes":
		b, err := hexBytes(v, path)
		if err != nil {
			return nil, err
		}
		return crypto.Keccak256(b), nil
	case "bytesN":
		b, err := hexBytes(v, path)
		if err != nil {
			return nil, err
		}
		if len(b) != k.size {
			return nil, fail(path, "has %d bytes, %s needs %d", len(b), typ, k.size)
		}
		return common.RightPadBytes(b, 32), nil
	}
	n, err := integer(v, path)
	if err != nil {
		return nil, err
	}
	if k.name == "uint" {
		if n.Sign() < 0 || n.BitLen() > k.size {
			return nil, fail(path, "%s is out of range for %s", n, typ)
		}
	} else {
		// -2^(k-1) <= n < 2^(k-1)
		limit := new(big.Int).Lsh(big.NewInt(1), uint(k.size-1))
		if n.Cmp(limit) >= 0 || n.Cmp(new(big.Int).Neg(limit)) < 0 {
			return nil, fail(path, "%s is out of range for %s", n, typ)
		}
	}
	// Two's complement in 256 bits.
	return math.U256Bytes(n), nil
}

// hexBytes decodes a 0x hex string.
func hexBytes(v any, path string) ([]byte, error) {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fail(path, "must be 0x-prefixed hex bytes")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, fail(path, "must be 0x-prefixed hex bytes")
	}
	return b, nil
}

// integer reads an integer value: a JSON integer number, a decimal string
// or a 0x hex string, each optionally negative.
func integer(v any, path string) (*big.Int, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return nil, fail(path, "must be an integer (a number, or a decimal or 0x hex string)")
	}
	neg := strings.HasPrefix(s, "-")
	digits, base := strings.TrimPrefix(s, "-"), 10
	if h, ok := strings.CutPrefix(digits, "0x"); ok {
		digits, base = h, 16
	} else if h, ok := strings.CutPrefix(digits, "0X"); ok {
		digits, base = h, 16
	}
	// SetString takes a sign of its own: refuse a second one ("--5").
	if digits == "" || len(digits) > maxIntDigits || digits[0] == '+' || digits[0] == '-' {
		return nil, fail(path, "%q is not an integer", truncate(s))
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return nil, fail(path, "%q is not an integer", truncate(s))
	}
	if neg {
		n.Neg(n)
	}
	return n, nil
}

// truncate shortens a value quoted in an error message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
