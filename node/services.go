package node

import (
	"net"
	"strconv"

	"github.com/basaltchain/basalt/api"
)

// services answers net_services: the enabled JSON-RPC front ends and the
// metrics service, each with the host it was configured with and the port
// it listens on (Besu lists jsonrpc, ws, p2p, metrics and graphQL; p2p is
// added by wireNetwork).
func (s *rpcServers) services() map[string]api.Service {
	out := make(map[string]api.Service)
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
		out[name] = api.Service{Host: l.host, Port: strconv.Itoa(port)}
	}
	add("jsonrpc", s.http)
	add("ws", s.ws)
	if m := s.n.metricsServer; m != nil {
		out["metrics"] = api.Service{Host: m.Host(), Port: strconv.Itoa(m.Port())}
	}
	return out
}
