package node

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/rpc"
)

// rpcServers owns the JSON-RPC HTTP listener.
type rpcServers struct {
	n       *Node
	handler http.Handler
	srv     *http.Server
	ln      net.Listener
	done    chan struct{}
}

func newRPCServers(n *Node) (*rpcServers, error) {
	reg := rpc.NewRegistry()
	backend := &api.Backend{
		Chain:         n.chain,
		Pool:          n.pool,
		Miner:         n.miner,
		NetworkID:     n.cfg.NetworkID,
		ClientVersion: ClientVersion(),
		MinGasPrice:   n.cfg.MinGasPrice,
	}
	if n.pow != nil {
		backend.Hashrate = func() uint64 { return uint64(n.pow.Hashrate()) }
		backend.SubmitHashrate = n.pow.SubmitHashrate
	}
	if err := api.Register(reg, backend); err != nil {
		return nil, err
	}
	s := &rpcServers{n: n}
	if !n.cfg.RPC.HTTPEnabled {
		return s, nil
	}
	srv, err := rpc.NewServer(reg, rpc.Config{
		APIs:         n.cfg.RPC.HTTPAPIs,
		MaxBatchSize: n.cfg.RPC.HTTPMaxBatchSize,
		Logger:       n.log,
	})
	if err != nil {
		return nil, err
	}
	s.handler = rpc.NewHTTPHandler(srv, rpc.HTTPConfig{
		HostAllowlist: n.cfg.HostAllowlist,
		CORSOrigins:   n.cfg.RPC.HTTPCORSOrigins,
	})
	return s, nil
}

func (s *rpcServers) start() error {
	if s.handler == nil {
		return nil
	}
	cfg := s.n.cfg.RPC
	addr := net.JoinHostPort(cfg.HTTPHost, strconv.Itoa(cfg.HTTPPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("JSON-RPC HTTP server: listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.n.log.Error("JSON-RPC HTTP server failed", "err", err)
		}
	}()
	s.n.log.Info("JSON-RPC HTTP service started", "address", ln.Addr().String())
	return nil
}

func (s *rpcServers) stop() {
	if s == nil || s.srv == nil {
		return
	}
	s.srv.Close()
	<-s.done
	s.srv = nil
}

// HTTPAddr returns the JSON-RPC HTTP listener address ("" when disabled).
func (n *Node) HTTPAddr() string {
	if n.rpc == nil || n.rpc.ln == nil {
		return ""
	}
	return n.rpc.ln.Addr().String()
}
