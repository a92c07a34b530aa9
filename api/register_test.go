package api

import (
	"encoding/json"
	"testing"
)

// TestOmittedBlockParam calls every method whose block parameter the spec
// makes optional without it, and with null: both answer what "latest"
// answers (eth_estimateGas and eth_createAccessList: what the pending block
// answers, Besu's default). Requests that fail for another reason keep
// Besu's error, which names the block parameter Besu reads first.
func TestOmittedBlockParam(t *testing.T) {
	e := newShapeEnv(t)
	const addr = `"0x00000000000000000000000000000000000000aa"`
	call := func(method, params string) string {
		t.Helper()
		resp, _ := e.srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		return string(resp)
	}
	ok := []struct {
		method string
		given  string // the leading parameters
		tag    string // what an omitted block parameter means
	}{
		{"eth_getBalance", addr, "latest"},
		{"eth_getTransactionCount", addr, "latest"},
		{"eth_getCode", addr, "latest"},
		{"eth_getStorageAt", addr + `,"0x0"`, "latest"},
		{"eth_getProof", addr + `,["0x0"]`, "latest"},
		{"eth_call", `{"to":` + addr + `}`, "latest"},
		{"eth_estimateGas", `{"to":` + addr + `}`, "pending"},
		{"eth_createAccessList", `{"to":` + addr + `}`, "pending"},
	}
	for _, tc := range ok {
		want := call(tc.method, `[`+tc.given+`,"`+tc.tag+`"]`)
		var r struct{ Result json.RawMessage }
		if err := json.Unmarshal([]byte(want), &r); err != nil || r.Result == nil {
			t.Fatalf("%s with %q: %s", tc.method, tc.tag, want)
		}
		if got := call(tc.method, `[`+tc.given+`]`); got != want {
			t.Errorf("%s without a block parameter:\n got %s\nwant %s", tc.method, got, want)
		}
		if got := call(tc.method, `[`+tc.given+`,null]`); got != want {
			t.Errorf("%s with a null block parameter:\n got %s\nwant %s", tc.method, got, want)
		}
	}

	const (
		blockErr = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid block param (block not found)"}}`
		addrErr  = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid address params"}}`
	)
	bad := []struct{ method, params, want string }{
		// Besu's fixtures: eth_*_invalidParams, eth_call_callParamsMissing_block_8.
		{"eth_getBalance", `[]`, blockErr},
		{"eth_getTransactionCount", `[]`, blockErr},
		{"eth_getCode", `[]`, blockErr},
		{"eth_getStorageAt", `[]`, blockErr},
		{"eth_getProof", `[]`, blockErr},
		{"eth_call", `["0x8"]`, blockErr},
		// Another parameter missing or bad: Besu reads the block first.
		{"eth_getStorageAt", `[` + addr + `]`, blockErr},
		{"eth_getBalance", `["0xzz"]`, blockErr},
		// A block parameter given is read as before.
		{"eth_getBalance", `["0xzz","latest"]`, addrErr},
		{"eth_getBalance", `[` + addr + `,"nope"]`, blockErr},
		{"eth_getBalance", `[` + addr + `,"latest",1]`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid number of params"}}`},
	}
	for _, tc := range bad {
		if got := call(tc.method, tc.params); got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.method, tc.params, got, tc.want)
		}
	}
}
