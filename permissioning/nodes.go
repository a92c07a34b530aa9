package permissioning

import (
	"net"
	"slices"
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

// listedNode is an allowlist entry: the node with the IP address its URL
// gave or its host name resolved to, and, with --Xdns-update-enabled, the
// host name, which checks resolve again (as Besu's EnodeURL.getIp does).
type listedNode struct {
	*enode.Node
	host string // "" for an IP address, or when names are resolved once
}

func fixedNodes(nodes []*enode.Node) []listedNode {
	out := make([]listedNode, len(nodes))
	for i, n := range nodes {
		out[i] = listedNode{Node: n}
	}
	return out
}

// parseNode reads an allowlist enode URL. Without dns (or with it
// disabled) host names are refused, as current Besu does without
// --Xdns-enabled.
func parseNode(s string, dns *DNS) (listedNode, error) {
	s = strings.TrimSpace(s)
	if !dns.enabled() {
		n, err := enodeurl.Parse(s)
		return listedNode{Node: n}, err
	}
	n, host, err := enodeurl.ParseResolving(s, dns.resolveOnParse)
	if err != nil {
		if !dns.UpdateEnabled {
			return listedNode{}, dnsNoUpdateError(s)
		}
		return listedNode{}, err
	}
	if !dns.UpdateEnabled {
		host = "" // resolved once: listed and written back by IP, as Besu
	}
	return listedNode{Node: n, host: host}, nil
}

// formatNode is the URL perm_getNodesWhitelist lists (and the file keeps)
// for n: its host name when re-resolved, else its IP address.
func formatNode(n listedNode) string {
	host := n.host
	if host == "" {
		host = n.IP().String()
	}
	return enodeurl.Format(n.Node, host, n.TCP(), n.UDP())
}

// nodeList is an immutable nodes allowlist.
type nodeList struct {
	nodes []listedNode
	set   map[endpoint]struct{}
	// ids maps a node ID to the IP addresses it is listed with, for
	// inbound connections, whose listening port is unknown.
	ids map[enode.ID]map[string]struct{}
	// named are the entries listed by a host name to resolve again, by
	// node ID, and resolve resolves them (--Xdns-update-enabled).
	named   map[enode.ID][]listedNode
	resolve enodeurl.Resolver
}

func newNodeList(nodes []listedNode, dns *DNS) *nodeList {
	l := &nodeList{nodes: nodes, set: make(map[endpoint]struct{}, len(nodes)), ids: make(map[enode.ID]map[string]struct{}, len(nodes))}
	for _, n := range nodes {
		e := endpointOf(n.Node)
		l.set[e] = struct{}{}
		if l.ids[e.id] == nil {
			l.ids[e.id] = make(map[string]struct{}, 1)
		}
		l.ids[e.id][e.ip] = struct{}{}
		if n.host != "" {
			if l.named == nil {
				l.named = make(map[enode.ID][]listedNode)
			}
			l.named[e.id] = append(l.named[e.id], n)
		}
	}
	if len(l.named) > 0 {
		l.resolve = dns.resolver()
	}
	return l
}

// has reports whether n is listed: the same endpoint, or the same host
// name and listening port for the same node (its address may have moved).
func (l *nodeList) has(n listedNode) bool {
	if _, ok := l.set[endpointOf(n.Node)]; ok {
		return true
	}
	return n.host != "" && slices.ContainsFunc(l.named[n.ID()], func(m listedNode) bool { return sameNamed(m, n) })
}

func sameNamed(x, y listedNode) bool {
	return x.host != "" && strings.EqualFold(x.host, y.host) && x.ID() == y.ID() && x.TCP() == y.TCP()
}

// permits reports whether the node with id at ip, listening on port, is
// listed. Port 0 means the listening port is unknown — an inbound
// connection, which comes from an ephemeral port and whose devp2p hello
// from a go-ethereum-based peer carries no listening port — and then the
// node ID and IP address must match a listed entry.
func (l *nodeList) permits(id enode.ID, ip net.IP, port int) bool {
	addr := canonicalIP(ip)
	if port == 0 {
		if _, ok := l.ids[id][addr]; ok {
			return true
		}
	} else if _, ok := l.set[endpoint{id: id, ip: addr, port: port}]; ok {
		return true
	}
	// Entries listed by host name: the name may point elsewhere now.
	// Only a listed node ID costs a lookup.
	for _, n := range l.named[id] {
		if port != 0 && port != n.TCP() {
			continue
		}
		if now, err := l.resolve(n.host); err == nil && canonicalIP(now) == addr {
			return true
		}
	}
	return false
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
func checkNodes(urls []string, dns *DNS) ([]listedNode, error) {
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
	out := make([]listedNode, len(urls))
	eps := make(map[endpoint]bool, len(urls))
	for i, s := range urls {
		n, err := parseNode(s, dns)
		if err != nil {
			return nil, ErrNodeInvalid
		}
		// Two spellings of one endpoint (say, with and without discport).
		if e := endpointOf(n.Node); eps[e] {
			return nil, ErrNodesDuplicated
		} else {
			eps[e] = true
		}
		out[i] = n
	}
	return out, nil
}
