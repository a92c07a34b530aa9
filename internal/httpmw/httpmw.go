// Package httpmw holds the HTTP middleware shared by Basalt's servers
// (JSON-RPC, GraphQL, the privacy manager and the signer): a Host header
// allowlist, CORS and a request body limit. Each is a Middleware that wraps an
// http.Handler without knowing what it serves; Chain composes them.
package httpmw

import "net/http"

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain wraps h in the middleware, the first one outermost: Chain(h, a, b)
// is a(b(h)), so a request passes a, then b, then reaches h.
func Chain(h http.Handler, mw ...Middleware) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		if mw[i] != nil {
			h = mw[i](h)
		}
	}
	return h
}

// writeMessage answers with status and the JSON body {"message":msg}, the
// shape Besu uses for its transport-level refusals.
func writeMessage(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
