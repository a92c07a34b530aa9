package p2p

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/enodeurl"
)

// StaticNodesFile is the name of the static nodes file in the data path.
const StaticNodesFile = "static-nodes.json"

// dialTimeout bounds one TCP dial of a static node.
const dialTimeout = 5 * time.Second

// LoadStaticNodes reads a static nodes file (Besu's format: a JSON array of
// enode URLs). A missing file is no static nodes; anything else that is not
// such an array is an error naming the file and the entry.
func LoadStaticNodes(path string) ([]*enode.Node, error) {
	nodes, _, err := loadStaticNodes(path, false)
	return nodes, err
}

// LoadStaticNodesDNS reads a static nodes file whose entries may name their
// host (Besu's --Xdns-enabled): hosts maps each such node to its name. A
// name that does not resolve yet is no error (a Kubernetes pod's peers get
// their DNS records as they start): the node has no IP address until the
// service resolves the name again, at each dial (Config.StaticHosts).
func LoadStaticNodesDNS(path string) (nodes []*enode.Node, hosts map[enode.ID]string, err error) {
	return loadStaticNodes(path, true)
}

func loadStaticNodes(path string, dns bool) ([]*enode.Node, map[enode.ID]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read static nodes file %s: %w", path, err)
	}
	var urls []string
	if err := json.Unmarshal(data, &urls); err != nil {
		return nil, nil, fmt.Errorf("static nodes file %s: expected a JSON array of enode URLs: %v", path, err)
	}
	var out []*enode.Node
	hosts := map[enode.ID]string{}
	for i, u := range urls {
		var n *enode.Node
		var host string
		if dns {
			n, host, err = enodeurl.ParseResolving(u, resolveLater)
		} else {
			n, err = enodeurl.Parse(u)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("static nodes file %s, entry %d: %v", path, i+1, err)
		}
		if n.TCP() == 0 {
			return nil, nil, fmt.Errorf("static nodes file %s, entry %d: %s has no listening port", path, i+1, u)
		}
		if host != "" {
			hosts[n.ID()] = host
		}
		out = append(out, n)
	}
	return out, hosts, nil
}

// resolveLater resolves a static node's host name at load time; a name
// that does not resolve leaves the node without an address until a dial
// resolves it.
func resolveLater(host string) (net.IP, error) {
	ip, _ := lookupHost(context.Background(), host)
	return ip, nil
}

// lookupHost gives the first address of host, IPv4 first.
func lookupHost(ctx context.Context, host string) (net.IP, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	return enodeurl.LookupHost(ctx, host)
}

// AddStatic makes n a static node: connected now and redialed when the
// connection drops. It returns false if n already was one.
func (s *Service) AddStatic(n *enode.Node) bool {
	s.mu.Lock()
	_, had := s.static[n.ID()]
	s.static[n.ID()] = n
	s.mu.Unlock()
	if had {
		return false
	}
	if s.cfg.StaticHosts[n.ID()] != "" {
		// Named by its host: only this service's dials resolve the name
		// again (the server's dialer would keep the first address).
		s.spawn(func() { s.dial(n) })
		return true
	}
	s.server.AddPeer(n)
	return true
}

// RemoveStatic stops maintaining n and disconnects it if connected. It
// returns false if n was not a static node (as Besu, it disconnects the
// peer anyway).
func (s *Service) RemoveStatic(n *enode.Node) bool {
	s.mu.Lock()
	_, had := s.static[n.ID()]
	delete(s.static, n.ID())
	s.mu.Unlock()
	s.server.RemovePeer(n)
	return had
}

// staticLoop redials the static nodes that are not connected, every
// ReconnectInterval. go-ethereum's dial scheduler retries static nodes on
// its own too, but only after a failed dial has aged out of its history
// (35 seconds); this loop is the interval users configure and Besu
// documents.
func (s *Service) staticLoop() {
	ticker := time.NewTicker(s.cfg.ReconnectInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-ticker.C:
		}
		connected := make(map[enode.ID]bool)
		for _, p := range s.server.Peers() {
			connected[p.ID()] = true
		}
		s.mu.Lock()
		if s.dialing == nil {
			s.dialing = map[enode.ID]bool{}
		}
		var missing []*enode.Node
		for id, n := range s.static {
			if !connected[id] && !s.dialing[id] {
				missing = append(missing, n)
				s.dialing[id] = true
			}
		}
		s.mu.Unlock()
		for _, n := range missing {
			s.spawn(func() {
				defer func() {
					s.mu.Lock()
					delete(s.dialing, n.ID())
					s.mu.Unlock()
				}()
				s.dial(n)
			})
		}
	}
}

// dial connects to n and hands the connection to the server, which runs
// the encryption and protocol handshakes (and refuses a duplicate).
func (s *Service) dial(n *enode.Node) {
	if host := s.cfg.StaticHosts[n.ID()]; host != "" {
		ip, err := lookupHost(s.ctx, host)
		if err != nil {
			s.log.Debug("Static node's host does not resolve", "host", host, "err", err)
			return
		}
		n = enode.NewV4(n.Pubkey(), ip, n.TCP(), n.UDP())
	}
	// The server's dialer applies --net-restrict and the ban list to the
	// peers it dials; these dials are the service's own, so it applies them
	// here.
	if s.cfg.NetRestrict != nil && !s.cfg.NetRestrict.Contains(n.IP()) {
		s.log.Debug("Static node outside --net-restrict", "enode", n.URLv4())
		return
	}
	if s.cfg.Banned[n.ID()] {
		s.log.Debug("Static node banned", "enode", n.URLv4())
		return
	}
	if s.cfg.Permissions != nil && !s.cfg.Permissions.NodePermitted(n.ID(), n.IP(), n.TCP()) {
		s.log.Debug("Static node not on the nodes allowlist", "enode", n.URLv4())
		return
	}
	addr := net.JoinHostPort(n.IP().String(), strconv.Itoa(n.TCP()))
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(s.ctx, "tcp", addr)
	if err != nil {
		s.log.Debug("Static node unreachable", "enode", n.URLv4(), "err", err)
		return
	}
	if err := s.server.SetupConn(conn, 0, n); err != nil {
		s.log.Debug("Static node connection failed", "enode", n.URLv4(), "err", err)
	}
}
