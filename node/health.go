package node

import (
	"net/http"
	"net/url"
	"strconv"
)

// Besu's /readiness defaults (ReadinessCheck).
const (
	defaultMinPeers        = 1
	defaultMaxBlocksBehind = 2
)

// ready answers GET /readiness as Besu does: up when the node has at least
// minPeers peers (checked only with p2p on) and is at most maxBlocksBehind
// blocks behind the best block it knows of (a peer's head it syncs from).
// Both come from the query (?minPeers=2&maxBlocksBehind=10); a value that
// is not a non-negative integer makes the node not ready, as in Besu.
// GET /liveness stays up while the process serves HTTP.
func (n *Node) ready(r *http.Request) bool {
	q := r.URL.Query()
	maxBehind, ok := queryInt(q, "maxBlocksBehind", defaultMaxBlocksBehind)
	if !ok {
		return false
	}
	if n.p2p == nil {
		return true // alone by design: nothing to sync from
	}
	minPeers, ok := queryInt(q, "minPeers", defaultMinPeers)
	if !ok || n.p2p.PeerCount() < minPeers {
		return false
	}
	head := n.chain.CurrentHeader().Number.Uint64()
	best := n.p2p.BestKnownBlock()
	return best <= head || best-head <= uint64(maxBehind)
}

// queryInt reads a non-negative integer query parameter, def when absent.
func queryInt(q url.Values, name string, def int) (int, bool) {
	s := q.Get(name)
	if s == "" {
		return def, true
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v >= 0
}
