package clientapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/clientapi"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

var fuzzRoutes = []struct{ path, mediaType string }{
	{"/send", "application/json"},
	{"/sendraw", "application/octet-stream"},
	{"/receive", "application/json"},
	{"/receive", "application/vnd.orion.v1+json"},
	{"/receiveraw", "application/octet-stream"},
	{"/createPrivacyGroup", "application/json"},
	{"/deletePrivacyGroup", "application/json"},
	{"/findPrivacyGroup", "application/json"},
	{"/retrievePrivacyGroup", "application/json"},
}

// FuzzClientAPI feeds arbitrary bodies to every POST route of the client API:
// no panic, and every failure is an Orion error body with a known status.
func FuzzClientAPI(f *testing.F) {
	m, pairs := ptmtest.Manager(f, 1, nil)
	a := pairs[0].Public.String()
	s := &clientapi.Server{Manager: m, Table: m.Table, MaxBody: 1 << 16}
	h := s.Handler()
	seeds := []string{
		`{"payload":"eA==","from":"` + a + `","to":["` + a + `"]}`,
		`{"payload":"eA==","from":"` + a + `","privacyGroupId":"x"}`,
		`{"key":"AAAA","to":null}`,
		`{"addresses":["` + a + `"],"from":"` + a + `","name":"n","seed":"AQID"}`,
		`{"privacyGroupId":"x","from":"` + a + `"}`,
		`{"addresses":[]}`,
		`{"payload":"eA==","to":[""],"from":null}`,
		`[1,2]`, `null`, `{"payload":{}}`, "\xff",
	}
	for i := range fuzzRoutes {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s), a)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte, header string) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		req := httptest.NewRequest(http.MethodPost, rt.path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", rt.mediaType)
		req.Header.Set("c11n-from", header)
		req.Header.Set("c11n-to", header)
		req.Header.Set("c11n-key", header)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200:
		case 400, 404, 413, 500:
			var e struct{ Error string }
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
				t.Fatalf("%s: status %d without an error body: %q", rt.path, w.Code, w.Body)
			}
		default:
			t.Fatalf("%s: status %d", rt.path, w.Code)
		}
	})
}
