// Package rpctypes holds the JSON-RPC vocabulary shared by the server (rpc),
// the node's method groups (api) and the consensus engines that serve groups
// of their own: error objects with Besu's codes and wording, API group names,
// the Group and Method tables a provider hands over for registration, and
// the parameter types read the way Besu reads them (BlockNumber, Address,
// Hash). It imports no Basalt package, so a package may describe its
// JSON-RPC methods without pulling in the server and its transports (as
// go-ethereum keeps rpc/errors.go and rpc/types.go apart from its server).
package rpctypes
