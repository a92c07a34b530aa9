package node

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpc/auth"
)

// endpointAuth is the authentication of one JSON-RPC endpoint (HTTP or
// WebSocket); a nil *endpointAuth is authentication off, where /login
// answers 400 as in Besu.
type endpointAuth struct{ svc *auth.Service }

// newEndpointAuth reads the files of an endpoint's --rpc-<name>-authentication-*
// options; it returns nil when authentication is off. Errors name the
// option. audience (the endpoint name) keeps its tokens from being used on
// the other endpoint.
func newEndpointAuth(c config.AuthConfig, name string, logins *auth.LoginLimiter, log *slog.Logger) (*endpointAuth, error) {
	if !c.Enabled {
		return nil, nil
	}
	cfg := auth.Config{Audience: "rpc-" + name, Algorithm: c.JWTAlgorithm, Logins: logins, Logger: log}
	var err error
	switch {
	case c.CredentialsFile != "":
		if cfg.Credentials, err = auth.LoadCredentials(c.CredentialsFile); err != nil {
			return nil, fmt.Errorf("--rpc-%s-authentication-credentials-file: %w", name, err)
		}
	case c.JWTPublicKeyFile != "":
		if cfg.PublicKey, err = auth.LoadPublicKey(c.JWTPublicKeyFile, c.JWTAlgorithm); err != nil {
			return nil, fmt.Errorf("--rpc-%s-authentication-jwt-public-key-file: %w", name, err)
		}
	}
	svc, err := auth.NewService(cfg)
	if err != nil {
		return nil, err
	}
	return &endpointAuth{svc}, nil
}

// authorizer is the endpoint's rpc.Config.Authorizer (nil when off).
func (a *endpointAuth) authorizer() rpc.Authorizer {
	if a == nil {
		return nil
	}
	return a.svc
}

// routes serves POST /login on the endpoint's port.
func (a *endpointAuth) routes() map[string]http.Handler {
	if a == nil {
		return map[string]http.Handler{"/login": auth.DisabledLogin()}
	}
	return map[string]http.Handler{"/login": a.svc.Login()}
}

// httpMiddleware reads the bearer token of JSON-RPC HTTP requests.
func (a *endpointAuth) httpMiddleware() []httpmw.Middleware {
	if a == nil {
		return nil
	}
	return []httpmw.Middleware{a.svc.HTTPMiddleware()}
}

// wsMiddleware reads the bearer token of WebSocket upgrades.
func (a *endpointAuth) wsMiddleware() []httpmw.Middleware {
	if a == nil {
		return nil
	}
	return []httpmw.Middleware{a.svc.WSMiddleware()}
}

// warnUnauthenticated warns when JSON-RPC requires tokens but GraphQL, which
// serves some of the same data and accepts eth_sendRawTransaction's
// equivalent, has no authentication (as in Besu).
func warnUnauthenticated(cfg *config.Config, log *slog.Logger) {
	rpc := cfg.RPC
	if cfg.GraphQL.HTTPEnabled && ((rpc.HTTPEnabled && rpc.HTTPAuth.Enabled) || (rpc.WSEnabled && rpc.WSAuth.Enabled)) {
		log.Warn("GraphQL has no authentication: it answers without a token although JSON-RPC requires one",
			"graphql-http-enabled", true)
	}
}
