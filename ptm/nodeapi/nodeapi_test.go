package nodeapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestIPWhitelist(t *testing.T) {
	s := &Server{Allow: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::1")}}
	h := s.Handler()
	for addr, want := range map[string]int{
		"10.0.0.1:5000":        200,
		"[::ffff:10.0.0.1]:80": 200,
		"[::1]:9":              200,
		"10.0.0.2:5000":        403,
		"garbage":              403,
	} {
		r := httptest.NewRequest(http.MethodGet, "/upcheck", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", addr, w.Code, want)
		}
	}
}

func TestEndpoint(t *testing.T) {
	c := NewClient(nil)
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/":       "http://127.0.0.1:8080/push",
		"http://127.0.0.1:8080/prefix": "http://127.0.0.1:8080/push",
		"https://node.example":         "https://node.example/push",
	} {
		if got, err := c.endpoint(in, "/push"); err != nil || got != want {
			t.Errorf("endpoint(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "no-scheme", "http://"} {
		if _, err := c.endpoint(bad, "/push"); err == nil {
			t.Errorf("endpoint(%q) accepted", bad)
		}
	}
	c.TLS = true
	if got, _ := c.endpoint("http://h:1/", "/push"); got != "https://h:1/push" {
		t.Errorf("TLS endpoint %q", got)
	}
}
