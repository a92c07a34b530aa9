package tlstrust

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func selfSigned(t *testing.T, dir, name string) (cert, key string, der []byte) {
	t.Helper()
	cert, key = filepath.Join(dir, name+"-cert.pem"), filepath.Join(dir, name+"-key.pem")
	created, err := EnsureCertificate(cert, key, "127.0.0.1")
	if err != nil || !created {
		t.Fatalf("EnsureCertificate: %v %v", created, err)
	}
	data, _ := os.ReadFile(cert)
	block, _ := pem.Decode(data)
	return cert, key, block.Bytes
}

func TestParseMode(t *testing.T) {
	for _, name := range []string{"ca", "whitelist", "ca-or-whitelist", "tofu", "insecure-tofa", "ca-or-tofu", "insecure-ca-or-tofa", "insecure-record", "insecure-ca-or-record", "insecure-no-validation", "TOFU"} {
		if _, err := ParseMode(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseMode("trust-me"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestKnownHostsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "known")
	os.WriteFile(path, []byte("# comment\n\nHost:8080 AB:cd:01\nclient   abcd02\n"), 0o644)
	k, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	if known, match := k.Lookup("host:8080", []byte{0xab, 0xcd, 0x01}); !known || !match {
		t.Error("colon-separated, case-insensitive identifier")
	}
	if known, match := k.Lookup("client", []byte{1}); !known || match {
		t.Error("mismatch")
	}
	if err := k.Record("new", []byte{9}); err != nil {
		t.Fatal(err)
	}
	again, err := LoadKnownHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, match := again.Lookup("new", []byte{9}); !match {
		t.Error("recorded entry not persisted")
	}
	if _, match := again.Lookup("client", []byte{0xab, 0xcd, 0x02}); !match {
		t.Error("existing entry lost on rewrite")
	}
	os.WriteFile(path, []byte("only-one-field\n"), 0o644)
	if _, err := LoadKnownHosts(path); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad line: %v", err)
	}
	os.WriteFile(path, []byte("h zz\n"), 0o644)
	if _, err := LoadKnownHosts(path); err == nil {
		t.Error("bad fingerprint accepted")
	}
	if _, err := LoadKnownHosts(filepath.Join(dir, "sub", "created")); err != nil {
		t.Errorf("missing file not created: %v", err)
	}
}

func TestVerifierModes(t *testing.T) {
	dir := t.TempDir()
	_, _, der1 := selfSigned(t, dir, "one")
	_, _, der2 := selfSigned(t, dir, "two")
	check := func(mode string, known string, der []byte) error {
		m, _ := ParseMode(mode)
		path := filepath.Join(t.TempDir(), "known")
		os.WriteFile(path, []byte(known), 0o644)
		v, err := newVerifier(m, nil, path)
		if err != nil {
			t.Fatal(err)
		}
		return v.check([][]byte{der}, "peer:1", "", x509.ExtKeyUsageServerAuth)
	}
	fp1 := "peer:1 " + hex.EncodeToString(Fingerprint(der1)) + "\n"
	tests := []struct {
		mode, known string
		der         []byte
		ok          bool
	}{
		{"whitelist", fp1, der1, true},
		{"whitelist", fp1, der2, false},
		{"whitelist", "", der1, false},
		{"tofu", "", der1, true},
		{"tofu", fp1, der2, false},
		{"insecure-record", fp1, der2, true},
		{"insecure-no-validation", fp1, der2, true},
		{"ca", "", der1, false}, // self-signed
		{"ca-or-whitelist", fp1, der1, true},
		{"ca-or-tofu", fp1, der2, false},
	}
	for _, tc := range tests {
		if err := check(tc.mode, tc.known, tc.der); (err == nil) != tc.ok {
			t.Errorf("%s with %q: %v, want ok=%v", tc.mode, tc.known, err, tc.ok)
		}
	}
}

// TestMutualTLS runs a server (ServerConfig) and a client (Dialer), both
// trusting on first use, then checks that a changed server certificate is
// refused and that a CA-signed one passes in ca mode.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	scert, skey, _ := selfSigned(t, dir, "server")
	ccert, ckey, _ := selfSigned(t, dir, "client")
	knownClients, knownServers := filepath.Join(dir, "known-clients"), filepath.Join(dir, "known-servers")
	serve := func(cfg *tls.Config) (string, func()) {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
		go srv.Serve(ln)
		return ln.Addr().String(), func() { srv.Close() }
	}
	scfg, err := ServerConfig(scert, skey, nil, "tofu", knownClients)
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serve(scfg)
	defer stop()
	d, err := NewDialer(ccert, ckey, nil, "tofu", knownServers)
	if err != nil {
		t.Fatal(err)
	}
	get := func(d *Dialer, addr string) error {
		c := &http.Client{Transport: &http.Transport{DialTLSContext: d.DialTLSContext}, Timeout: 5 * time.Second}
		resp, err := c.Get("https://" + addr + "/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	if err := get(d, addr); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if data, _ := os.ReadFile(knownServers); !strings.Contains(string(data), strings.ToLower(addr)) {
		t.Errorf("server not recorded: %s", data)
	}
	if data, _ := os.ReadFile(knownClients); !strings.Contains(string(data), "127.0.0.1") {
		t.Errorf("client not recorded (by common name): %s", data)
	}
	// A client without a certificate is refused.
	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 5 * time.Second}
	if resp, err := plain.Get("https://" + addr + "/"); err == nil {
		resp.Body.Close()
		t.Error("a client without a certificate was served")
	}

	// Another server certificate at the same address: refused by tofu.
	stop()
	other, otherKey, _ := selfSigned(t, dir, "other")
	ocfg, _ := ServerConfig(other, otherKey, nil, "insecure-no-validation", filepath.Join(dir, "unused"))
	ln, err := tls.Listen("tcp", addr, ocfg)
	if err != nil {
		t.Skipf("address reuse: %v", err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(ln)
	defer srv.Close()
	if err := get(d, addr); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("changed server certificate: %v", err)
	}

	// ca mode with a CA that signed the server certificate.
	caCert, caKey := newCA(t)
	caFile := filepath.Join(dir, "ca.pem")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw}), 0o644)
	signedCert, signedKey := signed(t, dir, caCert, caKey)
	scfg2, _ := ServerConfig(signedCert, signedKey, nil, "insecure-no-validation", filepath.Join(dir, "unused2"))
	addr2, stop2 := serve(scfg2)
	defer stop2()
	dca, err := NewDialer(ccert, ckey, []string{caFile}, "ca", filepath.Join(dir, "unused3"))
	if err != nil {
		t.Fatal(err)
	}
	if err := get(dca, addr2); err != nil {
		t.Errorf("ca mode, CA-signed server: %v", err)
	}
	if err := get(dca, addr); err == nil {
		t.Error("ca mode accepted a self-signed server")
	}
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, key
}

func signed(t *testing.T, dir string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (string, string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	cf, kf := filepath.Join(dir, "signed-cert.pem"), filepath.Join(dir, "signed-key.pem")
	os.WriteFile(cf, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(kf, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	return cf, kf
}

func TestEnsureCertificate(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if created, err := EnsureCertificate(cert, key, "node.example"); err != nil || !created {
		t.Fatal(err)
	}
	if created, err := EnsureCertificate(cert, key, "node.example"); err != nil || created {
		t.Errorf("second call: %v %v", created, err)
	}
	if _, err := tls.LoadX509KeyPair(cert, key); err != nil {
		t.Fatal(err)
	}
	os.Remove(key)
	if _, err := EnsureCertificate(cert, key, ""); err == nil {
		t.Error("half a pair accepted")
	}
}
