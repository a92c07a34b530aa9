// Package tlstrust builds the TLS configurations of Orion's tls = "strict"
// (mutual TLS between instances) and clientconnectiontls = "strict" (mutual
// TLS on the client API): certificates (self-signed ones created when
// missing) and Orion's trust modes, which accept a peer certificate when it
// chains to a trusted CA and/or when its fingerprint is in a known-hosts
// file:
//
//	ca                      CA-signed only
//	whitelist               fingerprint listed only
//	ca-or-whitelist         either
//	tofu, insecure-tofa     trust on first use: a new identity is recorded, a changed one refused
//	ca-or-tofu, insecure-ca-or-tofa
//	insecure-record         anything, recorded (a changed fingerprint is updated)
//	insecure-ca-or-record
//	insecure-no-validation  anything (recorded on the client side, as in Orion)
//
// Known-hosts files use Tuweni's format: one "identifier fingerprint" per
// line, where the fingerprint is the SHA-256 of the certificate's DER in hex
// (colons allowed), the identifier is "host:port" for servers and the
// certificate's common name for clients, and "#" starts a comment.
//
// Both sides of the privacy manager's connections use it (the manager,
// ptm/instance, and the node's client, privacy/enclave), so it sits under
// internal/ rather than inside either.
package tlstrust

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Fingerprint returns the SHA-256 of a DER certificate.
func Fingerprint(der []byte) []byte {
	sum := sha256.Sum256(der)
	return sum[:]
}

// KnownHosts is a fingerprint file.
type KnownHosts struct {
	path string
	mu   sync.Mutex
	m    map[string][]byte
}

// LoadKnownHosts reads (creating it empty if missing) a fingerprint file.
func LoadKnownHosts(path string) (*KnownHosts, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("fingerprint file %s: %w", path, err)
	}
	defer f.Close()
	k := &KnownHosts{path: path, m: map[string][]byte{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		id, fp, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("fingerprint file %s line %d: %w", path, n, err)
		}
		if ok {
			k.m[id] = fp
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("fingerprint file %s: %w", path, err)
	}
	return k, nil
}

func parseLine(line string) (string, []byte, bool, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", nil, false, nil
	}
	fields := strings.Fields(line)
	if len(fields) != 2 {
		return "", nil, false, fmt.Errorf("want \"identifier fingerprint\", got %q", line)
	}
	fp, err := hex.DecodeString(strings.ReplaceAll(fields[1], ":", ""))
	if err != nil {
		return "", nil, false, fmt.Errorf("invalid fingerprint %q", fields[1])
	}
	return strings.ToLower(fields[0]), fp, true, nil
}

// Lookup returns whether id is known and whether fp is its fingerprint.
func (k *KnownHosts) Lookup(id string, fp []byte) (known, match bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	have, ok := k.m[strings.ToLower(id)]
	return ok, ok && bytes.Equal(have, fp)
}

// Record sets id's fingerprint and rewrites the file (atomically).
func (k *KnownHosts) Record(id string, fp []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	id = strings.ToLower(id)
	if bytes.Equal(k.m[id], fp) {
		return nil
	}
	k.m[id] = fp
	var buf bytes.Buffer
	buf.WriteString("# identifier sha256-fingerprint (written by basalt-privacy)\n")
	for ident, f := range k.m {
		fmt.Fprintf(&buf, "%s %s\n", ident, hex.EncodeToString(f))
	}
	tmp := k.path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, k.path)
}
