package httpmw

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, "ok")
})

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHostAllowlist(t *testing.T) {
	tests := []struct {
		allow []string
		host  string
		ok    bool
	}{
		{nil, "localhost", true},
		{nil, "localhost:8545", true},
		{nil, "LocalHost:8545", true},
		{nil, "127.0.0.1:8545", true},
		{nil, "127.0.0.2:8545", false},
		{nil, "localhost.evil.example", false},
		{nil, "", false},
		{[]string{}, "localhost", false},
		{[]string{"*"}, "", true},
		{[]string{"a.example", "*"}, "b.example", true},
		{[]string{" node.example "}, "NODE.example:1", true},
		{[]string{"::1"}, "[::1]:8545", true},
		{[]string{"[::1]"}, "[::1]", true},
		{[]string{"::1"}, "::1", true},
		{[]string{"::1"}, "[::2]:8545", false},
		{[]string{"::1"}, "[::1", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		w := serve(HostAllowlist(tc.allow)(okHandler), r)
		if got := w.Code == 200; got != tc.ok {
			t.Errorf("allow %q host %q: status %d", tc.allow, tc.host, w.Code)
		}
		if !tc.ok {
			if w.Code != 403 || w.Body.String() != `{"message":"Host not authorized."}` ||
				w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("refusal: %d %q %v", w.Code, w.Body, w.Header())
			}
		}
	}
}

func TestCORS(t *testing.T) {
	type req struct {
		method string
		hdr    map[string]string
	}
	simple := func(origin string) req { return req{http.MethodPost, map[string]string{"Origin": origin}} }
	pre := func(origin string) req {
		return req{http.MethodOptions, map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST"}}
	}
	tests := []struct {
		name    string
		origins []string
		req     req
		status  int
		acao    string
	}{
		{"no origin, unconfigured", nil, req{http.MethodPost, nil}, 200, ""},
		{"no origin, configured", []string{"*"}, req{http.MethodPost, nil}, 200, ""},
		{"empty origin", nil, simple(""), 200, ""},
		{"unconfigured refuses origins", nil, simple("http://a.example"), 403, ""},
		{"listed", []string{"http://a.example"}, simple("http://a.example"), 200, "http://a.example"},
		{"listed, case", []string{"http://A.example"}, simple("http://a.EXAMPLE"), 200, "http://a.EXAMPLE"},
		{"unlisted", []string{"http://a.example"}, simple("http://b.example"), 403, ""},
		{"prefix is not a match", []string{"http://a.example"}, simple("http://a.example.evil"), 403, ""},
		{"regex", []string{`http://localhost:\d+`}, simple("http://localhost:3000"), 200, "http://localhost:3000"},
		{"star", []string{"*"}, simple("null"), 200, "null"},
		{"all", []string{"ALL"}, simple("https://x.example"), 200, "https://x.example"},
		{"invalid regex still matches exactly", []string{"http://a(.example"}, simple("http://a(.example"), 200, "http://a(.example"},
		{"preflight", []string{"http://a.example"}, pre("http://a.example"), 204, "http://a.example"},
		{"preflight refused", []string{"http://a.example"}, pre("http://b.example"), 403, ""},
		{"OPTIONS without request method is not a preflight", []string{"*"},
			req{http.MethodOptions, map[string]string{"Origin": "http://a.example"}}, 200, "http://a.example"},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(tc.req.method, "/", nil)
		for k, v := range tc.req.hdr {
			r.Header.Set(k, v)
		}
		w := serve(CORS(tc.origins)(okHandler), r)
		if w.Code != tc.status || w.Header().Get("Access-Control-Allow-Origin") != tc.acao {
			t.Errorf("%s: %d %v", tc.name, w.Code, w.Header())
		}
		if w.Code == 403 && w.Body.String() != `{"message":"CORS Rejected - Invalid origin"}` {
			t.Errorf("%s: body %q", tc.name, w.Body)
		}
	}

	// Preflight headers.
	r := httptest.NewRequest(http.MethodOptions, "/", nil)
	r.Header.Set("Origin", "http://a.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Set("Access-Control-Request-Headers", "Authorization, Content-Type")
	w := serve(CORS([]string{"*"})(okHandler), r)
	if w.Header().Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" ||
		w.Header().Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" || w.Body.Len() != 0 {
		t.Errorf("preflight: %v %q", w.Header(), w.Body)
	}
}

func TestBodyLimit(t *testing.T) {
	read := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if IsTooLarge(err) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		_, _ = w.Write(b)
	})
	h := BodyLimit(10, nil)(read)

	w := serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("0123456789")))
	if w.Code != 200 || w.Body.String() != "0123456789" {
		t.Errorf("at limit: %d %q", w.Code, w.Body)
	}
	w = serve(h, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("0123456789a")))
	if w.Code != 413 || w.Body.String() != `{"message":"Request Entity Too Large"}` {
		t.Errorf("declared length over limit: %d %q", w.Code, w.Body)
	}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("0123456789a"))
	r.ContentLength = -1 // chunked: caught while reading
	if w = serve(h, r); w.Code != 413 {
		t.Errorf("undeclared length over limit: %d", w.Code)
	}
	custom := BodyLimit(1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(499) }))(read)
	if w = serve(custom, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("ab"))); w.Code != 499 {
		t.Errorf("custom refusal: %d", w.Code)
	}
	if w = serve(BodyLimit(0, nil)(read), httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 1<<20)))); w.Code != 200 {
		t.Errorf("no limit: %d", w.Code)
	}
}

func TestChain(t *testing.T) {
	var order []string
	mw := func(name string) Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	serve(Chain(okHandler, mw("a"), nil, mw("b")), httptest.NewRequest(http.MethodGet, "/", nil))
	if strings.Join(order, ",") != "a,b" {
		t.Errorf("order %v", order)
	}
}
