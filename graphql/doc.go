// Package graphql is the node's GraphQL front end: the EIP-1767 schema as
// Besu serves it, resolved on the node's one backend (backend.Backend, shared
// with JSON-RPC: state reads, calls, submissions, prices, logs, the pool,
// sync progress) and its chain store, and its HTTP endpoint
// (NewHTTPHandler). The backend's services answer domain errors, which
// errors.go maps to Besu's GraphQL errors in one place.
//
// Execution is graphql-go's (github.com/graph-gophers/graphql-go). Around
// it the package does what Besu's graphql-java setup does and graphql-go
// does not: it checks custom scalar literals and variables before running
// (graphql-go only checks them while unpacking arguments), words every
// error as graphql-java does ("Validation error (...)", "Exception while
// fetching data (/path) : ..."), and refuses queries above Besu's
// complexity limit (complexity.go). For that it parses each document once
// more with a small parser of its own (document.go), since graphql-go keeps
// its parser internal.
//
// docs/how-to/graphql.md describes the endpoint for users, with example queries.
package graphql
