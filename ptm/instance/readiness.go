package instance

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/storage"
)

// readinessTimeout bounds each check of GET /readiness, below the
// one-second default timeout of Kubernetes probes.
const readinessTimeout = 900 * time.Millisecond

// readinessProbeKey is read from the stores to see them answer; no entry
// has it (payload keys are Base64 digests, node-table keys 32 bytes).
var readinessProbeKey = []byte("basalt-privacy readiness probe")

// upchecker is what readiness asks of peers (nodeapi.Client).
type upchecker interface {
	Upcheck(ctx context.Context, nodeURL string) error
}

// readiness answers GET /readiness on the client API (Orion's /upcheck
// only says the process serves HTTP):
//
//	200 {"status":"UP","storage":"UP","peers":{"known":2,"reachable":2}}
//	503 {"status":"DOWN",...}
//
// Ready means both stores answer a read and at least minPeers of the other
// instances this one knows (boot nodes and the node table) answer their
// /upcheck. minPeers comes from the query; without it an instance that
// knows other instances wants one of them, and one that knows none (a
// single instance) wants none. A store that does not answer, or a bad
// minPeers, is DOWN.
func readiness(stores []storage.KV, table *discovery.Table, bootNodes []string, peers upchecker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readinessTimeout)
		defer cancel()

		storeUp := true
		for _, kv := range stores {
			if _, err := kv.Get(ctx, readinessProbeKey); err != nil && err != storage.ErrNotFound {
				storeUp = false
			}
		}
		others := otherNodes(table, bootNodes)
		reachable := countReachable(ctx, peers, others)
		minPeers := min(len(others), 1)
		ok := true
		if s := r.URL.Query().Get("minPeers"); s != "" {
			n, err := strconv.Atoi(s)
			minPeers, ok = n, err == nil && n >= 0
		}
		up := storeUp && ok && reachable >= minPeers

		type peerState struct {
			Known     int `json:"known"`
			Reachable int `json:"reachable"`
		}
		body, _ := json.Marshal(struct {
			Status  string    `json:"status"`
			Storage string    `json:"storage"`
			Peers   peerState `json:"peers"`
		}{upDown(up), upDown(storeUp), peerState{len(others), reachable}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if up {
			w.WriteHeader(http.StatusOK)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write(body)
	})
}

func upDown(up bool) string {
	if up {
		return "UP"
	}
	return "DOWN"
}

// otherNodes are the node URLs this instance knows besides its own.
func otherNodes(table *discovery.Table, bootNodes []string) []string {
	norm := func(u string) string { return strings.TrimRight(u, "/") }
	self := norm(table.Self())
	seen := map[string]bool{self: true}
	var out []string
	for _, u := range append(table.URLs(), bootNodes...) {
		if n := norm(u); !seen[n] {
			seen[n] = true
			out = append(out, u)
		}
	}
	return out
}

// countReachable upchecks urls at once and counts the ones that answer.
func countReachable(ctx context.Context, peers upchecker, urls []string) int {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
		n  int
	)
	for _, u := range urls {
		wg.Go(func() {
			if peers.Upcheck(ctx, u) == nil {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return n
}

// withReadiness serves GET /readiness with ready and everything else with
// api.
func withReadiness(api, ready http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readiness" {
			ready.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
