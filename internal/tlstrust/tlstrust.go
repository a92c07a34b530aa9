package tlstrust

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Mode is a trust mode, parsed.
type Mode struct {
	Name string
	// CA accepts certificates that chain to a trusted CA.
	CA bool
	// Known accepts certificates whose fingerprint is recorded for the
	// identity.
	Known bool
	// AcceptNew accepts (and records) an identity not yet recorded.
	AcceptNew bool
	// Update accepts (and records) a changed fingerprint.
	Update bool
	// Any accepts everything without recording.
	Any bool
}

// ParseMode parses a trust mode name.
func ParseMode(name string) (Mode, error) {
	m := Mode{Name: strings.ToLower(name)}
	switch m.Name {
	case "ca":
		m.CA = true
	case "whitelist":
		m.Known = true
	case "ca-or-whitelist":
		m.CA, m.Known = true, true
	case "tofu", "insecure-tofa":
		m.Known, m.AcceptNew = true, true
	case "ca-or-tofu", "insecure-ca-or-tofa":
		m.CA, m.Known, m.AcceptNew = true, true, true
	case "insecure-record":
		m.Known, m.AcceptNew, m.Update = true, true, true
	case "insecure-ca-or-record":
		m.CA, m.Known, m.AcceptNew, m.Update = true, true, true, true
	case "insecure-no-validation":
		m.Any = true
	default:
		return m, fmt.Errorf("unknown trust mode %q", name)
	}
	return m, nil
}

// verifier checks a peer certificate chain against a mode.
type verifier struct {
	mode  Mode
	roots *x509.CertPool
	known *KnownHosts
}

func newVerifier(mode Mode, chainFiles []string, knownFile string) (*verifier, error) {
	v := &verifier{mode: mode}
	if mode.CA {
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		for _, f := range chainFiles {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("trust chain: %w", err)
			}
			if !roots.AppendCertsFromPEM(data) {
				return nil, fmt.Errorf("trust chain %s: no PEM certificate", f)
			}
		}
		v.roots = roots
	}
	if mode.Known {
		k, err := LoadKnownHosts(knownFile)
		if err != nil {
			return nil, err
		}
		v.known = k
	}
	return v, nil
}

// check verifies raw (peer chain, leaf first) for identity id; host, when
// set, is the server name a CA-signed certificate must match.
func (v *verifier) check(raw [][]byte, id, host string, usage x509.ExtKeyUsage) error {
	if len(raw) == 0 {
		return errors.New("peer presented no certificate")
	}
	leaf, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return fmt.Errorf("peer certificate: %w", err)
	}
	if v.mode.Any {
		return nil
	}
	if v.mode.CA {
		inter := x509.NewCertPool()
		for _, r := range raw[1:] {
			if c, err := x509.ParseCertificate(r); err == nil {
				inter.AddCert(c)
			}
		}
		_, err := leaf.Verify(x509.VerifyOptions{Roots: v.roots, Intermediates: inter, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}})
		if err == nil {
			return nil
		}
		if !v.mode.Known {
			return fmt.Errorf("certificate of %s is not signed by a trusted CA: %w", id, err)
		}
	}
	fp := Fingerprint(raw[0])
	known, match := v.known.Lookup(id, fp)
	switch {
	case match:
		return nil
	case known && !v.mode.Update:
		return fmt.Errorf("certificate of %s has changed (fingerprint %s)", id, hex.EncodeToString(fp))
	case !known && !v.mode.AcceptNew:
		return fmt.Errorf("certificate of %s has unknown fingerprint %s", id, hex.EncodeToString(fp))
	}
	return v.known.Record(id, fp)
}

// load reads a side's own certificate and key and its trust mode.
func load(certFile, keyFile, trust string) (tls.Certificate, Mode, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, Mode{}, fmt.Errorf("load certificate %s / key %s: %w", certFile, keyFile, err)
	}
	mode, err := ParseMode(trust)
	return cert, mode, err
}

// ServerConfig is the configuration of a server that requires client
// certificates and checks them with trust (identity: the common name).
func ServerConfig(certFile, keyFile string, chainFiles []string, trust, knownClients string) (*tls.Config, error) {
	cert, mode, err := load(certFile, keyFile, trust)
	if err != nil {
		return nil, err
	}
	v, err := newVerifier(mode, chainFiles, knownClients)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			leaf, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return err
			}
			return v.check(raw, leaf.Subject.CommonName, "", x509.ExtKeyUsageClientAuth)
		},
	}, nil
}

// Dialer dials TLS connections to servers, presenting a client certificate
// and checking the server's with a trust mode (identity: "host:port").
type Dialer struct {
	cert tls.Certificate
	v    *verifier
}

// NewDialer loads the client certificate and the trust mode.
func NewDialer(certFile, keyFile string, chainFiles []string, trust, knownServers string) (*Dialer, error) {
	cert, mode, err := load(certFile, keyFile, trust)
	if err != nil {
		return nil, err
	}
	// On the client side Orion records fingerprints even without validation.
	if mode.Any {
		mode = Mode{Name: mode.Name, Known: true, AcceptNew: true, Update: true}
	}
	v, err := newVerifier(mode, chainFiles, knownServers)
	if err != nil {
		return nil, err
	}
	return &Dialer{cert: cert, v: v}, nil
}

// DialTLSContext connects to addr ("host:port") and completes the handshake.
// It fits http.Transport.DialTLSContext.
func (d *Dialer) DialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var nd net.Dialer
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		Certificates:       []tls.Certificate{d.cert},
		ServerName:         host,
		InsecureSkipVerify: true, // checked below, by trust mode
		VerifyPeerCertificate: func(certs [][]byte, _ [][]*x509.Certificate) error {
			return d.v.check(certs, strings.ToLower(addr), host, x509.ExtKeyUsageServerAuth)
		},
	}
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn, nil
}

// EnsureCertificate creates a self-signed certificate and key (ECDSA P-256,
// valid one year, common name host, host as subject alternative name) when
// both files are missing, as Orion does. When one exists and the other does
// not, that is an error.
func EnsureCertificate(certFile, keyFile, host string) (created bool, err error) {
	_, errC := os.Stat(certFile)
	_, errK := os.Stat(keyFile)
	switch {
	case errC == nil && errK == nil:
		return false, nil
	case errC == nil:
		return false, fmt.Errorf("TLS certificate %s exists but its key %s does not", certFile, keyFile)
	case errK == nil:
		return false, fmt.Errorf("TLS key %s exists but its certificate %s does not", keyFile, certFile)
	}
	if host == "" {
		host = "localhost"
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return false, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return false, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return false, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return false, err
	}
	for _, f := range []struct {
		path, typ string
		der       []byte
		perm      os.FileMode
	}{{keyFile, "PRIVATE KEY", keyDER, 0o600}, {certFile, "CERTIFICATE", der, 0o644}} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return false, err
		}
		data := pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der})
		if err := os.WriteFile(f.path, data, f.perm); err != nil {
			return false, err
		}
	}
	return true, nil
}
