package enclave

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/pkcs12"

	"github.com/basaltchain/basalt/internal/tlstrust"
)

// TLSFiles are the --privacy-tls-* options.
type TLSFiles struct {
	// Keystore is a PKCS#12 file with the node's client certificate and
	// key (--privacy-tls-keystore-file); "" presents none.
	Keystore string
	// PasswordFile holds the keystore's password on its first line
	// (--privacy-tls-keystore-password-file).
	PasswordFile string
	// KnownEnclaves is a known-servers file, one "host:port fingerprint"
	// line per manager (--privacy-tls-known-enclave-file). When given, the
	// manager's certificate is accepted if and only if its SHA-256
	// fingerprint is listed for the URL's host:port; otherwise it must
	// chain to a system CA.
	KnownEnclaves string
}

// TLSConfig builds the TLS configuration of a client that reaches the
// manager at host (host:port).
func TLSConfig(f TLSFiles, hostPort string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.Keystore != "" {
		data, err := os.ReadFile(f.Keystore)
		if err != nil {
			return nil, fmt.Errorf("--privacy-tls-keystore-file: %w", err)
		}
		var password string
		if f.PasswordFile != "" {
			p, err := os.ReadFile(f.PasswordFile)
			if err != nil {
				return nil, fmt.Errorf("--privacy-tls-keystore-password-file: %w", err)
			}
			password = strings.TrimRight(strings.SplitN(string(p), "\n", 2)[0], "\r")
		}
		key, cert, err := pkcs12.Decode(data, password)
		if err != nil {
			return nil, fmt.Errorf("--privacy-tls-keystore-file %s: %w", f.Keystore, err)
		}
		cfg.Certificates = []tls.Certificate{{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}}
	}
	if f.KnownEnclaves != "" {
		if _, err := os.Stat(f.KnownEnclaves); err != nil {
			return nil, fmt.Errorf("--privacy-tls-known-enclave-file: %w", err)
		}
		known, err := tlstrust.LoadKnownHosts(f.KnownEnclaves)
		if err != nil {
			return nil, fmt.Errorf("--privacy-tls-known-enclave-file: %w", err)
		}
		// The fingerprint replaces CA verification, as Besu's known-server
		// trust does.
		cfg.InsecureSkipVerify = true
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("privacy manager presented no certificate")
			}
			if _, match := known.Lookup(hostPort, tlstrust.Fingerprint(raw[0])); !match {
				return fmt.Errorf("privacy manager certificate for %s is not in %s", hostPort, f.KnownEnclaves)
			}
			return nil
		}
	}
	return cfg, nil
}
