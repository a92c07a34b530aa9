package p2p

import (
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
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read static nodes file %s: %w", path, err)
	}
	var urls []string
	if err := json.Unmarshal(data, &urls); err != nil {
		return nil, fmt.Errorf("static nodes file %s: expected a JSON array of enode URLs: %v", path, err)
	}
	var out []*enode.Node
	for i, u := range urls {
		n, err := enodeurl.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("static nodes file %s, entry %d: %v", path, i+1, err)
		}
		if n.TCP() == 0 {
			return nil, fmt.Errorf("static nodes file %s, entry %d: %s has no listening port", path, i+1, u)
		}
		out = append(out, n)
	}
	return out, nil
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
		s.mu.RLock()
		var missing []*enode.Node
		for id, n := range s.static {
			if !connected[id] {
				missing = append(missing, n)
			}
		}
		s.mu.RUnlock()
		for _, n := range missing {
			s.spawn(func() { s.dial(n) })
		}
	}
}

// dial connects to n and hands the connection to the server, which runs
// the encryption and protocol handshakes (and refuses a duplicate).
func (s *Service) dial(n *enode.Node) {
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
