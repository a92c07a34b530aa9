package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/httpmw"

	"github.com/basaltchain/basalt/rpctypes"
)

const (
	errParse       = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	errInvalidNull = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	errTimeout     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Timeout expired"}}`
)

func TestEnvelope(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{})
	tests := []struct {
		name, req string
		status    int
		resp      string
	}{
		{"success", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
			200, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":"abc","result":"0x2a"}`},
		{"escaped string id echoed as sent", `{"id":"a\"b\u00e9","method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":"a\"b\u00e9","result":"0x2a"}`},
		{"null id is answered", `{"jsonrpc":"2.0","id":null,"method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":null,"result":"0x2a"}`},
		{"float id echoed exactly", `{"id":1.50e300,"method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":1.50e300,"result":"0x2a"}`},
		{"big id echoed exactly", `{"id":-123456789012345678901234567890,"method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":-123456789012345678901234567890,"result":"0x2a"}`},
		{"object id", `{"id":{"a":1},"method":"eth_blockNumber"}`, 400, errInvalidNull},
		{"array id", `{"id":[1],"method":"eth_blockNumber"}`, 400, errInvalidNull},
		{"boolean id", `{"id":true,"method":"eth_blockNumber"}`, 400, errInvalidNull},
		{"missing method", `{"jsonrpc":"2.0","id":7}`,
			400, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"null method", `{"id":7,"method":null}`,
			400, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"number method", `{"id":7,"method":5}`,
			400, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"params object", `{"id":"x","method":"eth_blockNumber","params":{}}`,
			400, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request"}}`},
		{"params string", `{"id":"x","method":"eth_blockNumber","params":"a"}`,
			400, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request"}}`},
		{"params null", `{"id":2,"method":"eth_blockNumber","params":null}`,
			200, `{"jsonrpc":"2.0","id":2,"result":"0x2a"}`},
		{"invalid notification is answered", `{"method":5}`, 400, errInvalidNull},
		{"notification", `{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]}`, 200, ``},
		{"notification of unknown method", `{"method":"eth_nope"}`, 200, ``},
		{"jsonrpc not validated", `{"jsonrpc":"1.0","id":3,"method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":3,"result":"0x2a"}`},
		{"jsonrpc absent", `{"id":3,"method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":3,"result":"0x2a"}`},
		{"white space", " \n\t{ \"id\" : 4 , \"method\" : \"eth_blockNumber\" , \"params\" : [ ] } \r\n",
			200, `{"jsonrpc":"2.0","id":4,"result":"0x2a"}`},
		{"escaped member names", `{"\u0069d":5,"meth\u006fd":"eth_block\u004eumber"}`,
			200, `{"jsonrpc":"2.0","id":5,"result":"0x2a"}`},
		{"duplicate members: last wins", `{"id":1,"id":2,"method":"nope","method":"eth_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":2,"result":"0x2a"}`},
		{"unknown members ignored", `{"id":1,"method":"eth_blockNumber","extra":{"a":[1,2]}}`,
			200, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`},
		{"malformed", `{"id":1,`, 400, errParse},
		{"malformed string", `{"id":"\x","method":"eth_blockNumber"}`, 400, errParse},
		{"empty body", ``, 400, errParse},
		{"only spaces", `   `, 400, errParse},
		{"scalar", `1`, 400, errParse},
		{"string", `"eth_blockNumber"`, 400, errParse},
		{"trailing garbage", `{"id":1,"method":"eth_blockNumber"} x`, 400, errParse},
		{"two objects", `{"id":1,"method":"eth_blockNumber"}{"id":2,"method":"eth_blockNumber"}`, 400, errParse},
		{"unknown method", `{"id":1,"method":"eth_nope"}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"empty method name", `{"id":1,"method":""}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"method names are case-sensitive", `{"id":1,"method":"ETH_blockNumber"}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"registered in a disabled group", `{"id":1,"method":"admin_peers"}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}`},
		{"known to Besu, not registered", `{"id":1,"method":"debug_metrics"}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}`},
		{"known in an enabled group, not registered", `{"id":1,"method":"eth_getProof"}`,
			200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}`},
		{"enabled groups NET and WEB3", `[{"id":1,"method":"net_version"},{"id":2,"method":"web3_clientVersion"}]`,
			200, `[{"jsonrpc":"2.0","id":1,"result":"1337"},{"jsonrpc":"2.0","id":2,"result":"basalt/test"}]`},
	}
	for _, tc := range tests {
		got := post(t, ts.URL, tc.req)
		check(t, tc.name, got, tc.status, tc.resp)
		if ct := got.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
	}
}

func TestParams(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{})
	const addr = `"0x00000000000000000000000000000000000000ff"`
	res := func(id int, r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, r) }
	fail := func(id, code int, msg string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":"%s"}}`, id, code, msg)
	}
	tests := []struct{ name, req, resp string }{
		{"typed params", `{"id":1,"method":"eth_getBalance","params":[` + addr + `,"latest"]}`, res(1, `"0xff"`)},
		{"missing params", `{"id":1,"method":"eth_getBalance","params":[]}`, fail(1, -32602, "Invalid number of params")},
		{"absent params", `{"id":1,"method":"eth_getBalance"}`, fail(1, -32602, "Invalid number of params")},
		{"one missing", `{"id":1,"method":"eth_getBalance","params":[` + addr + `]}`, fail(1, -32602, "Invalid number of params")},
		{"too many", `{"id":1,"method":"eth_getBalance","params":[` + addr + `,"latest",1]}`, fail(1, -32602, "Invalid number of params")},
		{"too many for none", `{"id":1,"method":"eth_blockNumber","params":[1]}`, fail(1, -32602, "Invalid number of params")},
		{"extra allowed", `{"id":1,"method":"eth_extra","params":["a","b",3]}`, res(1, `"a"`)},
		{"bad address", `{"id":1,"method":"eth_getBalance","params":["0xzz","latest"]}`, fail(1, -32602, "Invalid params")},
		{"wrong type", `{"id":1,"method":"eth_getBalance","params":[` + addr + `,5]}`, fail(1, -32602, "Invalid params")},
		{"null for required", `{"id":1,"method":"eth_echo","params":[null]}`, fail(1, -32602, "Invalid params")},
		{"trailing pointer absent", `{"id":1,"method":"eth_echo","params":["a"]}`, res(1, `{"n":null,"s":"a"}`)},
		{"trailing pointer null", `{"id":1,"method":"eth_echo","params":["a",null]}`, res(1, `{"n":null,"s":"a"}`)},
		{"trailing pointer set", `{"id":1,"method":"eth_echo","params":["a",5]}`, res(1, `{"n":5,"s":"a"}`)},
		{"decoder's own error", `{"id":1,"method":"eth_block","params":["0xq"]}`, fail(1, -32602, "Invalid block number params")},
		{"decoder ok", `{"id":1,"method":"eth_block","params":["0x10"]}`,
			res(1, `{"number":"0x10","hash":"0x0000000000000000000000000000000000000000000000000000000000000000"}`)},
		{"nil result is null", `{"id":1,"method":"eth_block","params":["0x0"]}`, res(1, `null`)},
		{"declared param error: decode", `{"id":1,"method":"eth_paramErrs","params":["0x1","0x1"]}`, fail(1, -32602, "Invalid address params")},
		{"declared param error: second", `{"id":1,"method":"eth_paramErrs","params":[` + addr + `,"x"]}`, fail(1, -32602, "Invalid block index params")},
		{"declared param error: missing", `{"id":1,"method":"eth_paramErrs","params":[` + addr + `]}`, fail(1, -32602, "Invalid block index params")},
		{"ordered: block first", `{"id":1,"method":"eth_ordered","params":[]}`, fail(1, -32602, "Invalid block param (block not found)")},
		{"ordered: bad block first", `{"id":1,"method":"eth_ordered","params":["0xzz","x"]}`, fail(1, -32602, "Invalid block number params")},
		{"ordered: then address", `{"id":1,"method":"eth_ordered","params":["0xzz","latest"]}`, fail(1, -32602, "Invalid address params")},
		{"ordered: ok", `{"id":1,"method":"eth_ordered","params":[` + addr + `,"latest"]}`, res(1, `"0x00000000000000000000000000000000000000ff"`)},
		{"ordered: too many", `{"id":1,"method":"eth_ordered","params":[` + addr + `,"latest",1]}`, fail(1, -32602, "Invalid number of params")},
		{"exact: missing", `{"id":1,"method":"eth_exact","params":[]}`, fail(1, -32602, "Invalid number of params")},
		{"exact: optional missing", `{"id":1,"method":"eth_exact","params":["a"]}`, fail(1, -32602, "Invalid number of params")},
		{"exact: too many", `{"id":1,"method":"eth_exact","params":["a","b","c"]}`, fail(1, -32602, "Invalid number of params")},
		{"exact: bad", `{"id":1,"method":"eth_exact","params":[1,"b"]}`, fail(1, -32602, "Invalid transaction hash params")},
		{"exact: ok", `{"id":1,"method":"eth_exact","params":["a","b"]}`, res(1, `"a"`)},
		{"default: omitted", `{"id":1,"method":"eth_defaulted","params":[` + addr + `]}`, res(1, `"0x00000000000000000000000000000000000000ff 42 false"`)},
		{"default: null", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,null]}`, res(1, `"0x00000000000000000000000000000000000000ff 42 false"`)},
		{"default: given", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,"0x10"]}`, res(1, `"0x00000000000000000000000000000000000000ff 16 false"`)},
		{"default: then a pointer", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,"0x10",7]}`, res(1, `"0x00000000000000000000000000000000000000ff 16 true"`)},
		{"default: null, then a pointer", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,null,7]}`, res(1, `"0x00000000000000000000000000000000000000ff 42 true"`)},
		{"default: bad value given", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,"x"]}`, fail(1, -32602, "Invalid block number params")},
		{"default: too many", `{"id":1,"method":"eth_defaulted","params":[` + addr + `,"latest",1,2]}`, fail(1, -32602, "Invalid number of params")},
		// A request that fails on another parameter is answered as if the
		// defaulted one were required: its error, when it is decoded first.
		{"default: everything missing", `{"id":1,"method":"eth_defaulted","params":[]}`, fail(1, -32602, "Invalid block param (block not found)")},
		{"default: other param bad", `{"id":1,"method":"eth_defaulted","params":["0xzz"]}`, fail(1, -32602, "Invalid block param (block not found)")},
		{"default: other param bad, block given", `{"id":1,"method":"eth_defaulted","params":["0xzz","latest"]}`, fail(1, -32602, "Invalid address params")},
		{"default: decoded after the bad param", `{"id":1,"method":"eth_defaultedInOrder","params":["0xzz"]}`, fail(1, -32602, "Invalid address params")},
		{"default: in order, omitted", `{"id":1,"method":"eth_defaultedInOrder","params":[` + addr + `]}`, res(1, `"0x00000000000000000000000000000000000000ff 42"`)},
		{"default: in order, missing first", `{"id":1,"method":"eth_defaultedInOrder","params":[]}`, fail(1, -32602, "Invalid address params")},
		{"nested params", `{"id":1,"method":"eth_echo","params":["{[\"x\"]}"]}`, res(1, `{"n":null,"s":"{[\"x\"]}"}`)},
	}
	for _, tc := range tests {
		check(t, tc.name, post(t, ts.URL, tc.req), 200, tc.resp)
	}
}

func TestHandlerResults(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{})
	tests := []struct {
		name, method string
		status       int
		resp         string
	}{
		{"panic", "eth_panic", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"plain error", "eth_fail", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"wrapped rpc error", "eth_rpcErr", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Filter not found"}}`},
		{"revert with data", "eth_revert", 200,
			`{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"Execution reverted (nope)","data":"0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000"}}`},
		{"handler's invalid request is 400", "eth_invalidRequest", 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}`},
		{"error-only handler", "eth_success", 200, `{"jsonrpc":"2.0","id":1,"result":"Success"}`},
		{"no results", "eth_nothing", 200, `{"jsonrpc":"2.0","id":1,"result":"Success"}`},
		{"string escaping, no HTML escaping", "eth_text", 200, `{"jsonrpc":"2.0","id":1,"result":"a\"b<c>&\u2028\u0001é"}`},
		{"unencodable result", "eth_unencodable", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"panicking MarshalJSON", "eth_marshalPanic", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
	}
	for _, tc := range tests {
		check(t, tc.name, post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`"}`), tc.status, tc.resp)
	}
	// The server survived the panics.
	check(t, "after panics", post(t, ts.URL, `{"id":2,"method":"eth_blockNumber"}`), 200, `{"jsonrpc":"2.0","id":2,"result":"0x2a"}`)
}

func TestBatch(t *testing.T) {
	ts, _ := startServer(t, Config{MaxBatchSize: 3, BatchConcurrency: 4}, HTTPConfig{})
	tests := []struct {
		name, req string
		status    int
		resp      string
	}{
		{"in order, notifications left out",
			`[{"id":1,"method":"eth_blockNumber"},{"method":"eth_blockNumber"},{"id":"b","method":"eth_nope"}]`,
			200, `[{"jsonrpc":"2.0","id":1,"result":"0x2a"},{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"Method not found"}}]`},
		{"non-object elements",
			`[1,{"id":2,"method":"eth_blockNumber"},"x"]`,
			200, `[` + errInvalidNull + `,{"jsonrpc":"2.0","id":2,"result":"0x2a"},` + errInvalidNull + `]`},
		{"invalid element inline, status 200",
			`[{"id":{},"method":"eth_blockNumber"},{"id":3}]`,
			200, `[` + errInvalidNull + `,{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}]`},
		{"only notifications", `[{"method":"eth_blockNumber"},{"method":"eth_blockNumber"}]`, 200, `[]`},
		{"single element", ` [ {"id":1,"method":"eth_blockNumber"} ] `, 200, `[{"jsonrpc":"2.0","id":1,"result":"0x2a"}]`},
		{"empty", `[]`, 400, errInvalidNull},
		{"empty with spaces", ` [ ] `, 400, errInvalidNull},
		{"over the limit", `[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"eth_blockNumber"},{"id":3,"method":"eth_blockNumber"},{"id":4,"method":"eth_blockNumber"}]`,
			200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}`},
		{"malformed element", `[{"id":1,"method":"eth_blockNumber"},{"id":]`, 400, errParse},
		{"unterminated", `[{"id":1,"method":"eth_blockNumber"}`, 400, errParse},
		{"nested empty array", `[[]]`, 200, `[` + errInvalidNull + `]`},
	}
	for _, tc := range tests {
		check(t, tc.name, post(t, ts.URL, tc.req), tc.status, tc.resp)
	}
}

func TestBatchUnlimitedAndConcurrent(t *testing.T) {
	for _, conc := range []int{1, 8} {
		ts, _ := startServer(t, Config{MaxBatchSize: -1, BatchConcurrency: conc}, HTTPConfig{})
		var req, want strings.Builder
		req.WriteByte('[')
		want.WriteByte('[')
		const n = 2000
		for i := 0; i < n; i++ {
			if i > 0 {
				req.WriteByte(',')
			}
			switch i % 3 {
			case 0: // a sleep, so the workers finish out of order
				fmt.Fprintf(&req, `{"id":%d,"method":"eth_sleep","params":[%d]}`, i, i%2)
			case 1:
				fmt.Fprintf(&req, `{"method":"eth_blockNumber"}`)
			default:
				fmt.Fprintf(&req, `{"id":%d,"method":"eth_blockNumber"}`, i)
			}
		}
		for i := 0; i < n; i++ {
			switch i % 3 {
			case 0:
				if i > 0 {
					want.WriteByte(',')
				}
				fmt.Fprintf(&want, `{"jsonrpc":"2.0","id":%d,"result":%d}`, i, i%2)
			case 2:
				fmt.Fprintf(&want, `,{"jsonrpc":"2.0","id":%d,"result":"0x2a"}`, i)
			}
		}
		req.WriteByte(']')
		want.WriteByte(']')
		check(t, fmt.Sprintf("2000 requests, concurrency %d", conc), post(t, ts.URL, req.String()), 200, want.String())
	}
}

func TestDefaultBatchLimit(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{})
	batch := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `{"method":"eth_blockNumber"}`
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	check(t, "1024 allowed", post(t, ts.URL, batch(1024)), 200, `[]`)
	check(t, "1025 refused", post(t, ts.URL, batch(1025)), 200,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}`)
}

func TestTimeout(t *testing.T) {
	ts, _ := startServer(t, Config{Timeout: 50 * time.Millisecond}, HTTPConfig{})
	check(t, "ctx-aware handler", post(t, ts.URL, `{"id":1,"method":"eth_slow"}`), 408, errTimeout)
	check(t, "handler ignoring ctx", post(t, ts.URL, `{"id":1,"method":"eth_stubborn"}`), 408, errTimeout)
	check(t, "batch", post(t, ts.URL, `[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"eth_slow"}]`), 408, errTimeout)
	check(t, "fast call unaffected", post(t, ts.URL, `{"id":1,"method":"eth_blockNumber"}`), 200, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)

	ts2, _ := startServer(t, Config{Timeout: -1}, HTTPConfig{})
	check(t, "no timeout", post(t, ts2.URL, `{"id":1,"method":"eth_stubborn"}`), 200, `{"jsonrpc":"2.0","id":1,"result":"late"}`)
}

func TestAuthorizer(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	auth := AuthorizerFunc(func(ctx context.Context, method string) bool {
		mu.Lock()
		asked = append(asked, method)
		mu.Unlock()
		c := CallerFrom(ctx)
		return c != nil && (c.User == "root" || strings.HasPrefix(method, "eth_"))
	})
	// Authentication middleware puts the caller in the context.
	authn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user := r.Header.Get("X-User")
			if user == "" {
				WriteError(w, http.StatusUnauthorized, rpctypes.ErrUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), &Caller{User: user})))
		})
	}
	ts, _ := startServer(t, Config{APIs: []string{"eth", "Net", "ADMIN"}, Authorizer: auth},
		HTTPConfig{RPCMiddleware: []httpmw.Middleware{authn}})
	as := func(user, body string) httpResult {
		return do(t, http.MethodPost, ts.URL, body, map[string]string{"X-User": user})
	}
	unauth := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-40100,"message":"Unauthorized"}}`
	}
	check(t, "no token", post(t, ts.URL, `{"id":1,"method":"eth_blockNumber"}`), 401, unauth("null"))
	check(t, "permitted", as("bob", `{"id":1,"method":"eth_whoami"}`), 200, `{"jsonrpc":"2.0","id":1,"result":"bob"}`)
	check(t, "forbidden", as("bob", `{"id":1,"method":"admin_peers"}`), 401, unauth("1"))
	check(t, "root", as("root", `{"id":1,"method":"admin_peers"}`), 200, `{"jsonrpc":"2.0","id":1,"result":[]}`)
	check(t, "not found before unauthorized", as("bob", `{"id":1,"method":"admin_nope"}`), 200,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	check(t, "not enabled before unauthorized", as("bob", `{"id":1,"method":"debug_metrics"}`), 200,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}`)
	mu.Lock()
	asked = nil
	mu.Unlock()
	check(t, "batch: each element checked", as("bob", `[{"id":1,"method":"eth_whoami"},{"id":2,"method":"admin_peers"},{"id":3,"method":"net_version"}]`),
		200, `[{"jsonrpc":"2.0","id":1,"result":"bob"},`+unauth("2")+`,`+unauth("3")+`]`)
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 3 {
		t.Errorf("authorizer asked for %v, want each of the 3 batch elements", asked)
	}
}

func TestRoutes(t *testing.T) {
	live := true
	ts, _ := startServer(t, Config{}, HTTPConfig{
		Liveness: func(*http.Request) bool { return live },
		Routes: map[string]http.Handler{"/login": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot)
		})},
	})
	check(t, "GET /", do(t, http.MethodGet, ts.URL, "", nil), 201, ``)
	check(t, "GET /liveness", do(t, http.MethodGet, ts.URL+"/liveness", "", nil), 200, `{"status":"UP"}`)
	check(t, "GET /readiness", do(t, http.MethodGet, ts.URL+"/readiness", "", nil), 200, `{"status":"UP"}`)
	live = false
	check(t, "GET /liveness down", do(t, http.MethodGet, ts.URL+"/liveness", "", nil), 503, `{"status":"DOWN"}`)
	check(t, "PUT /", do(t, http.MethodPut, ts.URL, "{}", nil), 405, `{"message":"Method Not Allowed"}`)
	check(t, "POST /nope", do(t, http.MethodPost, ts.URL+"/nope", "{}", nil), 404, `{"message":"Resource not found"}`)
	check(t, "extra route", do(t, http.MethodPost, ts.URL+"/login", "{}", nil), 418, ``)
}

func TestHostAllowlist(t *testing.T) {
	const req = `{"id":1,"method":"eth_blockNumber"}`
	const ok = `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`
	const refused = `{"message":"Host not authorized."}`
	ts, _ := startServer(t, Config{}, HTTPConfig{})
	host := func(h string) map[string]string { return map[string]string{"Host": h} }
	check(t, "default: 127.0.0.1", do(t, http.MethodPost, ts.URL, req, nil), 200, ok)
	check(t, "default: LOCALHOST:8545", do(t, http.MethodPost, ts.URL, req, host("LOCALHOST:8545")), 200, ok)
	check(t, "default: other host", do(t, http.MethodPost, ts.URL, req, host("evil.example:8545")), 403, refused)
	check(t, "refused before routing", do(t, http.MethodGet, ts.URL+"/liveness", "", host("evil.example")), 403, refused)

	ts2, _ := startServer(t, Config{}, HTTPConfig{HostAllowlist: []string{"node.example", "::1"}})
	check(t, "listed", do(t, http.MethodPost, ts2.URL, req, host("Node.Example")), 200, ok)
	check(t, "ipv6", do(t, http.MethodPost, ts2.URL, req, host("[::1]:8545")), 200, ok)
	check(t, "not listed", do(t, http.MethodPost, ts2.URL, req, nil), 403, refused)

	ts3, _ := startServer(t, Config{}, HTTPConfig{HostAllowlist: []string{"*"}})
	check(t, "wildcard", do(t, http.MethodPost, ts3.URL, req, host("anything.example")), 200, ok)
}

func TestCORS(t *testing.T) {
	const req = `{"id":1,"method":"eth_blockNumber"}`
	const ok = `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`
	const refused = `{"message":"CORS Rejected - Invalid origin"}`
	preflight := map[string]string{
		"Origin":                         "http://app.example",
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "content-type,authorization",
	}

	ts, _ := startServer(t, Config{}, HTTPConfig{})
	got := do(t, http.MethodPost, ts.URL, req, nil)
	check(t, "no origin", got, 200, ok)
	if v := got.header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("CORS header without configuration: %q", v)
	}
	check(t, "not configured: origin refused", do(t, http.MethodPost, ts.URL, req, map[string]string{"Origin": "http://app.example"}), 403, refused)

	ts2, _ := startServer(t, Config{}, HTTPConfig{CORSOrigins: []string{"http://app.example", "https://.*\\.trusted\\.example"}})
	got = do(t, http.MethodOptions, ts2.URL, "", preflight)
	check(t, "preflight", got, 204, ``)
	for k, v := range map[string]string{
		"Access-Control-Allow-Origin":  "http://app.example",
		"Access-Control-Allow-Methods": "GET, POST, OPTIONS",
		"Access-Control-Allow-Headers": "content-type,authorization",
	} {
		if got.header.Get(k) != v {
			t.Errorf("preflight %s = %q, want %q", k, got.header.Get(k), v)
		}
	}
	got = do(t, http.MethodPost, ts2.URL, req, map[string]string{"Origin": "http://app.example"})
	check(t, "allowed origin", got, 200, ok)
	if got.header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("allowed origin: headers %v", got.header)
	}
	check(t, "regex origin", do(t, http.MethodPost, ts2.URL, req, map[string]string{"Origin": "https://a.trusted.example"}), 200, ok)
	check(t, "other origin", do(t, http.MethodPost, ts2.URL, req, map[string]string{"Origin": "http://evil.example"}), 403, refused)
	check(t, "other origin preflight", do(t, http.MethodOptions, ts2.URL, "", map[string]string{
		"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}), 403, refused)

	ts3, _ := startServer(t, Config{}, HTTPConfig{CORSOrigins: []string{"all"}})
	got = do(t, http.MethodPost, ts3.URL, req, map[string]string{"Origin": "http://whatever.example"})
	check(t, "all", got, 200, ok)
	if got.header.Get("Access-Control-Allow-Origin") != "http://whatever.example" {
		t.Errorf("all: headers %v", got.header)
	}
}

func TestBodyLimit(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{MaxRequestBytes: 64})
	const tooLarge = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request (request body larger than 64 bytes)"}}`
	small := `{"id":1,"method":"eth_blockNumber"}`
	big := `{"id":1,"method":"eth_blockNumber","params":[],"padding":"` + strings.Repeat("x", 64) + `"}`
	check(t, "under", post(t, ts.URL, small), 200, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)
	check(t, "over, with Content-Length", post(t, ts.URL, big), 413, tooLarge)

	// A chunked body has no Content-Length: the limit applies while reading.
	req, _ := http.NewRequest(http.MethodPost, ts.URL, struct{ *strings.Reader }{strings.NewReader(big)})
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("chunked: status %d", resp.StatusCode)
	}

	ts2, _ := startServer(t, Config{}, HTTPConfig{MaxRequestBytes: -1})
	huge := `{"id":1,"method":"eth_echo","params":["` + strings.Repeat("y", 6<<20) + `"]}`
	if got := post(t, ts2.URL, huge); got.status != 200 || len(got.body) < 6<<20 {
		t.Errorf("unlimited: status %d, %d bytes", got.status, len(got.body))
	}
}

func TestPrettyJSON(t *testing.T) {
	ts, _ := startServer(t, Config{}, HTTPConfig{PrettyJSON: true})
	check(t, "pretty single", post(t, ts.URL, `{"id":1,"method":"eth_blockNumber"}`), 200,
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": \"0x2a\"\n}")
	check(t, "compact batch", post(t, ts.URL, `[{"id":1,"method":"eth_blockNumber"}]`), 200,
		`[{"jsonrpc":"2.0","id":1,"result":"0x2a"}]`)
}

func TestHandleMessage(t *testing.T) {
	srv, err := NewServer(testRegistry(t), Config{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		msg, resp string
		batch     bool
	}{
		{`{"id":1,"method":"eth_blockNumber"}`, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`, false},
		{`{"method":"eth_blockNumber"}`, ``, false},
		{`[{"id":1,"method":"eth_blockNumber"}]`, `[{"jsonrpc":"2.0","id":1,"result":"0x2a"}]`, true},
		{`nope`, errParse, false},
	}
	for _, tc := range tests {
		resp, batch := srv.HandleMessage(ctx, []byte(tc.msg))
		if string(resp) != tc.resp || batch != tc.batch || (tc.resp == "" && resp != nil) {
			t.Errorf("%s: got %q batch=%v, want %q batch=%v", tc.msg, resp, batch, tc.resp, tc.batch)
		}
	}
}

func TestServerConfig(t *testing.T) {
	reg := testRegistry(t)
	if _, err := NewServer(reg, Config{APIs: []string{"ETH", "bogus"}}); err == nil {
		t.Error("unknown API group accepted")
	}
	if _, err := NewServer(reg, Config{MaxBatchSize: -2}); err == nil {
		t.Error("max batch size -2 accepted")
	}
	srv, err := NewServer(reg, Config{APIs: []string{" eth", "TXPOOL", "eth", "rpc", ""}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(srv.APIs()); got != "[ETH TXPOOL]" {
		t.Errorf("APIs() = %s", got)
	}
	srv, err = NewServer(reg, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(srv.APIs()); got != "[ETH NET WEB3]" {
		t.Errorf("default APIs() = %s", got)
	}
}

func TestRegister(t *testing.T) {
	reg := NewRegistry()
	bad := []any{
		nil,
		42,
		func(a int, ctx context.Context) {},
		func(a ...int) {},
		func() (int, int) { return 0, 0 },
		func() (int, error, error) { return 0, nil, nil },
		func(c chan int) {},
		func() chan int { return nil },
	}
	for i, fn := range bad {
		if err := reg.Register(rpctypes.GroupEth, fmt.Sprintf("eth_bad%d", i), fn); err == nil {
			t.Errorf("handler %d (%T) accepted", i, fn)
		}
	}
	latest := json.RawMessage(`"latest"`)
	for name, m := range map[string]rpctypes.Method{
		"default before a required param": {Fn: func(a, b string) {}, ParamDefaults: []json.RawMessage{latest}},
		"default with exact count":        {Fn: func(a, b string) {}, ParamDefaults: []json.RawMessage{1: latest}, ExactParamCount: true},
		"default not JSON":                {Fn: func(a, b string) {}, ParamDefaults: []json.RawMessage{1: json.RawMessage(`latest`)}},
		"more defaults than params":       {Fn: func(a string) {}, ParamDefaults: []json.RawMessage{1: latest}},
	} {
		m.Name = "eth_defaults"
		if err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{m}); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{{Name: "eth_defaults", Fn: func(a, b string, c *int) {}, ParamDefaults: []json.RawMessage{1: latest}}}); err != nil {
		t.Errorf("default before a pointer refused: %v", err)
	}
	if err := reg.Register("e-t-h", "eth_x", func() {}); err == nil {
		t.Error("invalid group accepted")
	}
	if err := reg.Register(rpctypes.GroupEth, "eth_x", func() {}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(rpctypes.GroupEth, "eth_x", func() {}); err == nil {
		t.Error("duplicate accepted")
	}
	err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{{Name: "eth_y", Fn: func() {}}, {Name: "eth_y", Fn: func() {}}})
	if err == nil {
		t.Error("duplicate within a table accepted")
	}
	if err := reg.Register("", "eth_y", func() {}); err != nil {
		t.Errorf("eth_y not registered after the failed table: %v", err)
	}
	if err := reg.Register("plugin_x", "acme_hello", func() {}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(reg.Groups()); got != "[ETH PLUGIN_X]" {
		t.Errorf("Groups() = %s", got)
	}
	if _, err := NewServer(reg, Config{APIs: []string{"plugin_x"}}); err != nil {
		t.Errorf("registered custom group not accepted: %v", err)
	}
}

// An error object with data carries it in "data", unless it cannot be
// encoded.
func TestErrorData(t *testing.T) {
	if got := string(appendError(nil, []byte("1"), rpctypes.ErrNonceTooLow.WithData(map[string]int{"a": 1}))); got !=
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Nonce too low","data":{"a":1}}}` {
		t.Errorf("error with data: %s", got)
	}
	if got := string(appendError(nil, []byte("1"), rpctypes.ErrNonceTooLow.WithData(func() {}))); got !=
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Nonce too low"}}` {
		t.Errorf("error with unencodable data: %s", got)
	}
}

// A group's error mapping (Group.Errors) turns what its methods return into
// the error answered; what it leaves (nil) follows the default rule, and
// parameter errors do not pass through it.
func TestGroupErrors(t *testing.T) {
	errDomain := errors.New("domain condition")
	mapped := rpctypes.NewError(-32099, "Mapped")
	mapErr := func(err error) *rpctypes.Error {
		if errors.Is(err, errDomain) {
			return mapped
		}
		return nil
	}
	reg := NewRegistry()
	err := reg.RegisterGroups([]rpctypes.Group{{Name: rpctypes.GroupEth, Errors: mapErr, Methods: []rpctypes.Method{
		{Name: "eth_domain", Fn: func() (string, error) { return "", fmt.Errorf("wrapped: %w", errDomain) }},
		{Name: "eth_wire", Fn: func() (string, error) { return "", rpctypes.ErrNonceTooLow }},
		{Name: "eth_plain", Fn: func() (string, error) { return "", errors.New("boom") }},
		{Name: "eth_param", Fn: func(n int) (string, error) { return "", errDomain }, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidNonceParams}},
	}}, {Name: rpctypes.GroupNet, Methods: []rpctypes.Method{
		// Another group without a mapping answers the domain error as an
		// internal error.
		{Name: "net_domain", Fn: func() (string, error) { return "", errDomain }},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(reg, Config{APIs: []string{rpctypes.GroupEth, rpctypes.GroupNet}, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ msg, resp string }{
		{`{"id":1,"method":"eth_domain"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32099,"message":"Mapped"}}`},
		{`{"id":1,"method":"eth_wire"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Nonce too low"}}`},
		{`{"id":1,"method":"eth_plain"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{`{"id":1,"method":"eth_param","params":["x"]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid nonce params"}}`},
		{`{"id":1,"method":"net_domain"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
	} {
		if resp, _ := srv.HandleMessage(context.Background(), []byte(tc.msg)); string(resp) != tc.resp {
			t.Errorf("%s: got %s, want %s", tc.msg, resp, tc.resp)
		}
	}
}

// TestRegistryMethods: Methods lists every registered method once, with
// its group, sorted by name.
func TestRegistryMethods(t *testing.T) {
	r := NewRegistry()
	r.MustRegister("", "web3_sha3", func(s string) string { return s })
	r.MustRegister("eth", "eth_chainId", func() string { return "0x1" })
	r.MustRegister("", "eth_blockNumber", func() string { return "0x0" })
	got := r.Methods()
	want := []MethodInfo{{"eth_blockNumber", "ETH"}, {"eth_chainId", "ETH"}, {"web3_sha3", "WEB3"}}
	if len(got) != len(want) {
		t.Fatalf("Methods() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Methods()[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
