package signer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
	"github.com/basaltchain/basalt/signer/nonce"
	"github.com/basaltchain/basalt/signer/tessera"
)

// Defaults.
const (
	// DefaultMaxRequestBytes caps request bodies, as the node does.
	DefaultMaxRequestBytes = rpc.DefaultMaxRequestBytes
	// DefaultMaxBatchSize caps a batch that the signer takes apart (one
	// holding a method it answers itself), Besu's default batch limit.
	DefaultMaxBatchSize = 1024
	// NonceRetries is how many times a send whose nonce the signer chose is
	// signed again with a new nonce after the node refused the nonce
	// (EthSigner's current limit).
	NonceRetries = 10
)

// Config is what a Server needs.
type Config struct {
	// ChainID is the chain the signer signs for (--chain-id); required.
	ChainID *big.Int
	// Keys holds the signing keys; required.
	Keys keys.Store
	// Downstream is the node; required.
	Downstream *downstream.Client
	// Tessera is the Q2T API of the node's privacy manager
	// (--tessera-url), which stores the payloads of GoQuorum private
	// transactions; nil refuses eth_sendTransaction with privateFor.
	Tessera *tessera.Client
	// CORSOrigins is --http-cors-origins: empty refuses cross-origin
	// requests, "*" or "all" admits every origin.
	CORSOrigins []string
	// HostAllowlist is --http-host-allowlist; nil means localhost and
	// 127.0.0.1, "*" admits every Host.
	HostAllowlist []string
	// MaxRequestBytes caps request bodies: 0 means DefaultMaxRequestBytes,
	// negative no limit.
	MaxRequestBytes int64
	// MaxBatchSize caps batches the signer takes apart; 0 means
	// DefaultMaxBatchSize.
	MaxBatchSize int
	// Logger receives the signer's log; nil discards it.
	Logger *slog.Logger
	// Metrics receives the signer's metrics (requests by endpoint and by
	// JSON-RPC method, nonce retries); nil means none. Downstream latency
	// is observed by the downstream client (DownstreamObserver).
	Metrics *metrics.Registry
}

// Server is the signing proxy's HTTP handler.
type Server struct {
	chainID  *big.Int
	txSigner types.Signer
	keys     keys.Store
	ds       *downstream.Client
	tessera  *tessera.Client
	nonces   *nonce.Manager
	log      *slog.Logger
	maxBatch int
	limit    int64
	handler  http.Handler
	nextID   atomic.Uint64 // ids of the signer's own requests to the node
	metrics  serverMetrics
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.ChainID == nil || cfg.ChainID.Sign() <= 0:
		return nil, errors.New("signer: a positive chain ID is required")
	case cfg.Keys == nil:
		return nil, errors.New("signer: a key store is required")
	case cfg.Downstream == nil:
		return nil, errors.New("signer: a downstream node is required")
	}
	s := &Server{
		chainID:  new(big.Int).Set(cfg.ChainID),
		txSigner: types.LatestSignerForChainID(cfg.ChainID),
		keys:     cfg.Keys,
		ds:       cfg.Downstream,
		tessera:  cfg.Tessera,
		nonces:   nonce.New(),
		log:      cfg.Logger,
		maxBatch: cfg.MaxBatchSize,
		limit:    cfg.MaxRequestBytes,
		metrics:  newServerMetrics(cfg.Metrics),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBatch <= 0 {
		s.maxBatch = DefaultMaxBatchSize
	}
	if s.limit == 0 {
		s.limit = DefaultMaxRequestBytes
	}
	var tooLarge http.Handler
	if s.limit > 0 {
		tooLarge = http.HandlerFunc(s.writeTooLarge)
	}
	s.handler = httpmw.Chain(http.HandlerFunc(s.route),
		s.metrics.http.Middleware(),
		httpmw.HostAllowlist(cfg.HostAllowlist),
		httpmw.CORS(cfg.CORSOrigins),
		httpmw.BodyLimit(s.limit, tooLarge),
	)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// route sends GET /upcheck, GET /readiness and POST / to the signer and
// everything else to the node.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/upcheck" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "I'm up!")
	case r.URL.Path == "/readiness" && r.Method == http.MethodGet:
		s.readiness(w, r)
	case r.URL.Path == "/" && r.Method == http.MethodPost:
		s.serveJSONRPC(w, r)
	default:
		body, ok := s.readBody(w, r)
		if ok {
			s.relay(w, r, body, nil)
		}
	}
}

// readBody reads the request body; on failure it answers (413) or gives up
// (the client went away).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if httpmw.IsTooLarge(err) {
			s.writeTooLarge(w, r)
		}
		return nil, false
	}
	return body, true
}

// writeTooLarge answers a body over the limit: 413 with -32600.
func (s *Server) writeTooLarge(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Connection", "close")
	rp := errorReplyStatus(nullID,
		rpctypes.ErrInvalidRequest.WithReason(fmt.Sprintf("request body larger than %d bytes", s.limit)),
		http.StatusRequestEntityTooLarge)
	writeReply(w, rp)
}

// relay passes a request to the node unchanged and its answer back. When
// the node cannot answer, the signer answers for it: with the request's id
// (from id, nil when the body is not a request object with a valid id) for
// a single request, or for a batch with one error per request that expects
// an answer.
func (s *Server) relay(w http.ResponseWriter, r *http.Request, body []byte, id json.RawMessage) {
	req := &downstream.Request{
		Method:   r.Method,
		Path:     r.URL.EscapedPath(),
		RawQuery: r.URL.RawQuery,
		Header:   downstream.ForwardHeader(r),
		Body:     body,
	}
	if err := s.ds.Relay(r.Context(), w, req); err != nil {
		s.log.Debug("Proxied request failed", "path", r.URL.Path, "err", err)
		if r.URL.Path == "/" && r.Method == http.MethodPost {
			if batch := batchFailure(body, err); batch != nil {
				writeReply(w, batch)
				return
			}
		}
		if id == nil {
			id = nullID
		}
		writeReply(w, transportReply(id, err))
	}
}

// serveJSONRPC handles POST /: requests for a method the signer answers are
// handled here, everything else (other methods, malformed messages) goes to
// the node as it came.
func (s *Server) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	label := "invalid" // the methodName the request is timed under
	if s.metrics.methodTime != nil {
		start := time.Now()
		defer func() { s.observeMethod(label, start) }()
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		label = "batch"
		s.serveBatch(w, r, body)
		return
	}
	var env envelope
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(body, &env) != nil {
		s.relay(w, r, body, nil)
		return
	}
	h := s.handlerFor(env.method())
	label = methodLabel(env.method(), h != nil)
	if h == nil {
		var id json.RawMessage
		if env.idValid() {
			id = env.responseID()
		}
		s.relay(w, r, body, id)
		return
	}
	if !env.idValid() {
		writeReply(w, errorReply(nullID, rpctypes.ErrInvalidRequest))
		return
	}
	writeReply(w, h(s, r.Context(), r, &env))
}

// methodHandler answers one request.
type methodHandler func(s *Server, ctx context.Context, r *http.Request, env *envelope) *reply

// handlerFor returns the handler of a method the signer answers itself,
// or nil for a method that goes to the node.
func (s *Server) handlerFor(method string) methodHandler {
	switch method {
	case "eth_accounts":
		return (*Server).ethAccounts
	case "eth_sign":
		return (*Server).ethSign
	case "personal_sign":
		return (*Server).personalSign
	case "eth_signTypedData_v4", "eth_signTypedData":
		return (*Server).signTypedData
	case "eth_signTransaction":
		return (*Server).ethSignTransaction
	case "eth_sendTransaction":
		return (*Server).ethSendTransaction
	case "eea_sendTransaction":
		return (*Server).eeaSendTransaction
	}
	return nil
}
