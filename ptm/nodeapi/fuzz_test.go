package nodeapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/nodeapi"
	"github.com/basaltchain/basalt/ptm/payload"
)

var fuzzPaths = []string{"/push", "/pushPrivacyGroup", "/partyinfo"}

// FuzzNodeAPI feeds arbitrary CBOR to the node API's routes: no panic, and
// every failure is an Orion error body.
func FuzzNodeAPI(f *testing.F) {
	m, pairs := ptmtest.Manager(f, 1, nil)
	s := &nodeapi.Server{Manager: m, Table: m.Table, MaxBody: 1 << 16}
	h := s.Handler()

	sender, _ := keys.Generate(nil)
	p, _ := enclave.New([]keys.KeyPair{sender}, nil).Encrypt([]byte("x"), sender.Public, []keys.PublicKey{pairs[0].Public}, nil)
	push, _ := p.MarshalCBOR()
	g := &payload.PrivacyGroup{Addresses: []string{pairs[0].Public.String()}, State: payload.Active, Type: payload.Pantheon, RandomSeed: []byte{1}}
	group, _ := g.MarshalCBOR()
	party, _ := m.Table.PartyInfo().Encode()
	for i := range fuzzPaths {
		for _, seed := range [][]byte{push, group, party, {0xbf, 0xff}, {0xa0}, {}} {
			f.Add(uint8(i), seed)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := fuzzPaths[int(route)%len(fuzzPaths)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/cbor")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200:
		case 413, 500:
			var e struct{ Error string }
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
				t.Fatalf("%s: status %d without an error body: %q", path, w.Code, w.Body)
			}
		default:
			t.Fatalf("%s: status %d", path, w.Code)
		}
	})
}
