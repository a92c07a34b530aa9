package node

import (
	"net"
	"strconv"

	"github.com/basaltchain/basalt/backend"
)

// services answers net_services: the enabled JSON-RPC front ends and the
// metrics service, each with the host it was configured with and the port
// it listens on (Besu lists jsonrpc, ws, p2p, metrics and graphQL; p2p is
// added by the backend from its Network).
func (s *rpcServers) services() map[string]backend.Service {
	out := make(map[string]backend.Service)
	if s == nil {
		return out // asked before the servers were built
	}
	add := func(name string, l *listener) {
		if l == nil {
			return
		}
		port := l.port
		if l.ln != nil {
			if a, ok := l.ln.Addr().(*net.TCPAddr); ok {
				port = a.Port
			}
		}
		out[name] = backend.Service{Host: l.host, Port: strconv.Itoa(port)}
	}
	add("jsonrpc", s.http)
	add("ws", s.ws)
	if m := s.n.metricsServer; m != nil {
		out["metrics"] = backend.Service{Host: m.Host(), Port: strconv.Itoa(m.Port())}
	}
	return out
}
