package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/basaltchain/basalt/internal/httpmw"

	"github.com/basaltchain/basalt/rpctypes"
)

// DefaultMaxRequestBytes is the default cap on a request body. (Current Besu
// allows 128 MiB; a JSON-RPC request, even a batch of blob transactions, fits
// well within 5 MiB, and the cap bounds what one request can make us buffer.)
const DefaultMaxRequestBytes = rpctypes.DefaultMaxRequestBytes

// HTTPConfig is the HTTP side of a JSON-RPC endpoint.
type HTTPConfig struct {
	// HostAllowlist is --host-allowlist: nil means localhost,127.0.0.1;
	// "*" allows every Host.
	HostAllowlist []string

	// CORSOrigins is --rpc-http-cors-origins: nil or empty allows no
	// cross-origin request; "*" or "all" allows every origin.
	CORSOrigins []string

	// MaxRequestBytes caps request bodies (413 above it). 0 means
	// DefaultMaxRequestBytes; negative means no limit.
	MaxRequestBytes int64

	// PrettyJSON indents single responses (--rpc-http-pretty-json-enabled).
	PrettyJSON bool

	// Liveness and Readiness answer GET /liveness and GET /readiness:
	// true gives 200 {"status":"UP"}, false 503 {"status":"DOWN"}. nil
	// means always up.
	Liveness  func(*http.Request) bool
	Readiness func(*http.Request) bool

	// Routes adds handlers for other paths (e.g. "/login"); they also take
	// precedence over the built-in ones. They run inside the host, CORS and
	// body-limit checks.
	Routes map[string]http.Handler

	// RPCMiddleware wraps only the JSON-RPC handler (POST /), the first one
	// outermost; this is where authentication goes, putting the caller in
	// the request context with WithCaller.
	RPCMiddleware []httpmw.Middleware
}

// NewHTTPHandler returns the HTTP handler of a JSON-RPC endpoint, routed
// like Besu's:
//
//	POST /           JSON-RPC (a request object or a batch array)
//	GET  /           201, empty body (a health probe)
//	GET  /liveness   200 {"status":"UP"} or 503 {"status":"DOWN"}
//	GET  /readiness  likewise
//
// behind, in this order, the Host allowlist (403), CORS (403 for a
// disallowed origin, 204 for a preflight) and the body limit (413).
//
// HTTP statuses of POST / follow current Besu: 200 for results,
// notifications (empty body), batches and method-level errors; 400 for a
// single request answered -32700 Parse error or -32600 Invalid Request; 401
// for -40100 Unauthorized; 408 when the timeout expires (-32603 "Timeout
// expired", id null); 413 for a body over the limit.
func NewHTTPHandler(s *Server, cfg HTTPConfig) http.Handler {
	limit := cfg.MaxRequestBytes
	if limit == 0 {
		limit = DefaultMaxRequestBytes
	}
	rpc := &httpHandler{s: s, limit: limit, pretty: cfg.PrettyJSON}
	if limit > 0 {
		rpc.tooLarge = appendError(nil, nullID,
			rpctypes.ErrInvalidRequest.WithReason(fmt.Sprintf("request body larger than %d bytes", limit)))
	}
	post := httpmw.Chain(rpc, cfg.RPCMiddleware...)
	live, ready := healthHandler(cfg.Liveness), healthHandler(cfg.Readiness)
	routes := cfg.Routes

	router := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h.ServeHTTP(w, r)
			return
		}
		switch r.URL.Path {
		case "/":
			switch r.Method {
			case http.MethodPost:
				post.ServeHTTP(w, r)
			case http.MethodGet, http.MethodHead:
				w.WriteHeader(http.StatusCreated)
			default:
				methodNotAllowed(w, "GET, POST")
			}
		case "/liveness":
			getOnly(live).ServeHTTP(w, r)
		case "/readiness":
			getOnly(ready).ServeHTTP(w, r)
		default:
			writeJSON(w, http.StatusNotFound, []byte(`{"message":"Resource not found"}`))
		}
	})
	var tooLarge http.Handler
	if limit > 0 {
		tooLarge = http.HandlerFunc(rpc.writeTooLarge)
	}
	return httpmw.Chain(router,
		httpmw.HostAllowlist(cfg.HostAllowlist),
		httpmw.CORS(cfg.CORSOrigins),
		httpmw.BodyLimit(limit, tooLarge),
	)
}

// httpHandler serves JSON-RPC over POST.
type httpHandler struct {
	s        *Server
	limit    int64
	pretty   bool
	tooLarge []byte // the 413 body
}

// errBodyTooLarge reports a body over the handler's own limit.
var errBodyTooLarge = errors.New("request body too large")

var jsonContentType = []string{"application/json"}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := getBuffer()
	defer putBuffer(in)
	body, err := readBody(r.Body, r.ContentLength, h.limit, (*in)[:0])
	*in = body
	if err != nil {
		if errors.Is(err, errBodyTooLarge) || httpmw.IsTooLarge(err) {
			h.writeTooLarge(w, r)
		}
		// Otherwise the client went away mid-body: nobody to answer.
		return
	}

	out := getBuffer()
	defer putBuffer(out)
	resp, o := h.s.process(r.Context(), body, (*out)[:0])
	*out = resp
	if h.pretty && !o.batch && len(resp) > 0 {
		var ind bytes.Buffer
		if json.Indent(&ind, resp, "", "  ") == nil {
			resp = ind.Bytes()
		}
	}
	hd := w.Header()
	hd["Content-Type"] = jsonContentType
	if len(resp) > 0 {
		hd["Content-Length"] = []string{strconv.Itoa(len(resp))}
	}
	w.WriteHeader(o.status)
	if len(resp) > 0 {
		_, _ = w.Write(resp)
	}
}

func (h *httpHandler) writeTooLarge(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Connection", "close")
	writeJSON(w, http.StatusRequestEntityTooLarge, h.tooLarge)
}

// readBody reads the whole body into buf, failing with errBodyTooLarge past
// limit bytes (limit <= 0: no limit).
func readBody(body io.Reader, length, limit int64, buf []byte) ([]byte, error) {
	if limit > 0 && length > limit {
		return buf, errBodyTooLarge
	}
	if length > 0 && int64(cap(buf)) <= length {
		buf = make([]byte, 0, length+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func healthHandler(check func(*http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check == nil || check(r) {
			writeJSON(w, http.StatusOK, []byte(`{"status":"UP"}`))
			return
		}
		writeJSON(w, http.StatusServiceUnavailable, []byte(`{"status":"DOWN"}`))
	})
}

func getOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, "GET")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeJSON(w, http.StatusMethodNotAllowed, []byte(`{"message":"Method Not Allowed"}`))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError answers an HTTP request with a JSON-RPC error response with a
// null id, for middleware that refuses a request before its body is read
// (e.g. a missing token: WriteError(w, http.StatusUnauthorized,
// ErrUnauthorized)).
func WriteError(w http.ResponseWriter, status int, e *rpctypes.Error) {
	writeJSON(w, status, appendError(nil, nullID, e))
}
