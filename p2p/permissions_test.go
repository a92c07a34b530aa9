package p2p

import (
	"net"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/p2p/enode"
)

// listChecker is a nodes allowlist by node ID that records what it was
// asked.
type listChecker struct {
	mu      sync.Mutex
	allowed map[enode.ID]bool
	asked   map[enode.ID][]int // ports asked about, 0 for inbound
}

func (c *listChecker) NodePermitted(id enode.ID, ip net.IP, port int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[id] = append(c.asked[id], port)
	return c.allowed[id] && ip.IsLoopback()
}

func (c *listChecker) set(id enode.ID, ok bool) {
	c.mu.Lock()
	c.allowed[id] = ok
	c.mu.Unlock()
}

func (c *listChecker) wasAsked(id enode.ID, inbound bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.asked[id] {
		if (p == 0) == inbound {
			return true
		}
	}
	return false
}

// TestNodeAllowlist: a node not on the list is refused inbound (before the
// eth handshake: neither side registers a peer) and is never dialed; once
// listed it connects; removed, DropUnpermitted disconnects it.
func TestNodeAllowlist(t *testing.T) {
	list := &listChecker{allowed: map[enode.ID]bool{}, asked: map[enode.ID][]int{}}
	guarded := startNodeWith(t, 0, func(c *Config) { c.Permissions = list })
	stranger := startNode(t, 0)
	sid := stranger.enode(t).ID()

	// Outbound: the dialer asks with the listening port and refuses.
	guarded.svc.AddStatic(stranger.enode(t))
	waitUntil(t, "the outbound check", func() bool { return list.wasAsked(sid, false) })
	// Inbound: the stranger dials; the guard asks without a port.
	stranger.svc.AddStatic(guarded.enode(t))
	waitUntil(t, "the inbound check", func() bool { return list.wasAsked(sid, true) })
	if g, s := guarded.svc.PeerCount(), stranger.svc.PeerCount(); g != 0 || s != 0 {
		t.Fatalf("peers %d and %d before the node was listed", g, s)
	}

	list.set(sid, true)
	waitUntil(t, "the listed node's connection", func() bool {
		return guarded.svc.PeerCount() == 1 && stranger.svc.PeerCount() == 1
	})

	list.set(sid, false)
	guarded.svc.DropUnpermitted()
	waitUntil(t, "the removed node's disconnection", func() bool {
		return guarded.svc.PeerCount() == 0 && stranger.svc.PeerCount() == 0
	})
}
