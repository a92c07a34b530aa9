// Package conformance holds the tests that replay Besu's own JSON-RPC spec
// fixtures (../shared/conformance/besu) against a real basalt process. It
// has no code of its own.
package conformance
