package clientapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/clientapi"
	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
)

func writeTokens(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTokens(t *testing.T) {
	k, _ := keys.Generate(nil)
	hosted := func(x keys.PublicKey) bool { return x == k.Public }
	good := "# the node\nnode-token-0123456789\n\ntenant-token-0123456789 " + k.Public.String() + "  # a tenant\n"
	tok, err := clientapi.LoadTokens(writeTokens(t, good), hosted)
	if err != nil || tok.Len() != 2 {
		t.Fatalf("good file: %v", err)
	}
	other, _ := keys.Generate(nil)
	for name, content := range map[string]string{
		"empty":       "# nothing\n",
		"short":       "short\n",
		"duplicate":   "node-token-0123456789\nnode-token-0123456789\n",
		"bad key":     "node-token-0123456789 xx\n",
		"not hosted":  "node-token-0123456789 " + other.Public.String() + "\n",
		"three parts": "node-token-0123456789 a b\n",
	} {
		if _, err := clientapi.LoadTokens(writeTokens(t, content), hosted); err == nil || !strings.Contains(err.Error(), "clientapitokens") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := clientapi.LoadTokens(filepath.Join(t.TempDir(), "missing"), hosted); err == nil {
		t.Error("missing file accepted")
	}
}

// TestTokenAuth: with tokens, every route but /upcheck needs a valid one,
// and a tenant's token acts as its keys only.
func TestTokenAuth(t *testing.T) {
	m, pairs := ptmtest.Manager(t, 2, nil)
	A, B := pairs[0].Public, pairs[1].Public
	tok, err := clientapi.LoadTokens(writeTokens(t, "node-token-0123456789\ntenant-b-0123456789 "+B.String()+"\n"), m.Enclave.Hosts)
	if err != nil {
		t.Fatal(err)
	}
	h := (&clientapi.Server{Manager: m, Table: m.Table, Tokens: tok}).Handler()
	do := func(method, path, token, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			r.Header.Set("Authorization", token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("GET", "/upcheck", "", ""); w.Code != 200 {
		t.Errorf("upcheck without token: %d", w.Code)
	}
	send := `{"payload":"eA==","from":"` + A.String() + `","to":["` + A.String() + `"]}`
	for _, bad := range []string{"", "Bearer", "Bearer wrong-token-0123456789", "Basic node-token-0123456789", "node-token-0123456789"} {
		w := do("POST", "/send", bad, send)
		if w.Code != 401 || !strings.Contains(w.Body.String(), `"Unauthorized"`) || w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: %d %s", bad, w.Code, w.Body)
		}
	}
	for _, path := range []string{"/knownnodes", "/peercount", "/version"} {
		if w := do("GET", path, "", ""); w.Code != 401 {
			t.Errorf("%s without token: %d", path, w.Code)
		}
	}
	w := do("POST", "/send", "Bearer node-token-0123456789", send)
	if w.Code != 200 {
		t.Fatalf("node token: %d %s", w.Code, w.Body)
	}
	var out struct{ Key string }
	json.Unmarshal(w.Body.Bytes(), &out)
	receive := `{"key":"` + out.Key + `","to":null}`
	if w := do("POST", "/receive", "bearer node-token-0123456789", receive); w.Code != 200 {
		t.Errorf("node receive: %d %s", w.Code, w.Body)
	}
	// B's tenant: A's payload is not its own (404, as for any payload not
	// for it), and asking as A is refused.
	if w := do("POST", "/receive", "Bearer tenant-b-0123456789", receive); w.Code != 404 {
		t.Errorf("tenant receive of A's payload: %d %s", w.Code, w.Body)
	}
	if w := do("POST", "/receive", "Bearer tenant-b-0123456789", `{"key":"`+out.Key+`","to":"`+A.String()+`"}`); w.Code != 403 || !strings.Contains(w.Body.String(), "Forbidden") {
		t.Errorf("tenant receive as A: %d %s", w.Code, w.Body)
	}
	if w := do("POST", "/send", "Bearer tenant-b-0123456789", send); w.Code != 403 {
		t.Errorf("tenant send as A: %d %s", w.Code, w.Body)
	}
	if w := do("POST", "/send", "Bearer tenant-b-0123456789", `{"payload":"eA==","to":["`+B.String()+`"]}`); w.Code != 200 {
		t.Errorf("tenant send without from: %d %s", w.Code, w.Body)
	}
}
