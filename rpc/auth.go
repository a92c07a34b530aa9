package rpc

import "context"

// Authorizer decides whether the caller of a request may call a method. The
// server consults it for every request, and for every request of a batch
// separately, after the method has been resolved and found enabled; a refusal
// answers -40100 "Unauthorized" (HTTP 401 for a single request). The caller's
// identity comes from ctx (see CallerFrom), put there by transport
// middleware such as a JWT check.
type Authorizer interface {
	Authorize(ctx context.Context, method string) bool
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, method string) bool

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, method string) bool {
	return f(ctx, method)
}

// Caller is the authenticated identity behind a request, as established by
// the transport (for example from a JWT's claims).
type Caller struct {
	// User is the user name ("username" claim), empty if unknown.
	User string
	// Permissions are the permission strings granted, e.g. "eth:*",
	// "net:peerCount", "*:*".
	Permissions []string
	// PrivacyPublicKey is the optional "privacyPublicKey" claim.
	PrivacyPublicKey string
}

type callerKey struct{}

// WithCaller returns a context carrying c, for middleware that authenticated
// the request.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller stored by WithCaller, or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}
