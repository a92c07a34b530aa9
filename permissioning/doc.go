// Package permissioning holds the node's local permissioning: the accounts
// allowlist (who may send transactions through this node and into the
// blocks it builds) and the nodes allowlist (which nodes may be peers), read
// from the permissions TOML file (--permissions-*-config-file) and changed
// by the PERM JSON-RPC methods. No other package reads or writes that file.
//
// The transaction pool, the block builder and the peer-to-peer service ask
// the lists through Checker; only this package changes them.
//
// Persistence invariants (why a crash at any moment leaves a usable file):
//
//   - A change is written to a temporary file in the file's directory,
//     fsynced, renamed over the file, and the directory is fsynced; only
//     then is the in-memory list replaced and the change answered Success.
//     A crash before the rename leaves the old file, after it the new one:
//     the file always parses and holds either list.
//   - A write that fails leaves the in-memory list as it was
//     (ErrPersistFailure).
//   - A reload that finds an invalid file keeps both lists as they were
//     (ErrReload).
//
// The allowlist is local policy, not consensus: blocks imported from peers,
// sync or `blocks import` are never checked against it.
package permissioning
