package q2tapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/q2tapi"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

var fuzzRoutes = []struct{ method, path, mediaType string }{
	{"POST", "/send", "application/json"},
	{"POST", "/storeraw", "application/json"},
	{"POST", "/sendsignedtx", "application/json"},
	{"POST", "/sendsignedtx", "application/octet-stream"},
	{"GET", "/transaction/", ""},
}

// FuzzQ2TAPI feeds arbitrary bodies (and, for GET /transaction/{key},
// arbitrary keys and queries) to the Q2T routes that decode input: no
// panic, and every answer has a status from the documented set.
func FuzzQ2TAPI(f *testing.F) {
	m, pairs := ptmtest.Manager(f, 1, nil)
	a := pairs[0].Public.String()
	h := (&q2tapi.Server{Manager: m, Table: m.Table, MaxBody: 1 << 16}).Handler()
	seeds := []string{
		`{"payload":"eA==","from":"` + a + `","to":["` + a + `"],"affectedContractTransactions":[],"privacyFlag":0,"mandatoryRecipients":null}`,
		`{"payload":"eA==","from":"` + a + `"}`,
		`{"hash":"` + strings.Repeat("A", 88) + `","to":["` + a + `"]}`,
		`{"payload":"eA==","privacyFlag":3,"execHash":"AA=="}`,
		`{"payload":"eA==","privacyGroupId":"x"}`,
		`{"payload":1}`, `[1]`, `null`, "\xff", strings.Repeat("A", 64),
		strings.Repeat("A", 86) + "%3D%3D?isRaw=true", "x/isSender", "x%2Fy/participants", "a?isRaw=x",
	}
	for i := range fuzzRoutes {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s), a)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte, header string) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		var req *http.Request
		if rt.method == "GET" {
			target := rt.path + string(body)
			if strings.ContainsAny(target, " \t\r\n#") || !strings.HasPrefix(target, "/") {
				return // not a request line an HTTP client could send
			}
			func() {
				defer func() {
					if recover() != nil {
						req = nil // httptest refuses the target, not the server
					}
				}()
				req = httptest.NewRequest(rt.method, target, nil)
			}()
			if req == nil {
				return
			}
		} else {
			req = httptest.NewRequest(rt.method, rt.path, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", rt.mediaType)
		}
		req.Header.Set("c11n-to", header)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200, 201, 400, 404, 413, 500, 501:
		case 301, 307, 308:
			// A path that is not canonical (an unescaped "//" or "/./", as
			// a random Base64 key holds now and then) is redirected by the
			// mux to its clean form; GoQuorum escapes a key's "/" as %2F.
			if !strings.Contains(req.URL.Path, "//") && !strings.Contains(req.URL.Path, "/.") {
				t.Fatalf("%s %s: redirect %d of a canonical path", rt.method, req.URL, w.Code)
			}
		default:
			t.Fatalf("%s %s: status %d %q", rt.method, req.URL, w.Code, w.Body)
		}
		if w.Code >= 500 && w.Code != 501 {
			t.Fatalf("%s %s: server error %d %q", rt.method, req.URL, w.Code, w.Body)
		}
	})
}
