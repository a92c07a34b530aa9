package nodeapi_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/nodeapi"
	"github.com/basaltchain/basalt/ptm/payload"
)

// fuzzPaths are every node API route that reads a body.
var fuzzPaths = []string{"/push", "/pushPrivacyGroup", "/partyinfo", "/partyinfo/validate"}

// FuzzNodeAPI feeds arbitrary CBOR (and, for /pushPrivacyGroup, an
// arbitrary authentication header) to every node API route that decodes
// one: no panic, every failure is an Orion error body, and a group push
// without a member's valid authentication is never stored.
func FuzzNodeAPI(f *testing.F) {
	m, pairs := ptmtest.Manager(f, 1, nil)
	s := &nodeapi.Server{Manager: m, Table: m.Table, MaxBody: 1 << 16}
	h := s.Handler()

	sender, _ := keys.Generate(nil)
	p, _ := enclave.New([]keys.KeyPair{sender}, nil).Encrypt([]byte("x"), sender.Public, []keys.PublicKey{pairs[0].Public}, nil)
	push, _ := p.MarshalCBOR()
	g := &payload.PrivacyGroup{Addresses: []string{pairs[0].Public.String(), sender.Public.String()}, State: payload.Deleted, Type: payload.Legacy}
	group, _ := g.MarshalCBOR()
	auth := (&manager.GroupAuth{Sender: sender.Public, Recipient: pairs[0].Public, Box: make([]byte, 80)}).String()
	party, _ := m.Table.PartyInfo().Encode()
	_, validate, _ := discovery.NewProof(rand.Reader, m.Table.Self(), []keys.PublicKey{pairs[0].Public})
	for i := range fuzzPaths {
		for _, seed := range [][]byte{push, group, party, validate, {0xbf, 0xff}, {0xa0}, {}} {
			f.Add(uint8(i), seed, "")
			f.Add(uint8(i), seed, auth)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte, auth string) {
		path := fuzzPaths[int(route)%len(fuzzPaths)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/cbor")
		if auth != "" {
			req.Header.Set(manager.GroupAuthHeader, auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200:
			if path == "/pushPrivacyGroup" {
				t.Fatalf("a group push without a member's authentication was stored: %q", auth)
			}
		case 403, 413, 500:
			var e struct{ Error string }
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
				t.Fatalf("%s: status %d without an error body: %q", path, w.Code, w.Body)
			}
		default:
			t.Fatalf("%s: status %d", path, w.Code)
		}
	})
}
