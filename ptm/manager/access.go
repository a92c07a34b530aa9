package manager

import (
	"context"
	"slices"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
)

// Access is what a client API caller may act as: the hosted keys it may
// send from, receive as, and manage privacy groups of. It is how a tenant's
// token (client API authentication) is confined to the tenant's keys. A nil
// *Access allows every hosted key.
type Access struct {
	keys []keys.PublicKey
}

// NewAccess returns an Access limited to ks (in order: the first is the
// default sender of a /send without from). Empty ks allow every key.
func NewAccess(ks []keys.PublicKey) *Access {
	if len(ks) == 0 {
		return nil
	}
	return &Access{keys: slices.Clone(ks)}
}

// Keys returns the keys allowed; nil when all are.
func (a *Access) Keys() []keys.PublicKey {
	if a == nil {
		return nil
	}
	return a.keys
}

// Allows reports whether the caller may act as k.
func (a *Access) Allows(k keys.PublicKey) bool {
	return a == nil || slices.Contains(a.keys, k)
}

// AllowsAny reports whether the caller may act as one of ks.
func (a *Access) AllowsAny(ks []keys.PublicKey) bool {
	return a == nil || slices.ContainsFunc(ks, a.Allows)
}

type accessKey struct{}

// WithAccess returns a context whose manager calls are limited to a. The
// client API sets it once per request, after authentication, so that every
// operation below checks the same thing.
func WithAccess(ctx context.Context, a *Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// AccessOf returns the Access of a context (nil: everything).
func AccessOf(ctx context.Context) *Access {
	a, _ := ctx.Value(accessKey{}).(*Access)
	return a
}

// allow fails with Forbidden unless the context's caller may act as k.
func (m *Manager) allow(ctx context.Context, k keys.PublicKey) error {
	if !AccessOf(ctx).Allows(k) {
		return ptm.Errorf(ptm.Forbidden, "this client may not act as %s", k)
	}
	return nil
}
