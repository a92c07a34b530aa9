package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/basaltchain/basalt/rpc"
)

// sign makes a token with the given method, key and claims.
func sign(t testing.TB, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// segments splits a token and decodes its payload.
func payload(t testing.TB, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withPayload returns token with its payload replaced by claims (the
// signature left as it was).
func withPayload(token string, claims map[string]any) string {
	parts := strings.Split(token, ".")
	b, _ := json.Marshal(claims)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
}

func pemPublicKey(t testing.TB, key any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func TestIssuedToken(t *testing.T) {
	clk := newClock()
	clk.Advance(700 * time.Millisecond) // iat and exp are whole seconds
	svc := credentialsService(t, "rpc-http", 0, clk, nil)
	creds := svc.creds
	u, _ := creds.lookup("eth")
	tok, err := svc.Issue(u)
	if err != nil {
		t.Fatal(err)
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if !strings.Contains(string(hdr), `"alg":"RS256"`) {
		t.Errorf("header %s", hdr)
	}
	p := payload(t, tok)
	iat, exp := p["iat"].(float64), p["exp"].(float64)
	if p["username"] != "eth" || p["privacyPublicKey"] != "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=" ||
		iat != float64(clk.Now().Unix()) || exp-iat != 300 {
		t.Errorf("claims %v", p)
	}
	if perms, _ := p["permissions"].([]any); len(perms) != 1 || perms[0] != "eth:*" {
		t.Errorf("permissions %v", p["permissions"])
	}
	if _, ok := p["password"]; ok {
		t.Error("password in the token")
	}
	c, err := svc.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if c.Username != "eth" || len(c.Permissions) != 1 {
		t.Errorf("verified claims %+v", c)
	}
	// A user with no permissions gets an empty list, not null.
	u, _ = creds.lookup("none")
	tok, _ = svc.Issue(u)
	if perms, ok := payload(t, tok)["permissions"].([]any); !ok || len(perms) != 0 {
		t.Errorf("permissions of user none: %v", payload(t, tok)["permissions"])
	}
}

// TestRefusedTokens: every token that is not exactly what the service
// issues is refused.
func TestRefusedTokens(t *testing.T) {
	clk := newClock()
	svc := credentialsService(t, "rpc-http", 0, clk, nil)
	u, _ := svc.creds.lookup("one")
	good, err := svc.Issue(u)
	if err != nil {
		t.Fatal(err)
	}
	key := testKeys()[0]
	now := clk.Now().Unix()
	claims := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"username": "one", "permissions": []string{"*:*"}, "aud": []string{"rpc-http"}, "iat": now, "exp": now + 300}
		if mod != nil {
			mod(c)
		}
		return c
	}
	p := payload(t, good)
	p["permissions"] = []string{"*:*"}
	tampered := withPayload(good, p)
	parts := strings.Split(good, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[len(sig)/2] ^= 1
	sigFlipped := parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
	hs256 := sign(t, jwt.SigningMethodHS256, []byte(pemPublicKey(t, &key.PublicKey)), claims(nil)) // algorithm confusion
	none := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil))
	const (
		malformed = "malformed token"
		badSig    = "bad signature or algorithm"
		missing   = "required claim missing"
		notYet    = "token not valid yet"
	)
	cases := []struct{ name, token, reason string }{
		{"empty", "", malformed},
		{"garbage", "not.a.token", malformed},
		{"tampered payload", tampered, badSig},
		{"tampered signature", sigFlipped, badSig},
		{"alg none", none, badSig},
		{"alg none, no signature", strings.TrimSuffix(none, "."), malformed},
		{"HS256 keyed with the public key", hs256, badSig},
		{"other key", sign(t, jwt.SigningMethodRS256, testKeys()[1], claims(nil)), badSig},
		{"RS512, same key", sign(t, jwt.SigningMethodRS512, key, claims(nil)), badSig},
		{"other audience", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["aud"] = "rpc-ws" })), "token for another endpoint"},
		{"no audience", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { delete(c, "aud") })), missing},
		{"no exp", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { delete(c, "exp") })), missing},
		{"expired", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["exp"] = now })), "token expired"},
		{"issued in the future", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["iat"] = now + 10 })), notYet},
		{"not valid yet", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["nbf"] = now + 10 })), notYet},
		{"exp not a number", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["exp"] = "tomorrow" })), malformed},
		{"permissions a string", sign(t, jwt.SigningMethodRS256, key, claims(func(c jwt.MapClaims) { c["permissions"] = "*:*" })), malformed},
	}
	for _, tc := range cases {
		c, err := svc.Verify(tc.token)
		if err == nil {
			t.Errorf("%s: accepted, claims %+v", tc.name, c)
		} else if got := failure(err); got != tc.reason {
			t.Errorf("%s: refused as %q (%v), want %q", tc.name, got, err, tc.reason)
		}
		ctx := svc.authenticate(context.Background(), tc.token)
		if svc.Authorize(ctx, "eth_blockNumber") || rpc.CallerFrom(ctx) != nil {
			t.Errorf("%s: authorized", tc.name)
		}
	}
	// The same claims, properly signed, pass: the cases above fail for the
	// reason they name.
	if _, err := svc.Verify(sign(t, jwt.SigningMethodRS256, key, claims(nil))); err != nil {
		t.Errorf("well-formed token refused: %v", err)
	}
}

// respell returns seg, an unpadded base64url segment, with the unused low
// bits of its last character flipped, and false when the segment's length
// leaves no such bits. A lenient decoder reads the result as the same bytes.
func respell(seg string) (string, bool) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var unused uint
	switch len(seg) % 4 {
	case 2: // 1 byte in 2 characters
		unused = 4
	case 3: // 2 bytes in 3 characters
		unused = 2
	default:
		return seg, false
	}
	v := strings.IndexByte(alphabet, seg[len(seg)-1])
	return seg[:len(seg)-1] + string(alphabet[v^(1<<unused-1)]), true
}

// respellings returns, for each segment of token whose length leaves
// unused bits (named "header", "payload", "signature"), token with that
// segment respelled. It fails the test unless the lenient decoder reads
// each respelled segment as the original bytes, i.e. unless the respelling
// is one the old decoding accepted.
func respellings(t *testing.T, token string) map[string]string {
	t.Helper()
	parts := strings.Split(token, ".")
	out := map[string]string{}
	for i, name := range []string{"header", "payload", "signature"} {
		seg, ok := respell(parts[i])
		if !ok {
			continue
		}
		want, err1 := base64.RawURLEncoding.DecodeString(parts[i])
		got, err2 := base64.RawURLEncoding.DecodeString(seg)
		if err1 != nil || err2 != nil || string(got) != string(want) || seg == parts[i] {
			t.Fatalf("%s: respelling %q is not the same bytes as %q (%v, %v)", name, seg, parts[i], err1, err2)
		}
		p := slices.Clone(parts)
		p[i] = seg
		out[name] = strings.Join(p, ".")
	}
	return out
}

// signRespellable signs claims with a key id in the header and a jti claim
// as long as it takes for the header's and the payload's encodings to leave
// unused bits, so that every segment of the token can be respelled.
func signRespellable(t *testing.T, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	for pad := range 3 {
		claims["jti"] = strings.Repeat("x", pad)
		tok := jwt.NewWithClaims(m, claims)
		tok.Header["kid"] = "k"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		if len(respellings(t, s)) == 3 {
			return s
		}
	}
	t.Fatal("no claims length leaves unused bits in every segment")
	return ""
}

// TestRespelledTokens: a token is valid in one spelling only. Changing the
// unused low bits of a segment's last character keeps the decoded bytes,
// and for the signature segment (which the signature does not cover) the
// lenient decoder accepted the result as the same token; strict decoding
// refuses it as malformed, in both modes, over HTTP (401) and WebSocket.
func TestRespelledTokens(t *testing.T) {
	clk := newClock()
	now := clk.Now().Unix()
	svc := credentialsService(t, "rpc-http", 0, clk, nil)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pub, err := NewService(Config{PublicKey: &ec.PublicKey, Algorithm: "ES256", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := svc.creds.lookup("admin")
	issued, err := svc.Issue(u)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := respellings(t, issued)["signature"]; !ok {
		t.Fatal("an RS256 signature leaves no unused bits (256 bytes should)")
	}
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"permissions": []string{"*:*"}, "aud": "rpc-http", "iat": now, "exp": now + 60}
	}
	for _, tc := range []struct {
		name  string
		svc   *Service
		token string
	}{
		{"issued RS256", svc, issued},
		{"RS256, every segment", svc, signRespellable(t, jwt.SigningMethodRS256, testKeys()[0], claims())},
		{"external ES256", pub, signRespellable(t, jwt.SigningMethodES256, ec, claims())},
	} {
		if _, err := tc.svc.Verify(tc.token); err != nil {
			t.Fatalf("%s: the token itself is refused: %v", tc.name, err)
		}
		for seg, tok := range respellings(t, tc.token) {
			c, err := tc.svc.Verify(tok)
			if err == nil {
				t.Errorf("%s, %s respelled: accepted, claims %+v", tc.name, seg, c)
			} else if got := failure(err); got != "malformed token" {
				t.Errorf("%s, %s respelled: refused as %q (%v), want malformed token", tc.name, seg, got, err)
			}
			ctx := tc.svc.authenticate(context.Background(), tok)
			if tc.svc.Authorize(ctx, "eth_blockNumber") || rpc.CallerFrom(ctx) != nil {
				t.Errorf("%s, %s respelled: authorized", tc.name, seg)
			}
		}
	}

	// Through the endpoint: a token from /login works; respelled it gets
	// 401 -40100 over HTTP and -40100 for every WebSocket message.
	ep := serve(t, svc)
	tok := login(t, ep.httpURL+"/login", "admin", "pegasys")
	respelled := respellings(t, tok)["signature"]
	if r := call(t, ep.httpURL, tok, "eth_blockNumber"); r.status != http.StatusOK || !strings.Contains(r.body, `"result"`) {
		t.Fatalf("HTTP, token from /login: %d %s", r.status, r.body)
	}
	if r := call(t, ep.httpURL, respelled, "eth_blockNumber"); r.status != http.StatusUnauthorized || r.body != unauthorized7 {
		t.Errorf("HTTP, respelled token: %d %s, want 401 -40100", r.status, r.body)
	}
	if got := dialWS(t, ep.wsURL, tok).call("eth_blockNumber"); !strings.Contains(got, `"result"`) {
		t.Errorf("WebSocket, token from /login: %s", got)
	}
	if got := dialWS(t, ep.wsURL, respelled).call("eth_blockNumber"); got != unauthorized7 {
		t.Errorf("WebSocket, respelled token: %s, want -40100", got)
	}
}

// TestExpiry drives the clock past the 5 minutes.
func TestExpiry(t *testing.T) {
	clk := newClock()
	svc := credentialsService(t, "rpc-http", 0, clk, nil)
	u, _ := svc.creds.lookup("admin")
	tok, _ := svc.Issue(u)
	ctx := svc.authenticate(context.Background(), tok)
	clk.Advance(TokenLifetime - time.Second)
	if !svc.Authorize(ctx, "eth_blockNumber") {
		t.Fatal("refused before expiry")
	}
	clk.Advance(time.Second)
	if svc.Authorize(ctx, "eth_blockNumber") {
		t.Fatal("authorized at expiry (a session verified earlier)")
	}
	if _, err := svc.Verify(tok); err == nil {
		t.Fatal("verified at expiry")
	}
}

func TestPublicKeyMode(t *testing.T) {
	clk := newClock()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	path := writeFile(t, "key.pem", pemPublicKey(t, &ec.PublicKey))
	pub, err := LoadPublicKey(path, "ES256")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(Config{PublicKey: pub, Algorithm: "ES256", Audience: "rpc-http", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	now := clk.Now().Unix()
	good := jwt.MapClaims{"permissions": []string{"net:*"}, "exp": now + 60} // externally issued: no aud, no iat
	ctx := svc.authenticate(context.Background(), sign(t, jwt.SigningMethodES256, ec, good))
	if !svc.Authorize(ctx, "net_version") || svc.Authorize(ctx, "eth_blockNumber") {
		t.Error("external ES256 token: wrong authorization")
	}
	// Any audience is accepted: the token was not issued by this endpoint.
	if _, err := svc.Verify(sign(t, jwt.SigningMethodES256, ec, jwt.MapClaims{"permissions": []string{}, "exp": now + 60, "aud": "elsewhere"})); err != nil {
		t.Errorf("external token with an audience: %v", err)
	}
	// Without permissions a valid token may call nothing.
	ctx = svc.authenticate(context.Background(), sign(t, jwt.SigningMethodES256, ec, jwt.MapClaims{"exp": now + 60}))
	if rpc.CallerFrom(ctx) == nil || svc.Authorize(ctx, "net_version") {
		t.Error("token without permissions")
	}
	for name, tok := range map[string]string{
		"other key": sign(t, jwt.SigningMethodES256, other, good),
		"RS256":     sign(t, jwt.SigningMethodRS256, testKeys()[0], good),
		"no exp":    sign(t, jwt.SigningMethodES256, ec, jwt.MapClaims{"permissions": []string{"*:*"}}),
		"expired":   sign(t, jwt.SigningMethodES256, ec, jwt.MapClaims{"permissions": []string{"*:*"}, "exp": now - 1}),
	} {
		if _, err := svc.Verify(tok); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// There is nothing to sign with, so no /login and no Issue.
	if _, err := svc.Issue(&User{Name: "x"}); err == nil {
		t.Error("Issue in public-key mode")
	}

	// RS256 with an RSA key, PKIX or PKCS#1.
	rsaKey := testKeys()[1]
	for _, p := range []string{
		pemPublicKey(t, &rsaKey.PublicKey),
		string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)})),
	} {
		pub, err := LoadPublicKey(writeFile(t, "rsa.pem", p), "")
		if err != nil {
			t.Fatal(err)
		}
		svc, err := NewService(Config{PublicKey: pub, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Verify(sign(t, jwt.SigningMethodRS256, rsaKey, good)); err != nil {
			t.Errorf("RS256 external token: %v", err)
		}
	}
}

func TestLoadPublicKeyErrors(t *testing.T) {
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaPEM := pemPublicKey(t, &testKeys()[0].PublicKey)
	cases := []struct{ name, content, alg, want string }{
		{"not PEM", "hello", "", "no PEM block (expected -----BEGIN PUBLIC KEY-----)"},
		{"private key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "", `PEM block "PRIVATE KEY" is not a public key`},
		{"bad DER", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "", "public key file"},
		{"RSA for ES256", rsaPEM, "ES256", "an RSA key cannot verify ES256 tokens"},
		{"EC for RS256", pemPublicKey(t, &ec384.PublicKey), "RS256", "an EC key cannot verify RS256 tokens"},
		{"P-384 for ES256", pemPublicKey(t, &ec384.PublicKey), "ES256", "ES256 needs a P-256 key, this one is on P-384"},
		{"HS256", rsaPEM, "HS256", `unsupported JWT algorithm "HS256"`},
		{"none", rsaPEM, "none", `unsupported JWT algorithm "none"`},
	}
	for _, tc := range cases {
		_, err := LoadPublicKey(writeFile(t, "k.pem", tc.content), tc.alg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := LoadPublicKey("/nonexistent.pem", ""); err == nil || !strings.Contains(err.Error(), "/nonexistent.pem") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadPublicKey(writeFile(t, "k.pem", pemPublicKey(t, &ec384.PublicKey)), "es384"); err != nil {
		t.Errorf("ES384 (lower case): %v", err)
	}
}

func TestNewServiceErrors(t *testing.T) {
	creds, _ := LoadCredentials(writeFile(t, "a.toml", credentialsTOML(fastHash)))
	for name, cfg := range map[string]Config{
		"neither":     {Audience: "a"},
		"both":        {Credentials: creds, PublicKey: &testKeys()[0].PublicKey, Audience: "a"},
		"no audience": {Credentials: creds, SigningKey: testKeys()[0]},
		"key vs alg":  {PublicKey: &testKeys()[0].PublicKey, Algorithm: "ES256"},
	} {
		if _, err := NewService(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkAuthenticate is the cost authentication adds to an HTTP request:
// verifying an RS256 token, then authorizing a method.
func BenchmarkAuthenticate(b *testing.B) {
	svc := credentialsService(b, "rpc-http", 0, newClock(), nil)
	u, _ := svc.creds.lookup("one")
	tok, err := svc.Issue(u)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if !svc.Authorize(svc.authenticate(ctx, tok), "eth_blockNumber") {
			b.Fatal("refused")
		}
	}
}
