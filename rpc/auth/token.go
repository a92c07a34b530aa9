package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// Claims are the claims of a JSON-RPC token (Besu's).
type Claims struct {
	// Username is the user the token was issued to.
	Username string `json:"username,omitempty"`
	// Permissions are the permission strings granted (see Permitted).
	Permissions []string `json:"permissions"`
	// PrivacyPublicKey is the user's privacy public key, if any.
	PrivacyPublicKey string `json:"privacyPublicKey,omitempty"`
	jwt.RegisteredClaims
}

// DefaultAlgorithm is the signing algorithm of issued tokens and the
// default for external public keys (--rpc-http-authentication-jwt-algorithm).
const DefaultAlgorithm = "RS256"

// Algorithms are the algorithms an external public key may verify, as
// Besu's JwtAlgorithm lists them, less HS256 (a shared secret is not a
// public key).
var Algorithms = []string{"RS256", "RS384", "RS512", "ES256", "ES384", "ES512"}

// signingMethod returns the jwt method of a supported algorithm name.
func signingMethod(alg string) (jwt.SigningMethod, error) {
	switch strings.ToUpper(alg) {
	case "", "RS256":
		return jwt.SigningMethodRS256, nil
	case "RS384":
		return jwt.SigningMethodRS384, nil
	case "RS512":
		return jwt.SigningMethodRS512, nil
	case "ES256":
		return jwt.SigningMethodES256, nil
	case "ES384":
		return jwt.SigningMethodES384, nil
	case "ES512":
		return jwt.SigningMethodES512, nil
	}
	return nil, fmt.Errorf("unsupported JWT algorithm %q (supported: %s)", alg, strings.Join(Algorithms, ", "))
}

// LoadPublicKey reads a PEM public key ("-----BEGIN PUBLIC KEY-----", or
// "-----BEGIN RSA PUBLIC KEY-----") for verifying tokens signed with alg
// ("" means RS256), and checks that it suits alg: an RSA key for RS*, a
// P-256, P-384 or P-521 key for ES256, ES384, ES512.
func LoadPublicKey(path, alg string) (crypto.PublicKey, error) {
	m, err := signingMethod(alg)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read public key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("public key file %s: no PEM block (expected -----BEGIN PUBLIC KEY-----)", path)
	}
	var key crypto.PublicKey
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	default:
		return nil, fmt.Errorf("public key file %s: PEM block %q is not a public key (expected -----BEGIN PUBLIC KEY-----)", path, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("public key file %s: %v", path, err)
	}
	if err := keySuits(key, m.Alg()); err != nil {
		return nil, fmt.Errorf("public key file %s: %v", path, err)
	}
	return key, nil
}

// keySuits checks that key can verify tokens signed with alg.
func keySuits(key crypto.PublicKey, alg string) error {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if strings.HasPrefix(alg, "RS") {
			return nil
		}
		return fmt.Errorf("an RSA key cannot verify %s tokens (use RS256, RS384 or RS512)", alg)
	case *ecdsa.PublicKey:
		want := map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()}[alg]
		if want == nil {
			return fmt.Errorf("an EC key cannot verify %s tokens (use ES256, ES384 or ES512)", alg)
		}
		if k.Curve != want {
			return fmt.Errorf("%s needs a %s key, this one is on %s", alg, want.Params().Name, k.Curve.Params().Name)
		}
		return nil
	}
	return fmt.Errorf("unsupported key type %T", key)
}

// failure is why a token was refused, in words that reveal nothing of the
// token (authentication failures are logged with it).
func failure(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed token"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return "bad signature or algorithm"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "token expired"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "required claim missing"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "token for another endpoint"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		return "token not valid yet"
	}
	return "invalid token"
}
