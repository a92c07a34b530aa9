package signer

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/basaltchain/basalt/signer/downstream"
)

// readinessTimeout bounds the readiness probe's call to the node, below the
// one-second default of Kubernetes probes' own timeout.
const readinessTimeout = 900 * time.Millisecond

// readiness answers GET /readiness: 200 {"status":"UP"} when the downstream
// node answers eth_chainId with the signer's --chain-id, else 503
// {"status":"DOWN","reason":"..."}: a signer whose node is gone or on
// another chain cannot get a transaction accepted. The privacy manager
// (--tessera-url) is left out on purpose: without it public transactions
// still go through, and a probe that failed on it would take the signer
// out of service for them too; a private send answers 504 naming the
// manager instead. (GET /upcheck, like EthSigner's, only says the process
// serves HTTP.) The path is the signer's own: unlike other paths it is
// not relayed to the node.
func (s *Server) readiness(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readinessTimeout)
	defer cancel()
	reason := s.downstreamProblem(ctx)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if reason == "" {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"status":"UP"}`))
		return
	}
	body, _ := json.Marshal(map[string]string{"status": "DOWN", "reason": reason})
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

// downstreamProblem asks the node for its chain ID and says what is wrong,
// "" when nothing is.
func (s *Server) downstreamProblem(ctx context.Context) string {
	resp, err := s.ds.Do(ctx, &downstream.Request{
		Method: http.MethodPost, Path: "/",
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   []byte(`{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":1}`),
	})
	if err != nil {
		return "downstream node: " + err.Error()
	}
	var res struct {
		Result string          `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &res) != nil || res.Result == "" {
		return "downstream node did not answer eth_chainId (HTTP " + strconv.Itoa(resp.Status) + ")"
	}
	id, err := strconv.ParseUint(res.Result, 0, 64)
	if err != nil || !s.chainID.IsUint64() || id != s.chainID.Uint64() {
		return "downstream node is on chain " + res.Result + ", not --chain-id " + s.chainID.String()
	}
	return ""
}
