package node

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpc/auth"
	"github.com/basaltchain/basalt/rpctypes"
)

// rpcServers owns the JSON-RPC front ends (HTTP and WebSocket listeners)
// on the node's backend.
type rpcServers struct {
	n    *Node
	reg  *rpc.Registry // every method the node registers, whether or not an endpoint enables its group
	http *listener
	ws   *listener
	wsH  *rpc.WSHandler
}

func newRPCServers(n *Node) (*rpcServers, error) {
	reg := rpc.NewRegistry()
	s := &rpcServers{n: n, reg: reg}
	cfg := n.cfg.RPC
	// The groups come from their providers: the node's services, then the
	// consensus engine's own (CLIQUE, IBFT, QBFT).
	groups := append(append(api.Groups(n.backend), api.PrivGroups(n.backend)...), n.caps.rpcGroups(n.chain)...)
	groups = append(groups, debugMetricsGroup(n.metrics))
	if err := api.Register(reg, groups...); err != nil {
		return nil, err
	}
	warnUnavailableGroups(reg, cfg, n.log)
	logins := auth.NewLoginLimiter(0, 0, 0) // one bcrypt budget for both ports
	timer := n.rpcTimer()
	warnUnauthenticated(n.cfg, n.log)
	if cfg.HTTPEnabled {
		a, err := newEndpointAuth(cfg.HTTPAuth, "http", logins, n.log)
		if err != nil {
			return nil, err
		}
		srv, err := rpc.NewServer(reg, rpc.Config{
			APIs:         cfg.HTTPAPIs,
			MaxBatchSize: cfg.HTTPMaxBatchSize,
			Timeout:      cfg.HTTPTimeout,
			Authorizer:   a.authorizer(),
			Logger:       n.log,
			Timer:        timer,
		})
		if err != nil {
			return nil, err
		}
		s.http = &listener{frontEnd: "JSON-RPC", name: "HTTP", host: cfg.HTTPHost, port: cfg.HTTPPort, maxConns: cfg.HTTPMaxActiveConnections,
			handler: rpc.NewHTTPHandler(srv, rpc.HTTPConfig{
				HostAllowlist:   n.cfg.HostAllowlist,
				CORSOrigins:     cfg.HTTPCORSOrigins,
				MaxRequestBytes: cfg.HTTPMaxRequestContentLength,
				PrettyJSON:      cfg.PrettyJSON,
				Routes:          a.routes(),
				RPCMiddleware:   a.httpMiddleware(),
				Readiness:       n.ready,
			})}
	}
	if cfg.WSEnabled {
		a, err := newEndpointAuth(cfg.WSAuth, "ws", logins, n.log)
		if err != nil {
			return nil, err
		}
		srv, err := rpc.NewServer(reg, rpc.Config{APIs: cfg.WSAPIs, Timeout: cfg.WSTimeout, Authorizer: a.authorizer(), Logger: n.log, Timer: timer})
		if err != nil {
			return nil, err
		}
		s.wsH = rpc.NewWSHandler(srv, rpc.WSConfig{
			HostAllowlist:   n.cfg.HostAllowlist,
			MaxMessageBytes: int64(cfg.WSMaxFrameSize),
			MaxConnections:  cfg.WSMaxActiveConnections,
			SendQueueBytes:  cfg.WSMaxQueuedBytes,
			Routes:          a.routes(),
			Middleware:      a.wsMiddleware(),
			Logger:          n.log,
		})
		s.ws = &listener{frontEnd: "JSON-RPC", name: "WebSocket", host: cfg.WSHost, port: cfg.WSPort, handler: s.wsH}
	}
	return s, nil
}

// warnUnavailableGroups names, once at start-up, each group enabled on a
// JSON-RPC endpoint in which the node registers no method. Like Besu the
// node accepts every group it knows (so one configuration serves a network
// of mixed nodes), but a user who enabled CLIQUE on an ethash network learns
// why clique_* answers "Method not enabled".
func warnUnavailableGroups(reg *rpc.Registry, cfg config.RPCConfig, log *slog.Logger) {
	var enabled []string
	if cfg.HTTPEnabled {
		enabled = append(enabled, apisOrDefault(cfg.HTTPAPIs)...)
	}
	if cfg.WSEnabled {
		enabled = append(enabled, apisOrDefault(cfg.WSAPIs)...)
	}
	registered := reg.Groups()
	warned := map[string]bool{}
	for _, g := range enabled {
		g = strings.ToUpper(g)
		if g == rpctypes.GroupRPC || warned[g] || slices.Contains(registered, g) {
			continue
		}
		warned[g] = true
		log.Warn("RPC API group not available on this node", "group", g, "reason", unavailableReason(g))
	}
}

// apisOrDefault is an endpoint's enabled groups (nil means the defaults, as
// rpc.Config.APIs reads it).
func apisOrDefault(apis []string) []string {
	if apis == nil {
		return rpctypes.DefaultAPIs
	}
	return apis
}

func (s *rpcServers) start() error {
	if s.http == nil && s.ws == nil {
		return nil
	}
	// WebSocket first: a client that sees HTTP answer finds WS up too.
	for _, l := range []*listener{s.ws, s.http} {
		if l == nil {
			continue
		}
		if err := l.start(s.n); err != nil {
			return err
		}
	}
	return nil
}

func (s *rpcServers) stop() {
	if s == nil {
		return
	}
	s.http.stop()
	s.ws.stop()
	if s.wsH != nil {
		s.wsH.Close() // upgraded connections outlive http.Server.Close
	}
}

// serving reports whether a JSON-RPC listener is configured.
func (s *rpcServers) serving() bool { return s != nil && (s.http != nil || s.ws != nil) }

// HTTPAddr returns the JSON-RPC HTTP listener address ("" when disabled).
func (n *Node) HTTPAddr() string { return n.rpc.addr(n.rpc.http) }

// WSAddr returns the JSON-RPC WebSocket listener address ("" when
// disabled).
func (n *Node) WSAddr() string { return n.rpc.addr(n.rpc.ws) }

func (s *rpcServers) addr(l *listener) string {
	if s == nil {
		return ""
	}
	return l.addr()
}
