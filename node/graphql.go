package node

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/graphql"
)

// graphQLServer owns the GraphQL HTTP listener (--graphql-http-enabled).
type graphQLServer struct {
	n       *Node
	handler http.Handler
	srv     *http.Server
	ln      net.Listener
	done    chan struct{}
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
		ClientVersion: ClientVersion(),
		MinGasPrice:   n.cfg.MinGasPrice,
		// Log queries only read the chain; this log service is never
		// started (it serves no filters or subscriptions).
		Filters: filters.New(n.chain, nil, filters.Config{MaxLogsRange: n.cfg.RPC.MaxLogsRange, Logger: n.log}),
	}
	svc, err := graphql.New(backend, graphql.Config{Pool: n.pool, Logger: n.log})
	if err != nil {
		return nil, err
	}
	s.handler = graphql.NewHTTPHandler(svc, graphql.HTTPConfig{
		HostAllowlist: n.cfg.HostAllowlist,
		CORSOrigins:   cfg.HTTPCORSOrigins,
	})
	return s, nil
}

func (s *graphQLServer) start() error {
	if s.handler == nil {
		return nil
	}
	cfg := s.n.cfg.GraphQL
	addr := net.JoinHostPort(cfg.HTTPHost, strconv.Itoa(cfg.HTTPPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("GraphQL HTTP server: listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.n.log.Error("GraphQL HTTP server failed", "err", err)
		}
	}()
	s.n.log.Info("GraphQL HTTP service started", "address", ln.Addr().String())
	return nil
}

func (s *graphQLServer) stop() {
	if s == nil || s.srv == nil {
		return
	}
	s.srv.Close()
	<-s.done
	s.srv = nil
}

// GraphQLAddr returns the GraphQL listener address ("" when disabled).
func (n *Node) GraphQLAddr() string {
	if n.graphql == nil || n.graphql.ln == nil {
		return ""
	}
	return n.graphql.ln.Addr().String()
}
