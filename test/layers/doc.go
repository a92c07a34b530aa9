// Package layers holds the test that keeps Basalt's package layers pointing
// up (DESIGN.md: nothing below a layer imports a layer above it): the
// consensus interface package and the leaf packages of shared vocabulary
// (JSON-RPC types, fee rules, the privacy group id, TLS trust) import
// nothing of Basalt's that would drag servers, the privacy manager or the
// node's services into the packages that use them; the node's services
// (backend) know no front end, and GraphQL resolves on them rather than on
// the JSON-RPC groups (api). The rules are checked
// on the module's real import graph, read with `go list`.
package layers
