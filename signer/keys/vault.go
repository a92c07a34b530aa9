package keys

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
)

// Vault defaults (EthSigner's hashicorp-signer).
const (
	DefaultVaultHost    = "localhost"
	DefaultVaultPort    = 8200
	DefaultVaultKeyPath = "/v1/secret/data/ethsignerSigningKey"
	DefaultVaultTimeout = 10 * time.Second
)

// VaultConfig locates a signing key in a Hashicorp Vault KV v2 secrets
// engine.
type VaultConfig struct {
	Host string
	Port int
	// SigningKeyPath is the HTTP path of the secret, e.g.
	// /v1/secret/data/ethsignerSigningKey. The key is read from the secret's
	// "value" field (data.data.value in the answer) as a hex private key.
	SigningKeyPath string
	// AuthFile holds the Vault token, sent as X-Vault-Token.
	AuthFile string
	// Timeout bounds the whole request.
	Timeout time.Duration
	// TLSEnabled selects https. The server certificate is checked against
	// the system roots, or, when TLSKnownServerFile is set, against the
	// fingerprint listed there for Host:Port.
	TLSEnabled         bool
	TLSKnownServerFile string
}

// URL is the secret's URL.
func (c *VaultConfig) URL() string {
	scheme := "http"
	if c.TLSEnabled {
		scheme = "https"
	}
	p := c.SigningKeyPath
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return scheme + "://" + net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) + p
}

// LoadVaultKey reads the signing key from Vault (GET SigningKeyPath with the
// token of AuthFile). Errors name the URL or the file at fault and never
// contain the token or the key.
func LoadVaultKey(ctx context.Context, cfg VaultConfig) (*PrivateKey, error) {
	token, err := os.ReadFile(cfg.AuthFile)
	if err != nil {
		return nil, fmt.Errorf("vault auth file %s: %w", cfg.AuthFile, unwrapPathError(err))
	}
	tok := strings.TrimSpace(string(token))
	if tok == "" {
		return nil, fmt.Errorf("vault auth file %s is empty", cfg.AuthFile)
	}
	url := cfg.URL()
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultVaultTimeout
	}
	// Vault may sit behind an HTTP proxy, unlike the services the other
	// clients call.
	transport := httpcall.NewTransport(timeout)
	transport.Proxy = http.ProxyFromEnvironment
	if cfg.TLSEnabled {
		tc, err := vaultTLS(cfg)
		if err != nil {
			return nil, err
		}
		transport.TLSClientConfig = tc
	}
	defer transport.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, err := httpcall.Do(ctx, &http.Client{Transport: transport}, &httpcall.Request{
		Method: http.MethodGet, URL: url, Header: http.Header{"X-Vault-Token": {tok}},
	}, 1<<20)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("vault %s: no answer within %v", url, timeout)
		}
		return nil, fmt.Errorf("vault %s: %v", url, err)
	}
	body := a.Body
	if a.Status != http.StatusOK {
		var ve struct {
			Errors []string `json:"errors"`
		}
		msg := ""
		if json.Unmarshal(body, &ve) == nil && len(ve.Errors) > 0 {
			msg = ": " + strings.Join(ve.Errors, "; ")
		}
		return nil, fmt.Errorf("vault %s: HTTP %d%s", url, a.Status, msg)
	}
	var secret struct {
		Data struct {
			Data map[string]any `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &secret); err != nil {
		return nil, fmt.Errorf("vault %s: the answer is not a KV v2 secret: %v", url, err)
	}
	v, ok := secret.Data.Data["value"].(string)
	if !ok {
		return nil, fmt.Errorf("vault %s: the secret has no string field \"value\" (KV v2: data.data.value)", url)
	}
	k, err := ParseHexKey(v)
	if err != nil {
		return nil, fmt.Errorf("vault %s: %v", url, err)
	}
	return k, nil
}

// vaultTLS returns the TLS configuration for cfg: system roots, or pinning
// to the fingerprint in the known-server file.
func vaultTLS(cfg VaultConfig) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSKnownServerFile == "" {
		return tc, nil
	}
	fps, err := readKnownServers(cfg.TLSKnownServerFile)
	if err != nil {
		return nil, err
	}
	hostPort := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	want, ok := fps[strings.ToLower(hostPort)]
	if !ok {
		return nil, fmt.Errorf("vault known-server file %s has no entry for %s", cfg.TLSKnownServerFile, hostPort)
	}
	// The certificate is pinned, so the CA chain and host name checks are
	// replaced by the fingerprint comparison.
	tc.InsecureSkipVerify = true
	tc.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("vault server sent no certificate")
		}
		got := sha256.Sum256(raw[0])
		for _, w := range want {
			if bytes.Equal(got[:], w) {
				return nil
			}
		}
		return fmt.Errorf("vault server certificate fingerprint %X is not the one in %s for %s",
			got, cfg.TLSKnownServerFile, hostPort)
	}
	return tc, nil
}

// readKnownServers reads a known-servers file: one "<host>:<port>
// <fingerprint>" per line, the fingerprint being the SHA-256 of the
// server's DER certificate in hex, with or without colons. Blank lines and
// lines starting with # are skipped.
func readKnownServers(path string) (map[string][][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vault known-server file %s: %w", path, unwrapPathError(err))
	}
	out := map[string][][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("vault known-server file %s line %d: want \"<host>:<port> <fingerprint>\"", path, n)
		}
		fp, err := hex.DecodeString(strings.ReplaceAll(f[1], ":", ""))
		if err != nil || len(fp) != sha256.Size {
			return nil, fmt.Errorf("vault known-server file %s line %d: the fingerprint is not a SHA-256 in hex", path, n)
		}
		k := strings.ToLower(f[0])
		out[k] = append(out[k], fp)
	}
	return out, nil
}
