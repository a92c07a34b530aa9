package auth

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// TokenLifetime is how long an issued token is valid (Besu: 5 minutes).
const TokenLifetime = 5 * time.Minute

// signingKeyBits is the size of the RSA key generated at start (Besu's).
const signingKeyBits = 2048

// Config configures the authentication of one endpoint. Exactly one of
// Credentials and PublicKey is set.
type Config struct {
	// Credentials turns on credentials mode: POST /login checks them and
	// issues RS256 tokens signed with SigningKey.
	Credentials *Credentials

	// PublicKey turns on public-key mode: tokens are issued elsewhere and
	// verified with this key (see LoadPublicKey); /login is off.
	PublicKey crypto.PublicKey
	// Algorithm is the algorithm PublicKey verifies; "" means RS256.
	Algorithm string

	// Audience is the endpoint's audience claim ("rpc-http", "rpc-ws"),
	// put in the tokens it issues and required of the tokens it accepts in
	// credentials mode, so a token of one endpoint is refused by another.
	// Required in credentials mode.
	Audience string

	// SigningKey signs issued tokens; nil generates an RSA-2048 key (as
	// Besu does at every start). Tests pass one to save the generation.
	SigningKey *rsa.PrivateKey

	// Logins bounds the password checks (see LoginLimiter); nil gives the
	// service a limiter of its own with the defaults.
	Logins *LoginLimiter

	// Now is the clock for issuing and checking tokens; nil is time.Now.
	Now func() time.Time

	// Logger receives debug messages on refused tokens and logins (never a
	// token or a password); nil is slog.Default().
	Logger *slog.Logger
}

// Service is the authentication of one JSON-RPC endpoint. It is the
// endpoint's rpc.Authorizer and provides the /login handler and the
// middleware that reads bearer tokens. It is safe for concurrent use.
type Service struct {
	creds    *Credentials
	signKey  *rsa.PrivateKey
	audience string
	parser   *jwt.Parser
	key      any // verifies tokens
	logins   *LoginLimiter
	now      func() time.Time
	log      *slog.Logger

	// Seams for tests: bcrypt's comparison, and the hash an unknown
	// user's password is compared with.
	passwordMatches func(hash []byte, password string) bool
	dummyHash       []byte
}

// NewService builds the authentication of an endpoint.
func NewService(cfg Config) (*Service, error) {
	s := &Service{creds: cfg.Credentials, audience: cfg.Audience, logins: cfg.Logins, now: cfg.Now, log: cfg.Logger,
		passwordMatches: passwordMatches, dummyHash: dummyHash}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.logins == nil {
		s.logins = NewLoginLimiter(0, 0, 0)
	}
	// One parser serves both modes and both the HTTP and the WebSocket
	// middleware, so every option here holds for every token the endpoint
	// sees.
	opts := []jwt.ParserOption{
		jwt.WithExpirationRequired(), // Besu refuses tokens without exp
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(func() time.Time { return s.now() }),
		// Base64url leaves unused low bits in the last character of a
		// segment whose length is not a multiple of 3 bytes; a lenient
		// decoder ignores them, so one signed token would have several
		// spellings that all verify (the signature segment is not covered
		// by the signature). Strict decoding requires them to be zero, as
		// every encoder writes them: a token has exactly one spelling, so
		// anything that compares, caches or revokes tokens as strings sees
		// the token the signer made.
		jwt.WithStrictDecoding(),
	}
	switch {
	case cfg.Credentials != nil && cfg.PublicKey != nil:
		return nil, errors.New("auth: a credentials file and a public key can't be used together")
	case cfg.Credentials != nil:
		if cfg.Audience == "" {
			return nil, errors.New("auth: an audience is required in credentials mode")
		}
		s.signKey = cfg.SigningKey
		if s.signKey == nil {
			k, err := rsa.GenerateKey(rand.Reader, signingKeyBits)
			if err != nil {
				return nil, fmt.Errorf("auth: generate token signing key: %w", err)
			}
			s.signKey = k
		}
		s.key = &s.signKey.PublicKey
		opts = append(opts, jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}), jwt.WithAudience(cfg.Audience))
	case cfg.PublicKey != nil:
		m, err := signingMethod(cfg.Algorithm)
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		if err := keySuits(cfg.PublicKey, m.Alg()); err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		s.key = cfg.PublicKey
		opts = append(opts, jwt.WithValidMethods([]string{m.Alg()}))
	default:
		return nil, errors.New("auth: a credentials file or a public key is required")
	}
	s.parser = jwt.NewParser(opts...)
	return s, nil
}

// Issue returns a token for u, valid for TokenLifetime from now, signed
// with the service's key. It fails in public-key mode, which has no key to
// sign with.
func (s *Service) Issue(u *User) (string, error) {
	if s.signKey == nil {
		return "", errors.New("auth: tokens are issued externally (public-key mode)")
	}
	now := s.now().Truncate(time.Second) // so exp - iat is exactly the lifetime
	perms := u.Permissions
	if perms == nil {
		perms = []string{}
	}
	c := Claims{
		Username:         u.Name,
		Permissions:      perms,
		PrivacyPublicKey: u.PrivacyPublicKey,
		RegisteredClaims: jwt.RegisteredClaims{
			Audience:  jwt.ClaimStrings{s.audience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(TokenLifetime)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodRS256, c).SignedString(s.signKey)
}

// Verify checks a token's algorithm, signature, expiry (and, in
// credentials mode, audience) and returns its claims.
func (s *Service) Verify(token string) (*Claims, error) {
	c := new(Claims)
	if _, err := s.parser.ParseWithClaims(token, c, func(*jwt.Token) (any, error) { return s.key, nil }); err != nil {
		return nil, err
	}
	return c, nil
}

// session is an authenticated caller in a request's context.
type session struct {
	by      *Service // the service that verified the token
	caller  rpc.Caller
	expires time.Time
}

type sessionKey struct{}

// authenticate verifies a bearer token and returns ctx with the caller (for
// Authorize, and rpc.CallerFrom for methods), or ctx unchanged if the
// token is refused.
func (s *Service) authenticate(ctx context.Context, token string) context.Context {
	c, err := s.Verify(token)
	if err != nil {
		s.log.Debug("JSON-RPC token refused", "audience", s.audience, "reason", failure(err))
		return ctx
	}
	sess := &session{
		by:      s,
		caller:  rpc.Caller{User: c.Username, Permissions: c.Permissions, PrivacyPublicKey: c.PrivacyPublicKey},
		expires: c.ExpiresAt.Time,
	}
	ctx = context.WithValue(ctx, sessionKey{}, sess)
	return rpc.WithCaller(ctx, &sess.caller)
}

// Authorize implements rpc.Authorizer: the request's token must have been
// verified by this service, must not have expired since (a WebSocket
// connection keeps the token of its upgrade request, so it is checked
// again for every message, as Besu does) and must grant method.
func (s *Service) Authorize(ctx context.Context, method string) bool {
	sess, _ := ctx.Value(sessionKey{}).(*session)
	if sess == nil || sess.by != s || !s.now().Before(sess.expires) {
		return false
	}
	return Permitted(sess.caller.Permissions, method)
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header (exactly that prefix, as Besu reads it) and whether there was one.
func bearerToken(r *http.Request) (string, bool) {
	return strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// HTTPMiddleware is the JSON-RPC HTTP handler's authentication (for
// rpc.HTTPConfig.RPCMiddleware): a request without a bearer token is
// answered at once, before its body is read, with HTTP 401 and -40100 with
// a null id (Besu's); otherwise the caller of a valid token is put in the
// context and every request is left to Authorize, so a bad or expired
// token gets -40100 per request, with its id.
func (s *Service) HTTPMiddleware() httpmw.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := bearerToken(r)
			if !ok {
				rpc.WriteError(w, http.StatusUnauthorized, rpctypes.ErrUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(s.authenticate(r.Context(), token)))
		})
	}
}

// WSMiddleware is the WebSocket upgrade's authentication (for
// rpc.WSConfig.Middleware): the token of the upgrade request's
// Authorization header, if valid, makes its caller the caller of every
// message of the connection. As in Besu the upgrade itself is never
// refused: without a valid token every message is answered -40100.
func (s *Service) WSMiddleware() httpmw.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if token, ok := bearerToken(r); ok {
				r = r.WithContext(s.authenticate(r.Context(), token))
			}
			next.ServeHTTP(w, r)
		})
	}
}

var _ rpc.Authorizer = (*Service)(nil)
