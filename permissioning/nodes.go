package permissioning

import (
	"net"
	"strings"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/enodeurl"
)

// endpoint is what identifies an allowlisted node, as Besu matches enode
// URLs (EnodeURL.sameListeningEndpoint): the node ID, the IP address and
// the listening (TCP) port. The discovery port does not count.
type endpoint struct {
	id   enode.ID
	ip   string // net.IP.String() of the 16-byte form, so v4 and v4-in-v6 agree
	port int
}

func endpointOf(n *enode.Node) endpoint {
	return endpoint{id: n.ID(), ip: canonicalIP(n.IP()), port: n.TCP()}
}

func canonicalIP(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return ip.String()
}

// parseNode reads an allowlist enode URL. Host names are refused, as
// current Besu does without its DNS option (--Xdns-enabled, off by
// default; Basalt does not resolve enode host names).
func parseNode(s string) (*enode.Node, error) {
	return enodeurl.Parse(strings.TrimSpace(s))
}

// formatNode is the URL perm_getNodesWhitelist lists for n.
func formatNode(n *enode.Node) string {
	return enodeurl.Format(n, n.IP().String(), n.TCP(), n.UDP())
}

// nodeList is an immutable nodes allowlist.
type nodeList struct {
	nodes []*enode.Node
	set   map[endpoint]struct{}
	// ids maps a node ID to the IP addresses it is listed with, for
	// inbound connections, whose listening port is unknown.
	ids map[enode.ID]map[string]struct{}
}

func newNodeList(nodes []*enode.Node) *nodeList {
	l := &nodeList{nodes: nodes, set: make(map[endpoint]struct{}, len(nodes)), ids: make(map[enode.ID]map[string]struct{}, len(nodes))}
	for _, n := range nodes {
		e := endpointOf(n)
		l.set[e] = struct{}{}
		if l.ids[e.id] == nil {
			l.ids[e.id] = make(map[string]struct{}, 1)
		}
		l.ids[e.id][e.ip] = struct{}{}
	}
	return l
}

func (l *nodeList) has(n *enode.Node) bool {
	_, ok := l.set[endpointOf(n)]
	return ok
}

// permits reports whether the node with id at ip, listening on port, is
// listed. Port 0 means the listening port is unknown — an inbound
// connection, which comes from an ephemeral port and whose devp2p hello
// from a go-ethereum-based peer carries no listening port — and then the
// node ID and IP address must match a listed entry.
func (l *nodeList) permits(id enode.ID, ip net.IP, port int) bool {
	if port == 0 {
		_, ok := l.ids[id][canonicalIP(ip)]
		return ok
	}
	_, ok := l.set[endpoint{id: id, ip: canonicalIP(ip), port: port}]
	return ok
}

func (l *nodeList) urls() []string {
	out := make([]string, len(l.nodes))
	for i, n := range l.nodes {
		out[i] = formatNode(n)
	}
	return out
}

// checkNodes runs Besu's input checks on a request's enode URLs, in its
// order (empty, duplicates, invalid), and returns them parsed.
func checkNodes(urls []string) ([]*enode.Node, error) {
	if len(urls) == 0 {
		return nil, ErrNodesEmpty
	}
	seen := make(map[string]bool, len(urls))
	for _, s := range urls {
		if seen[s] {
			return nil, ErrNodesDuplicated
		}
		seen[s] = true
	}
	out := make([]*enode.Node, len(urls))
	eps := make(map[endpoint]bool, len(urls))
	for i, s := range urls {
		n, err := parseNode(s)
		if err != nil {
			return nil, ErrNodeInvalid
		}
		// Two spellings of one endpoint (say, with and without discport).
		if e := endpointOf(n); eps[e] {
			return nil, ErrNodesDuplicated
		} else {
			eps[e] = true
		}
		out[i] = n
	}
	return out, nil
}
