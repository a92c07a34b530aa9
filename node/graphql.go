package node

import (
	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/graphql"
)

// graphQLServer owns the GraphQL HTTP listener (--graphql-http-enabled).
type graphQLServer struct {
	n    *Node
	http *listener // nil when disabled
}

// newGraphQLServer builds the GraphQL service on the node's services: the
// chain, the pool and a JSON-RPC backend for calls, submissions, gas
// prices and log queries.
func newGraphQLServer(n *Node) (*graphQLServer, error) {
	s := &graphQLServer{n: n}
	cfg := n.cfg.GraphQL
	if !cfg.HTTPEnabled {
		return s, nil
	}
	backend := &api.Backend{
		Chain:         n.chain,
		Pool:          n.pool,
		Miner:         n.miner,
		NetworkID:     n.cfg.NetworkID,
		ClientVersion: n.clientID(),
		MinGasPrice:   n.cfg.MinGasPrice,
		// Log queries only read the chain; this log service is never
		// started (it serves no filters or subscriptions).
		Filters: filters.New(n.chain, nil, filters.Config{MaxLogsRange: n.cfg.RPC.MaxLogsRange, Logger: n.log}),
	}
	n.tuneBackend(backend)
	svc, err := graphql.New(backend, graphql.Config{Pool: n.pool, Logger: n.log})
	if err != nil {
		return nil, err
	}
	s.http = &listener{frontEnd: "GraphQL", name: "HTTP", host: cfg.HTTPHost, port: cfg.HTTPPort, handler: graphql.NewHTTPHandler(svc, graphql.HTTPConfig{
		HostAllowlist: n.cfg.HostAllowlist,
		CORSOrigins:   cfg.HTTPCORSOrigins,
	})}
	return s, nil
}

func (s *graphQLServer) start() error {
	if s.http == nil {
		return nil
	}
	return s.http.start(s.n)
}

func (s *graphQLServer) stop() {
	if s == nil {
		return
	}
	s.http.stop()
}

// GraphQLAddr returns the GraphQL listener address ("" when disabled).
func (n *Node) GraphQLAddr() string {
	if n.graphql == nil {
		return ""
	}
	return n.graphql.http.addr()
}
