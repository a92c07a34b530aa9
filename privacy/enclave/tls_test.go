package enclave_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/tlstrust"
	"github.com/basaltchain/basalt/privacy/enclave"
)

// TestKnownEnclave: over TLS the manager's certificate is accepted when
// its fingerprint is listed for its host:port, and refused otherwise.
func TestKnownEnclave(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("I'm up!")) }))
	defer srv.Close()
	hostPort := strings.TrimPrefix(srv.URL, "https://")
	fp := hex.EncodeToString(tlstrust.Fingerprint(srv.Certificate().Raw))
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		line string
		ok   bool
	}{
		"listed":      {hostPort + " " + fp, true},
		"other print": {hostPort + " " + strings.Repeat("ab", 32), false},
		"other host":  {"127.0.0.1:1 " + fp, false},
	} {
		known := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(known, []byte(tc.line+"\n"), 0o600)
		cfg, err := enclave.TLSConfig(enclave.TLSFiles{KnownEnclaves: known}, hostPort)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := enclave.New(enclave.Config{URL: srv.URL, TLS: cfg})
		if err := c.Upcheck(context.Background()); (err == nil) != tc.ok {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := enclave.TLSConfig(enclave.TLSFiles{KnownEnclaves: filepath.Join(dir, "missing")}, hostPort); err == nil {
		t.Error("a missing known-enclave file was accepted")
	}
	if _, err := enclave.TLSConfig(enclave.TLSFiles{Keystore: filepath.Join(dir, "missing.p12")}, hostPort); err == nil {
		t.Error("a missing keystore was accepted")
	}
}
