package p2p

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// NodeChecker is the nodes allowlist as the service asks it
// (permissioning.Checker's node half).
type NodeChecker interface {
	// NodePermitted reports whether the node with id at ip, listening on
	// port, may be a peer; port 0 for an inbound connection, whose
	// listening port is unknown.
	NodePermitted(id enode.ID, ip net.IP, port int) bool
}

// errNotPermitted is the dial error for a node not on the nodes allowlist.
var errNotPermitted = errors.New("node not on the nodes allowlist")

// serverDialTimeout bounds a TCP dial of the server's dial scheduler, as
// go-ethereum's own dialer does.
const serverDialTimeout = 15 * time.Second

// permittedDialer dials only nodes the allowlist permits, so neither
// admin_addPeer's static nodes nor what discovery finds become outbound
// connections to strangers: the check runs before the TCP connection.
type permittedDialer struct {
	s *Service
	d net.Dialer
}

func (d *permittedDialer) Dial(ctx context.Context, n *enode.Node) (net.Conn, error) {
	if !d.s.cfg.Permissions.NodePermitted(n.ID(), n.IP(), n.TCP()) {
		d.s.log.Debug("Dial refused: node not on the nodes allowlist", "id", n.ID().TerminalString(), "addr", endpointString(n.IP(), n.TCP()))
		return nil, errNotPermitted
	}
	if n.IP() == nil || n.TCP() == 0 {
		return nil, errors.New("node has no TCP endpoint")
	}
	return d.d.DialContext(ctx, "tcp", endpointString(n.IP(), n.TCP()))
}

func endpointString(ip net.IP, port int) string {
	return net.JoinHostPort(ip.String(), strconv.Itoa(port))
}

// permitted reports whether p may stay connected: its node ID and address,
// with the listening port for a connection the node dialed and without one
// for an inbound connection.
func (s *Service) permitted(p *gethp2p.Peer) bool {
	if s.cfg.Permissions == nil {
		return true
	}
	n := p.Node()
	ip, port := n.IP(), n.TCP()
	if p.Inbound() {
		port = 0
		if a, ok := p.RemoteAddr().(*net.TCPAddr); ok {
			ip = a.IP
		}
	}
	return s.cfg.Permissions.NodePermitted(n.ID(), ip, port)
}

// guard wraps a sub-protocol's handler so that a banned peer
// (--banned-node-ids) or one not on the nodes allowlist is disconnected as
// soon as the devp2p handshake names it, before the eth status handshake
// (or any other sub-protocol) runs.
func (s *Service) guard(p gethp2p.Protocol) gethp2p.Protocol {
	run := p.Run
	p.Run = func(peer *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
		if s.cfg.Banned[peer.ID()] {
			s.log.Debug("Banned node refused", "id", peer.ID().TerminalString(), "addr", peer.RemoteAddr().String())
			return gethp2p.DiscUselessPeer
		}
		if !s.permitted(peer) {
			s.log.Debug("Connection refused: node not on the nodes allowlist", "id", peer.ID().TerminalString(),
				"addr", peer.RemoteAddr().String(), "inbound", peer.Inbound())
			return gethp2p.DiscUselessPeer
		}
		return run(peer, rw)
	}
	return p
}

// DropUnpermitted disconnects every peer the nodes allowlist no longer
// permits (after perm_removeNodesFromWhitelist or a reload).
func (s *Service) DropUnpermitted() {
	if !s.started.Load() || s.cfg.Permissions == nil {
		return
	}
	for _, p := range s.server.Peers() {
		if !s.permitted(p) {
			s.log.Info("Disconnecting peer removed from the nodes allowlist", "id", p.ID().TerminalString(), "addr", p.RemoteAddr().String())
			p.Disconnect(gethp2p.DiscRequested)
		}
	}
}
