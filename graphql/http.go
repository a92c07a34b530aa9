package graphql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/basaltchain/basalt/internal/httpmw"
)

// Path is where the service answers.
const Path = "/graphql"

// DefaultMaxRequestBytes caps a request body (413 above it).
const DefaultMaxRequestBytes = 5 << 20

// HTTPConfig is the HTTP side of the GraphQL endpoint.
type HTTPConfig struct {
	// HostAllowlist is --host-allowlist: nil means localhost,127.0.0.1;
	// "*" allows every Host.
	HostAllowlist []string
	// CORSOrigins is --graphql-http-cors-origins: nil allows no
	// cross-origin request; "*" or "all" allows every origin.
	CORSOrigins []string
	// MaxRequestBytes caps request bodies; 0 means DefaultMaxRequestBytes,
	// negative no limit.
	MaxRequestBytes int64
}

// NewHTTPHandler returns the GraphQL endpoint, routed like Besu's
// GraphQLHttpService:
//
//	POST /graphql  Content-Type application/json: {"query", "operationName", "variables"};
//	               any other content type: the body is the query
//	GET  /graphql  ?query=&operationName=&variables=
//	GET|POST /     308 Permanent Redirect to /graphql
//
// behind, in this order, the Host allowlist (403), CORS (403 for a
// disallowed origin, 204 for a preflight) and the body limit (413). The
// answer is the GraphQL response with status 200, or 400 when it carries
// errors (also for a body that is not JSON).
func NewHTTPHandler(s *Service, cfg HTTPConfig) http.Handler {
	limit := cfg.MaxRequestBytes
	if limit == 0 {
		limit = DefaultMaxRequestBytes
	}
	mux := http.NewServeMux()
	h := &httpHandler{s: s}
	mux.Handle(Path, h)
	mux.Handle(Path+"/", h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			methodNotAllowed(w)
			return
		}
		w.Header().Set("Location", Path)
		w.WriteHeader(http.StatusPermanentRedirect)
	})
	return httpmw.Chain(mux,
		httpmw.HostAllowlist(cfg.HostAllowlist),
		httpmw.CORS(cfg.CORSOrigins),
		httpmw.BodyLimit(limit, nil),
	)
}

type httpHandler struct{ s *Service }

// jsonRequest is the body of a POST with Content-Type application/json.
type jsonRequest struct {
	Query         *string         `json:"query"`
	OperationName *string         `json:"operationName"`
	Variables     json.RawMessage `json:"variables"`
}

// ServeHTTP answers a GraphQL request on Path: a GET with the query in the
// URL, or a POST of a JSON body or a raw document.
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path && r.URL.Path != Path+"/" {
		http.NotFound(w, r)
		return
	}
	var req Request
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		if v := q.Get("variables"); v != "" {
			vars, err := decodeVariables([]byte(v))
			if err != nil {
				badRequest(w, err)
				return
			}
			req.Variables = vars
		}
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			if httpmw.IsTooLarge(err) {
				writeJSON(w, http.StatusRequestEntityTooLarge, []byte(`{"message":"Request Entity Too Large"}`))
				return
			}
			badRequest(w, err)
			return
		}
		if isJSON(r.Header.Get("Content-Type")) {
			var jr jsonRequest
			dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(body)))
			if err := dec.Decode(&jr); err != nil {
				badRequest(w, fmt.Errorf("Failed to decode: %v", err))
				return
			}
			if jr.Query != nil {
				req.Query = *jr.Query
			}
			if jr.OperationName != nil {
				req.OperationName = *jr.OperationName
			}
			if len(jr.Variables) > 0 && string(jr.Variables) != "null" {
				vars, err := decodeVariables(jr.Variables)
				if err != nil {
					badRequest(w, err)
					return
				}
				req.Variables = vars
			}
		} else {
			// Besu reads every other content type as a raw document.
			req.Query = strings.TrimSpace(string(body))
		}
	default:
		methodNotAllowed(w)
		return
	}
	status, out := h.s.Execute(r.Context(), req)
	writeJSON(w, status, out)
}

// isJSON reports whether a Content-Type is application/json (parameters
// such as charset aside).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// decodeVariables reads a variables object, keeping numbers exact.
func decodeVariables(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var vars map[string]any
	if err := dec.Decode(&vars); err != nil {
		return nil, fmt.Errorf("Failed to decode variables: %v", err)
	}
	return vars, nil
}

func badRequest(w http.ResponseWriter, err error) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"message": err.Error()}}})
	writeJSON(w, http.StatusBadRequest, body)
}

func methodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", "GET, POST")
	w.WriteHeader(http.StatusMethodNotAllowed)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
