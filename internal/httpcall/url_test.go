package httpcall

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestParseBase: which base URLs a client takes (true) or refuses.
func TestParseBase(t *testing.T) {
	ok := map[string]bool{
		"http://127.0.0.1:9101":               true,
		"https://manager.example:443/prefix/": true,
		"ftp://h:21":                          false,
		"127.0.0.1:9101":                      false, // a scheme-less host:port
		"http://":                             false,
		"http:///path":                        false,
		"http://h:1/%zz":                      false,
		"":                                    false,
	}
	for in, want := range ok {
		u, err := ParseBase(in)
		if (err == nil) != want {
			t.Errorf("ParseBase(%q) = %v, %v; want accepted=%v", in, u, err, want)
		}
	}
}

func TestJoin(t *testing.T) {
	key := url.PathEscape("ab/c+d==")
	for _, tc := range []struct{ base, path, want string }{
		{"http://h:1", "/upcheck", "http://h:1/upcheck"},
		{"http://h:1/", "/upcheck", "http://h:1/upcheck"},
		{"http://h:1/prefix", "/send", "http://h:1/prefix/send"},
		{"http://h:1/prefix//", "/send", "http://h:1/prefix/send"},
		// An escaped segment in the path stays one segment.
		{"http://h:1/q2t", "/transaction/" + key, "http://h:1/q2t/transaction/ab%2Fc+d=="},
		// So does one in the base's prefix.
		{"http://h:1/a%2Fb/", "/storeraw", "http://h:1/a%2Fb/storeraw"},
		// A space in the prefix is escaped as before.
		{"http://h:1/my%20tessera", "/storeraw", "http://h:1/my%20tessera/storeraw"},
		// The base's query and fragment are not the call's.
		{"http://h:1/p?x=1#f", "/send", "http://h:1/p/send"},
	} {
		base, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		got := Join(base, tc.path)
		if got.String() != tc.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.base, tc.path, got, tc.want)
		}
		if base.String() != tc.base {
			t.Errorf("Join changed its base to %q", base)
		}
	}
	// The server sees the escaped segment, not a split path.
	var gotRaw string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotRaw = r.URL.EscapedPath()
	}))
	defer srv.Close()
	base, _ := ParseBase(srv.URL + "/q2t/")
	if _, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: Join(base, "/transaction/"+key).String()}, 10); err != nil {
		t.Fatal(err)
	}
	if gotRaw != "/q2t/transaction/ab%2Fc+d==" {
		t.Errorf("server saw path %q", gotRaw)
	}
}
