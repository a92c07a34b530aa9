// Package httpcall is the plumbing every HTTP client of Basalt repeats: a
// checked base URL, a transport for one service, a path joined onto the
// base, a request with a JSON (or other) body sent and its answer read
// into memory with a bound, and a non-2xx status turned into an error with
// a short text. The node's privacy manager clients, the privacy manager's
// node API client, the signer's clients of its node, of Tessera and of
// Vault, and the load generator share it, so that each keeps only what is
// its own: its timeouts, its retries, its error types.
//
// It imports only the standard library (a leaf: test/layers checks it).
package httpcall
