package node

import "github.com/basaltchain/basalt/graphql"

// graphQLServer owns the GraphQL HTTP listener (--graphql-http-enabled).
type graphQLServer struct {
	n    *Node
	http *listener // nil when disabled
}

// newGraphQLServer builds the GraphQL service on the node's backend, the
// one JSON-RPC serves too.
func newGraphQLServer(n *Node) (*graphQLServer, error) {
	s := &graphQLServer{n: n}
	cfg := n.cfg.GraphQL
	if !cfg.HTTPEnabled {
		return s, nil
	}
	svc, err := graphql.New(n.backend, graphql.Config{Logger: n.log})
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
