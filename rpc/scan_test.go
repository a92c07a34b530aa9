package rpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

var scanCases = []string{
	``, ` `, `{}`, `[]`, `[1,2]`, `[1,]`, `[,1]`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":}`,
	`"x"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", "\"\xff\xfe\"", `"abc`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e300`, `+1`,
	`true`, `tru`, `false`, `null`, `nul`, `nulll`, `TRUE`,
	` {"a" : [ 1 , { } , [ ] , "b" ] } `, `{"a":1}x`, `[1] [2]`, `{"a":{"b":{"c":[null,true,false]}}}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestScanMatchesEncodingJSON checks the scanner's validity verdict against
// encoding/json's.
func TestScanMatchesEncodingJSON(t *testing.T) {
	for _, c := range scanCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.40q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

func TestArrayIter(t *testing.T) {
	for in, want := range map[string][]string{
		`[]`:                          nil,
		`[ ]`:                         nil,
		`[1]`:                         {`1`},
		`[ "a" , {"b":[1,2]} ,null ]`: {`"a"`, `{"b":[1,2]}`, `null`},
	} {
		it := newArrayIter([]byte(in))
		var got []string
		for {
			el, ok := it.next()
			if !ok {
				break
			}
			got = append(got, string(el))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// FuzzScan checks the scanner against encoding/json on arbitrary input.
func FuzzScan(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// FuzzHandleMessage feeds arbitrary bytes to the dispatcher: it must never
// panic, and must answer nothing or valid JSON.
func FuzzHandleMessage(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		`{"id":"x","method":"eth_getBalance","params":["0x00000000000000000000000000000000000000ff","latest"]}`,
		`{"id":1.5e3,"method":"eth_echo","params":["a",1]}`,
		`{"id":1,"method":"eth_block","params":["0x10"]}`,
		`{"id":1,"method":"eth_paramErrs","params":["0x1",[]]}`,
		`{"id":null,"method":"eth_panic"}`,
		`{"id":1,"method":"eth_text"}`,
		`{"id":1,"method":"eth_revert"}`,
		`{"id":{},"method":1,"params":{}}`,
		`{"method":"eth_blockNumber"}`,
		`[{"id":1,"method":"eth_blockNumber"},{"method":"x"},1,[],{"id":2,"method":"admin_peers"}]`,
		`[]`, `[`, `{`, `"x"`, `1`, ``, "\xff",
		`{"\u0069d":"\ud800","method":"eth_echo","params":["\u0000"]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	srv, err := NewServer(testRegistry(f), Config{
		Logger:           quietLogger,
		MaxBatchSize:     8,
		BatchConcurrency: 2,
		// The handlers that sleep are not worth the fuzzer's time.
		Authorizer: AuthorizerFunc(func(_ context.Context, m string) bool {
			return m != "eth_slow" && m != "eth_stubborn" && m != "eth_sleep"
		}),
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		resp, _ := srv.HandleMessage(context.Background(), msg)
		if resp != nil && !json.Valid(resp) {
			t.Fatalf("invalid JSON response to %q: %q", msg, resp)
		}
	})
}
