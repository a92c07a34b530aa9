package node

import (
	"net/http"
	"testing"
)

func TestHealthWithoutP2P(t *testing.T) {
	n := metricsNode(t, false, nil)
	for path, want := range map[string]int{
		"/liveness":                     http.StatusOK,
		"/readiness":                    http.StatusOK, // p2p off: no peers to want, nothing to sync from
		"/readiness?minPeers=5":         http.StatusOK,
		"/readiness?maxBlocksBehind=0":  http.StatusOK,
		"/readiness?maxBlocksBehind=-1": http.StatusServiceUnavailable,
		"/readiness?maxBlocksBehind=x":  http.StatusServiceUnavailable,
	} {
		resp, err := http.Get("http://" + n.HTTPAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
