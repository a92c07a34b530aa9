package clientapi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
)

// MinTokenLength is the shortest bearer token accepted in a tokens file.
const MinTokenLength = 16

// Tokens are the bearer tokens the client API accepts (clientapitokens), a
// Basalt feature: Orion's client API authenticates no one, so anyone who
// could reach it could fetch any payload whose key they knew (Orion #427).
// Each token may act as every hosted key (the node's token) or only as the
// keys listed with it (a tenant's).
type Tokens struct {
	// byHash is keyed by the SHA-256 of the token, so that looking a token
	// up does not compare secrets byte by byte.
	byHash map[[sha256.Size]byte]*manager.Access
}

// LoadTokens reads a tokens file: one token per line, optionally followed
// by white space and the comma-separated Base64 keys it may act as (each
// hosted here); "#" starts a comment. Tokens are at least MinTokenLength
// characters without white space, and unique.
func LoadTokens(path string, hosted func(keys.PublicKey) bool) (*Tokens, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("clientapitokens: %w", err)
	}
	t := &Tokens{byHash: map[[sha256.Size]byte]*manager.Access{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 2 {
			return nil, fmt.Errorf("clientapitokens %s line %d: want a token and at most one comma-separated list of keys", path, n)
		}
		if len(fields[0]) < MinTokenLength {
			return nil, fmt.Errorf("clientapitokens %s line %d: a token must have at least %d characters", path, n, MinTokenLength)
		}
		var scope []keys.PublicKey
		if len(fields) == 2 {
			for _, s := range strings.Split(fields[1], ",") {
				k, err := keys.ParsePublicKey(s)
				if err != nil {
					return nil, fmt.Errorf("clientapitokens %s line %d: key %q: %w", path, n, s, err)
				}
				if !hosted(k) {
					return nil, fmt.Errorf("clientapitokens %s line %d: key %s is not hosted here (publickeys)", path, n, k)
				}
				scope = append(scope, k)
			}
		}
		h := sha256.Sum256([]byte(fields[0]))
		if _, dup := t.byHash[h]; dup {
			return nil, fmt.Errorf("clientapitokens %s line %d: the same token appears twice", path, n)
		}
		t.byHash[h] = manager.NewAccess(scope)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("clientapitokens %s: %w", path, err)
	}
	if len(t.byHash) == 0 {
		return nil, fmt.Errorf("clientapitokens %s: no token", path)
	}
	return t, nil
}

// Len returns the number of tokens (0 for nil).
func (t *Tokens) Len() int {
	if t == nil {
		return 0
	}
	return len(t.byHash)
}

// lookup returns the access of a token.
func (t *Tokens) lookup(token string) (*manager.Access, bool) {
	a, ok := t.byHash[sha256.Sum256([]byte(token))]
	return a, ok
}

// authenticate requires "Authorization: Bearer <token>" on every route but
// GET /upcheck (health checks), answering 401 Unauthorized without a valid
// token, and limits the request to the token's keys.
func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.Tokens == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/upcheck" {
			next.ServeHTTP(w, r)
			return
		}
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		access, ok := s.Tokens.lookup(strings.TrimSpace(token))
		if !strings.EqualFold(scheme, "Bearer") || !ok {
			s.log().Warn("client API request without a valid token", "path", r.URL.Path, "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="basalt-privacy"`)
			ptm.WriteError(w, http.StatusUnauthorized, ptm.Unauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(manager.WithAccess(r.Context(), access)))
	})
}
