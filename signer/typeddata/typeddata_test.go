package typeddata

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// mail is the example of EIP-712 itself (eips.ethereum.org/EIPS/eip-712,
// assets/eip-712/Example.js), as ethers' JsonRpcSigner sends it: chainId a
// JSON number.
const mail = `{
  "types": {
    "EIP712Domain": [
      {"name": "name", "type": "string"},
      {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"},
      {"name": "verifyingContract", "type": "address"}
    ],
    "Person": [
      {"name": "name", "type": "string"},
      {"name": "wallet", "type": "address"}
    ],
    "Mail": [
      {"name": "from", "type": "Person"},
      {"name": "to", "type": "Person"},
      {"name": "contents", "type": "string"}
    ]
  },
  "primaryType": "Mail",
  "domain": {
    "name": "Ether Mail",
    "version": "1",
    "chainId": 1,
    "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"
  },
  "message": {
    "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
    "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
    "contents": "Hello, Bob!"
  }
}`

// TestEIP712Example checks the values the EIP publishes for its example:
// encodeType, the domain separator, hashStruct(message) and the digest.
func TestEIP712Example(t *testing.T) {
	td, err := Parse([]byte(mail))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{
		"domain separator": td.DomainSeparator.Hex(),
		"hashStruct(Mail)": td.StructHash.Hex(),
		"digest":           td.Digest.Hex(),
	} {
		want := map[string]string{
			"domain separator": "0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f",
			"hashStruct(Mail)": "0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e",
			"digest":           "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2",
		}[name]
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if td.ChainID == nil || td.ChainID.Int64() != 1 || td.PrimaryType != "Mail" {
		t.Errorf("chain id %v, primary type %s", td.ChainID, td.PrimaryType)
	}
	h := &hasher{types: mustTypes(t, mail)}
	if got := string(h.encodeType("Mail")); got != "Mail(Person from,Person to,string contents)Person(string name,address wallet)" {
		t.Errorf("encodeType(Mail) = %s", got)
	}

	// The same document in other spellings hashes the same: chainId as a
	// decimal or hex string, addresses without 0x or in lower case.
	for _, variant := range []string{
		strings.Replace(mail, `"chainId": 1`, `"chainId": "1"`, 1),
		strings.Replace(mail, `"chainId": 1`, `"chainId": "0x01"`, 1),
		strings.Replace(mail, `0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826`, `cd2a3d9f938e13cd947ec05abc7fe734df8dd826`, 1),
	} {
		v, err := Parse([]byte(variant))
		if err != nil || v.Digest != td.Digest {
			t.Errorf("variant: %v %v", v, err)
		}
	}
}

func mustTypes(t *testing.T, doc string) map[string][]field {
	t.Helper()
	var d document
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	types, err := parseTypes(d.Types)
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// TestGoEthereumDocuments: documents marshalled from go-ethereum's
// apitypes.TypedData (which writes every standard domain field, unused
// ones as "" and null) hash as apitypes hashes them.
func TestGoEthereumDocuments(t *testing.T) {
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "chainId", Type: "uint256"}},
			"Person":       {{Name: "name", Type: "string"}, {Name: "wallets", Type: "address[]"}},
			"Mail":         {{Name: "from", Type: "Person"}, {Name: "to", Type: "Person[]"}, {Name: "amount", Type: "int64"}},
		},
		PrimaryType: "Mail",
		Domain:      apitypes.TypedDataDomain{Name: "Ether Mail", ChainId: math.NewHexOrDecimal256(1337)},
		Message: apitypes.TypedDataMessage{
			"from":   map[string]any{"name": "Cow", "wallets": []any{"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"}},
			"to":     []any{map[string]any{"name": "Bob", "wallets": []any{}}, map[string]any{"name": "Eve", "wallets": []any{"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"}}},
			"amount": "-42",
		},
	}
	want, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(td)
	if !strings.Contains(string(doc), `"salt":""`) {
		t.Fatalf("apitypes no longer writes unused domain fields: %s", doc)
	}
	got, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest.Hex() != hexString(want) || got.ChainID.Int64() != 1337 {
		t.Errorf("digest %s, want %x; chain id %v", got.Digest.Hex(), want, got.ChainID)
	}
	// A non-empty undeclared domain member is refused.
	bad := strings.Replace(string(doc), `"salt":""`, `"salt":"0x01"`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), `domain: "salt" is not a field of EIP712Domain`) {
		t.Errorf("undeclared salt: %v", err)
	}
}

// TestPublishedVectors runs the 123 random documents of ethers' typed-data
// test cases, as go-ethereum ships them in
// signer/core/apitypes/testdata/typed-data.json: nested and fixed-size
// arrays, negative integers, every bytesN and intN width, structs in
// arrays. "encoded" is encodeData(message), "digest" the digest.
func TestPublishedVectors(t *testing.T) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ethereum/go-ethereum").Output()
	if err != nil {
		t.Skipf("go-ethereum's module directory: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(dir)), "signer", "core", "apitypes", "testdata", "typed-data.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("vectors not available: %v", err)
	}
	var vectors []struct {
		Name        string          `json:"name"`
		Domain      json.RawMessage `json:"domain"`
		PrimaryType string          `json:"primaryType"`
		Types       json.RawMessage `json:"types"`
		Data        json.RawMessage `json:"data"`
		Encoded     string          `json:"encoded"`
		Digest      string          `json:"digest"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 100 {
		t.Fatalf("only %d vectors in %s", len(vectors), file)
	}
	for _, v := range vectors {
		doc, _ := json.Marshal(map[string]any{"types": v.Types, "primaryType": v.PrimaryType, "domain": v.Domain, "message": v.Data})
		td, err := Parse(doc)
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if td.Digest.Hex() != v.Digest {
			t.Errorf("%s: digest %s, want %s", v.Name, td.Digest.Hex(), v.Digest)
		}
		encoded, err := hexBytes(v.Encoded, "encoded")
		if err != nil {
			t.Fatal(err)
		}
		if crypto.Keccak256Hash(encoded) != td.StructHash {
			t.Errorf("%s: hashStruct %s, want keccak256 of %s", v.Name, td.StructHash.Hex(), v.Encoded)
		}
	}
}

// TestEncoding checks encodings one type at a time against values worked
// out by hand from the EIP's rules.
func TestEncoding(t *testing.T) {
	word := func(hexDigits string) string { return strings.Repeat("0", 64-len(hexDigits)) + hexDigits }
	for _, tc := range []struct {
		typ   string
		value any
		want  string // hex of the 32-byte encoding
	}{
		{"uint8", json.Number("255"), word("ff")},
		{"uint256", "0x" + strings.Repeat("f", 64), strings.Repeat("f", 64)},
		{"uint", "12", word("0c")},
		{"int8", json.Number("-128"), strings.Repeat("f", 62) + "80"},
		{"int8", "127", word("7f")},
		{"int256", "-1", strings.Repeat("f", 64)},
		{"int16", "-0x10", strings.Repeat("f", 62) + "f0"},
		{"bool", true, word("1")},
		{"bool", false, word("")},
		{"address", "0x00000000000000000000000000000000000000ff", word("ff")},
		{"bytes1", "0xab", "ab" + strings.Repeat("0", 62)},
		{"bytes32", "0x" + strings.Repeat("12", 32), strings.Repeat("12", 32)},
		{"bytes", "0x", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"}, // keccak256("")
		{"string", "", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},  // keccak256("")
	} {
		k, ok := atomicOrDynamic(tc.typ)
		if !ok {
			t.Fatalf("%s not recognised", tc.typ)
		}
		got, err := encodeAtomic(k, tc.typ, tc.value, "v")
		if err != nil {
			t.Errorf("%s %v: %v", tc.typ, tc.value, err)
			continue
		}
		if h := strings.TrimPrefix(hexString(got), "0x"); h != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.typ, tc.value, h, tc.want)
		}
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2+2*len(b))
	out = append(out, "0x"...)
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// doc builds a document with one struct type Msg of the given fields and
// message.
func doc(fields, message string) string {
	return `{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Msg":` + fields + `},` +
		`"primaryType":"Msg","domain":{"name":"x"},"message":` + message + `}`
}

// TestMalformed checks that bad documents are errors that say where and
// what, never a panic or a digest.
func TestMalformed(t *testing.T) {
	u := `[{"name":"a","type":"uint8"}]`
	for _, tc := range []struct {
		doc  string
		want string
	}{
		{``, "typed data must be a JSON object"},
		{`[]`, "typed data must be a JSON object"},
		{`{"types":`, "typed data is not valid JSON"},
		{`{}`, "types: must be a JSON object"},
		{`{"types":[]}`, "types: must be a JSON object"},
		{`{"types":{}}`, "types: EIP712Domain is missing"},
		{`{"types":{"EIP712Domain":null}}`, "types.EIP712Domain: must be a list"},
		{`{"types":{"EIP712Domain":[{"type":"string"}]}}`, "types.EIP712Domain[0]: name must be a non-empty string"},
		{`{"types":{"EIP712Domain":[{"name":"a"}]}}`, "types.EIP712Domain[0]: type must be a non-empty string"},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"string"},{"name":"a","type":"string"}]}}`, `types.EIP712Domain[1]: field "a" is declared twice`},
		{`{"types":{"EIP712Domain":[],"A B":[]}}`, `types.A B: "A B" is not a valid struct type name`},
		{`{"types":{"EIP712Domain":[],"uint256":[]}}`, `types.uint256: "uint256" is an atomic type`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"Nope"}]}}`, `type "Nope" is neither an EIP-712 type nor defined in types`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"uint7"}]}}`, `type "uint7" is neither`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"bytes33"}]}}`, `type "bytes33" is neither`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"uint8[0]"}]}}`, `array length in "uint8[0]" must be 1`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"uint8[x]"}]}}`, `malformed type "uint8[x]"`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"uint8["}]}}`, `malformed type "uint8["`},
		{`{"types":{"EIP712Domain":[{"name":"a","type":"[]"}]}}`, `malformed type "[]"`},
		{`{"types":{"EIP712Domain":[]}}`, "primaryType: must be a string"},
		{`{"types":{"EIP712Domain":[]},"primaryType":"EIP712Domain"}`, "primaryType: must be the message's type"},
		{`{"types":{"EIP712Domain":[]},"primaryType":"Mail"}`, `primaryType: "Mail" is not defined in types`},
		{`{"types":{"EIP712Domain":[],"M":[]},"primaryType":"M"}`, "domain: must be a JSON object"},
		{`{"types":{"EIP712Domain":[],"M":[]},"primaryType":"M","domain":{}}`, "message: must be a JSON object"},
		{`{"types":{"EIP712Domain":[],"M":[]},"primaryType":"M","domain":{"name":"x"},"message":{}}`, `domain: "name" is not a field of EIP712Domain`},
		{doc(`[]`, `{}`), ""}, // valid: an empty struct
		{doc(u, `{}`), "message.a: missing (type uint8)"},
		{doc(u, `{"a":1,"b":2}`), `message: "b" is not a field of Msg`},
		{doc(u, `{"a":256}`), "message.a: 256 is out of range for uint8"},
		{doc(u, `{"a":-1}`), "message.a: -1 is out of range for uint8"},
		{doc(u, `{"a":1.5}`), `message.a: "1.5" is not an integer`},
		{doc(u, `{"a":1e2}`), `message.a: "1e2" is not an integer`},
		{doc(u, `{"a":"--1"}`), `message.a: "--1" is not an integer`},
		{doc(u, `{"a":"0x"}`), `message.a: "0x" is not an integer`},
		{doc(u, `{"a":"+1"}`), `message.a: "+1" is not an integer`},
		{doc(u, `{"a":"1`+strings.Repeat("0", 100)+`"}`), "is not an integer"},
		{doc(u, `{"a":true}`), "message.a: must be an integer"},
		{doc(u, `{"a":null}`), "message.a: must be an integer"},
		{doc(`[{"name":"a","type":"int8"}]`, `{"a":128}`), "128 is out of range for int8"},
		{doc(`[{"name":"a","type":"int8"}]`, `{"a":-129}`), "-129 is out of range for int8"},
		{doc(`[{"name":"a","type":"uint256"}]`, `{"a":"0x1`+strings.Repeat("0", 64)+`"}`), "out of range for uint256"},
		{doc(`[{"name":"a","type":"address"}]`, `{"a":"0x1234"}`), "message.a: must be a 20-byte hex address"},
		{doc(`[{"name":"a","type":"address"}]`, `{"a":5}`), "message.a: must be a 20-byte hex address"},
		{doc(`[{"name":"a","type":"bool"}]`, `{"a":"true"}`), "message.a: must be true or false"},
		{doc(`[{"name":"a","type":"string"}]`, `{"a":5}`), "message.a: must be a string"},
		{doc(`[{"name":"a","type":"bytes"}]`, `{"a":"abcd"}`), "message.a: must be 0x-prefixed hex bytes"},
		{doc(`[{"name":"a","type":"bytes"}]`, `{"a":"0xabc"}`), "message.a: must be 0x-prefixed hex bytes"},
		{doc(`[{"name":"a","type":"bytes2"}]`, `{"a":"0xab"}`), "message.a: has 1 bytes, bytes2 needs 2"},
		{doc(`[{"name":"a","type":"uint8[]"}]`, `{"a":5}`), "message.a: must be an array (type uint8[])"},
		{doc(`[{"name":"a","type":"uint8[]"}]`, `{"a":[1,null]}`), "message.a[1]: must be an integer"},
		{doc(`[{"name":"a","type":"uint8[2]"}]`, `{"a":[1]}`), "message.a: has 1 elements, type uint8[2] needs 2"},
		{doc(`[{"name":"a","type":"uint8[2][]"}]`, `{"a":[[1,2],[3]]}`), "message.a[1]: has 1 elements, type uint8[2] needs 2"},
		{doc(`[{"name":"a","type":"uint8[][1]"}]`, `{"a":[[1],[2]]}`), "message.a: has 2 elements, type uint8[][1] needs 1"},
		{`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Msg":[{"name":"p","type":"P"}],"P":[{"name":"x","type":"bool"}]},"primaryType":"Msg","domain":{"name":"x"},"message":{"p":null}}`, "message.p: must be an object of type P"},
		{`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Msg":[{"name":"p","type":"P[]"}],"P":[{"name":"x","type":"bool"}]},"primaryType":"Msg","domain":{"name":"x"},"message":{"p":[{"x":true},{"x":1}]}}`, "message.p[1].x: must be true or false"},
		{`{"types":{"EIP712Domain":[{"name":"chainId","type":"string"}],"Msg":[]},"primaryType":"Msg","domain":{"chainId":"one"},"message":{}}`, `domain.chainId: "one" is not an integer`},
	} {
		td, err := Parse([]byte(tc.doc))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.doc, err)
			}
			continue
		}
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.120s: got %v (%v), want %q", tc.doc, err, td, tc.want)
		}
	}
}

// TestRecursiveTypes: a type may hold arrays of itself (EIP-712 allows
// it); the data ends the recursion.
func TestRecursiveTypes(t *testing.T) {
	d := `{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Node":[{"name":"v","type":"uint8"},{"name":"kids","type":"Node[]"}]},` +
		`"primaryType":"Node","domain":{"name":"tree"},"message":{"v":1,"kids":[{"v":2,"kids":[]},{"v":3,"kids":[{"v":4,"kids":[]}]}]}}`
	td, err := Parse([]byte(d))
	if err != nil {
		t.Fatal(err)
	}
	h := &hasher{types: mustTypes(t, d)}
	if got := string(h.encodeType("Node")); got != "Node(uint8 v,Node[] kids)" {
		t.Errorf("encodeType %s", got)
	}
	// By hand: hashStruct(n) = keccak(typeHash ‖ v ‖ keccak(hashStruct(kids)...)).
	th := crypto.Keccak256([]byte("Node(uint8 v,Node[] kids)"))
	word := func(v byte) []byte { b := make([]byte, 32); b[31] = v; return b }
	var node func(v byte, kids ...[]byte) []byte
	node = func(v byte, kids ...[]byte) []byte {
		var cat []byte
		for _, k := range kids {
			cat = append(cat, k...)
		}
		return crypto.Keccak256(th, word(v), crypto.Keccak256(cat))
	}
	want := node(1, node(2), node(3, node(4)))
	if td.StructHash.Hex() != hexString(want) {
		t.Errorf("hashStruct %s, want %x", td.StructHash.Hex(), want)
	}
}

// TestTypeEncodingBudget: a long chain of types, each referencing the
// next, would make the type encodings quadratic in the document's size;
// it is refused instead.
func TestTypeEncodingBudget(t *testing.T) {
	const n = 3000
	var types, msg strings.Builder
	types.WriteString(`{"EIP712Domain":[{"name":"name","type":"string"}]`)
	for i := range n {
		types.WriteString(`,"T` + itoa(i) + `":[{"name":"padding_padding_padding_padding_padding","type":"bool"}`)
		if i+1 < n {
			types.WriteString(`,{"name":"next","type":"T` + itoa(i+1) + `"}`)
		}
		types.WriteString(`]`)
	}
	types.WriteString(`}`)
	for i := range n {
		msg.WriteString(`{"padding_padding_padding_padding_padding":true`)
		if i+1 < n {
			msg.WriteString(`,"next":`)
		}
	}
	msg.WriteString(strings.Repeat("}", n))
	d := `{"types":` + types.String() + `,"primaryType":"T0","domain":{"name":"x"},"message":` + msg.String() + `}`
	if _, err := Parse([]byte(d)); err == nil || !strings.Contains(err.Error(), "the type encodings exceed") {
		t.Errorf("got %v", err)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
