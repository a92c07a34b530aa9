package graphql_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/graphql"
)

// TestHTTPTransport checks the routes, content types and refusals of the
// endpoint (Besu's GraphQLHttpService).
func TestHTTPTransport(t *testing.T) {
	svc, _ := smallService(t)
	srv := httptest.NewServer(graphql.NewHTTPHandler(svc, graphql.HTTPConfig{
		CORSOrigins:     []string{"http://ok.example"},
		MaxRequestBytes: 1024,
	}))
	defer srv.Close()
	head := `{"data":{"block":{"number":"0x3"}}}`
	twoOps := `query a { block { number } } query b($n: Long) { block(number: $n) { number } }`
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		header      map[string]string
		status      int
		want        string // the body, or a substring of it after "~"
		wantHeader  map[string]string
	}{
		{name: "json", method: "POST", contentType: "application/json", body: `{"query":"{ block { number } }"}`, status: 200, want: head},
		{name: "json with charset", method: "POST", contentType: "application/json; charset=utf-8", body: `{"query":"{ block { number } }"}`, status: 200, want: head},
		{name: "json operation and variables", method: "POST", contentType: "application/json",
			body:   `{"query":` + quote(twoOps) + `,"operationName":"b","variables":{"n":1}}`,
			status: 200, want: `{"data":{"block":{"number":"0x1"}}}`},
		{name: "json variables as hex string", method: "POST", contentType: "application/json",
			body:   `{"query":` + quote(twoOps) + `,"operationName":"b","variables":{"n":"0x2"}}`,
			status: 200, want: `{"data":{"block":{"number":"0x2"}}}`},
		{name: "application/graphql", method: "POST", contentType: "application/graphql", body: "  { block { number } }\n", status: 200, want: head},
		{name: "other content type is a raw document", method: "POST", contentType: "text/plain", body: "{ block { number } }", status: 200, want: head},
		{name: "no content type", method: "POST", body: "{ block { number } }", status: 200, want: head},
		{name: "get", method: "GET", path: graphql.Path + "?query=" + url.QueryEscape("{ block { number } }"), status: 200, want: head},
		{name: "get with variables", method: "GET",
			path:   graphql.Path + "?query=" + url.QueryEscape(twoOps) + "&operationName=b&variables=" + url.QueryEscape(`{"n":"1"}`),
			status: 200, want: `{"data":{"block":{"number":"0x1"}}}`},
		{name: "trailing slash", method: "POST", path: graphql.Path + "/", body: "{ block { number } }", status: 200, want: head},
		{name: "root redirects", method: "GET", path: "/", status: 308, want: "", wantHeader: map[string]string{"Location": "/graphql"}},
		{name: "other path", method: "GET", path: "/other", status: 404, want: "~not found"},
		{name: "method", method: "PUT", body: "{ block { number } }", status: 405, want: "", wantHeader: map[string]string{"Allow": "GET, POST"}},
		{name: "malformed json", method: "POST", contentType: "application/json", body: `{"query":`, status: 400, want: `~{"errors":[{"message":"Failed to decode`},
		{name: "malformed variables", method: "POST", contentType: "application/json", body: `{"query":"{ block { number } }","variables":[1]}`, status: 400, want: `~{"errors":[{"message":"Failed to decode variables`},
		{name: "empty get", method: "GET", status: 400, want: `{"errors":[{"message":"Invalid syntax with offending token '<EOF>' at line 1 column 1","locations":[{"line":1,"column":1}],"extensions":{"classification":"InvalidSyntax"}}]}`},
		{name: "host not allowed", method: "POST", body: "{ block { number } }", header: map[string]string{"Host": "evil.example"}, status: 403, want: `{"message":"Host not authorized."}`},
		{name: "origin not allowed", method: "POST", body: "{ block { number } }", header: map[string]string{"Origin": "http://evil.example"}, status: 403, want: `{"message":"CORS Rejected - Invalid origin"}`},
		{name: "origin allowed", method: "POST", body: "{ block { number } }", header: map[string]string{"Origin": "http://ok.example"}, status: 200, want: head,
			wantHeader: map[string]string{"Access-Control-Allow-Origin": "http://ok.example"}},
		{name: "preflight", method: "OPTIONS", header: map[string]string{"Origin": "http://ok.example", "Access-Control-Request-Method": "POST"}, status: 204, want: ""},
		{name: "body too large", method: "POST", body: "{ block { number } }" + strings.Repeat(" ", 2048), status: 413, want: `{"message":"Request Entity Too Large"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = graphql.Path
			}
			req, err := http.NewRequest(tc.method, srv.URL+path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tc.status, body)
			}
			if sub, ok := strings.CutPrefix(tc.want, "~"); ok {
				if !strings.Contains(string(body), sub) {
					t.Errorf("body %s lacks %s", body, sub)
				}
			} else if string(body) != tc.want {
				t.Errorf("body\n got  %s\n want %s", body, tc.want)
			}
			for k, v := range tc.wantHeader {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s: %q, want %q", k, got, v)
				}
			}
			if resp.StatusCode == 200 || (resp.StatusCode == 400 && strings.HasPrefix(string(body), "{")) {
				if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("content type %q", ct)
				}
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestErrorShapes checks Besu's error bodies and statuses for each kind of
// failure: graphql-java's validation errors (no "data"), data fetching
// errors (with "data", null where the field failed, and Besu's error code
// when there is one), syntax errors and the complexity limit.
func TestErrorShapes(t *testing.T) {
	svc, _ := smallService(t)
	url := serve(t, svc)
	tests := []struct {
		query string
		want  string
	}{
		{`{ block(number: 9) { number } }`,
			`{"errors":[{"message":"Exception while fetching data (/block) : Block number 9 was not found","locations":[{"line":1,"column":3}],"path":["block"],"extensions":{"classification":"DataFetchingException"}}],"data":{"block":null}}`},
		{`{ a: block(number: 1) { number } b: block(number: 1, hash: "0x01") { number } }`,
			`{"errors":[{"message":"Exception while fetching data (/b) : Invalid params","locations":[{"line":1,"column":34}],"path":["b"],"extensions":{"errorCode":-32602,"errorMessage":"Invalid params","classification":"DataFetchingException"}}],"data":{"a":{"number":"0x1"},"b":null}}`},
		{`{ blocks(from: 2, to: 1) { number } }`,
			`{"errors":[{"message":"Exception while fetching data (/blocks) : Invalid params","locations":[{"line":1,"column":3}],"path":["blocks"],"extensions":{"errorCode":-32602,"errorMessage":"Invalid params","classification":"DataFetchingException"}}],"data":null}`},
		{`{ block { hash nonsense } }`,
			`{"errors":[{"message":"Validation error (FieldUndefined@[block/nonsense]) : Field 'nonsense' in type 'Block' is undefined","locations":[{"line":1,"column":16}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block(numbr: 1) { hash } }`,
			`{"errors":[{"message":"Validation error (UnknownArgument@[block]) : Unknown field argument 'numbr'","locations":[{"line":1,"column":9}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block }`,
			`{"errors":[{"message":"Validation error (SubselectionRequired@[block]) : Subselection required for type 'Block' of field 'block'","locations":[{"line":1,"column":3}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block(hash: 5) { number } }`,
			`{"errors":[{"message":"Validation error (WrongType@[block]) : argument 'hash' with value 'IntValue{value=5}' is not a valid 'Hash' - Value is not any Hash : 'IntValue{value=5}'","locations":[{"line":1,"column":9}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block(number: 99999999999999999999) { number } }`,
			`{"errors":[{"message":"Validation error (WrongType@[block]) : argument 'number' with value 'IntValue{value=99999999999999999999}' is not a valid 'Long' - Value is not any Long : 'IntValue{value=99999999999999999999}'","locations":[{"line":1,"column":9}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block { logs(filter: {topics: [["0x1", "2"]]}) { index } } }`,
			`{"errors":[{"message":"Validation error (WrongType@[block/logs]) : argument 'filter.topics[0][1]' with value 'StringValue{value='2'}' is not a valid 'LogTopic' - LogTopic value '2' is not prefixed with 0x","locations":[{"line":1,"column":16}],"extensions":{"classification":"ValidationError"}}]}`},
		{`{ block { number }`,
			`{"errors":[{"message":"Invalid syntax with offending token '<EOF>' at line 1 column 19","locations":[{"line":1,"column":19}],"extensions":{"classification":"InvalidSyntax"}}]}`},
		{`{ block { transactions { block { transactions { block { number }}}}}}`,
			`{"errors":[{"message":"maximum query complexity exceeded 204 > 200","extensions":{"classification":"ExecutionAborted"}}]}`},
		{`subscription { block { number } }`,
			`{"errors":[{"message":"Schema is not configured for subscriptions.","extensions":{"classification":"OperationNotSupported"}}]}`},
		{`query a { block { number } } query b { block { number } }`,
			`{"errors":[{"message":"Must provide operation name if query contains multiple operations.","extensions":{"classification":"ValidationError"}}]}`},
	}
	for _, tc := range tests {
		resp, err := http.Post(url, "application/graphql", strings.NewReader(tc.query))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400", tc.query, resp.StatusCode)
		}
		if string(body) != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.query, body, tc.want)
		}
	}
}

// TestVariableErrors checks that variables of the custom scalars are
// checked before the query runs.
func TestVariableErrors(t *testing.T) {
	svc, _ := smallService(t)
	url := serve(t, svc)
	body := `{"query":"query q($h: Hash!) { block(hash: $h) { number } }","variables":{"h":"1234"}}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"errors":[{"message":"Variable 'h' has an invalid value: Unable to parse variable value 1234 as a Hash","locations":[{"line":1,"column":9}],"extensions":{"classification":"ValidationError"}}]}`
	if resp.StatusCode != 400 || string(got) != want {
		t.Errorf("status %d\n got  %s\n want %s", resp.StatusCode, got, want)
	}
	status, out := post(t, url, `query q($h: Hash!) { block(hash: $h) { number } }`)
	msg, _ := json.Marshal(out)
	if status != 400 || !strings.Contains(string(msg), `"message":"Variable 'h' has coerced Null value for NonNull type 'Hash!'"`) {
		t.Errorf("missing variable: %d %s", status, msg)
	}
}

// TestBlocksRangeLimit: blocks answers at most Config.MaxBlocksRange blocks
// (the range is clamped to the head first).
func TestBlocksRangeLimit(t *testing.T) {
	svc, _ := smallServiceWith(t, graphql.Config{MaxBlocksRange: 2})
	url := serve(t, svc)
	if status, out := post(t, url, `{ blocks(from: 2, to: 100) { number } }`); status != 200 || len(out["data"].(map[string]any)["blocks"].([]any)) != 2 {
		t.Errorf("clamped range: %d %v", status, out)
	}
	status, out := post(t, url, `{ blocks(from: 0) { number } }`)
	got, _ := json.Marshal(out["errors"])
	want := `[{"extensions":{"classification":"DataFetchingException","errorCode":-32005,"errorMessage":"Requested range exceeds maximum RPC range limit"},"locations":[{"column":3,"line":1}],"message":"Exception while fetching data (/blocks) : Requested range exceeds maximum RPC range limit","path":["blocks"]}]`
	if status != 400 || string(got) != want {
		t.Errorf("%d %s", status, got)
	}
}
