package ptm

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/basaltchain/basalt/internal/httpmw"
)

// Media types of the two APIs.
const (
	MediaJSON    = "application/json"
	MediaOrionV1 = "application/vnd.orion.v1+json"
	MediaBytes   = "application/octet-stream"
	MediaCBOR    = "application/cbor"
	MediaText    = "text/plain; charset=utf-8"
)

// Route is one endpoint of a Router.
type Route struct {
	Method string
	Path   string
	// Consumes lists the request media types the route takes (parameters
	// such as charset ignored); empty means any.
	Consumes []string
	Handler  http.HandlerFunc
}

// UpcheckRoute is GET /upcheck, which both APIs answer "I'm up!".
var UpcheckRoute = Route{Method: http.MethodGet, Path: "/upcheck", Handler: func(w http.ResponseWriter, _ *http.Request) { WriteText(w, Upcheck) }}

// Handler is an API's router behind its access check (the client API's
// authentication, the node API's allowlist) and the body limit: a body over
// maxBody bytes (0: no limit) is answered 413 PayloadTooLarge, as Orion
// answers it.
func Handler(router http.Handler, maxBody int64, access httpmw.Middleware) http.Handler {
	tooLarge := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WriteError(w, http.StatusRequestEntityTooLarge, PayloadTooLarge)
	})
	return httpmw.Chain(router, access, httpmw.BodyLimit(maxBody, tooLarge))
}

// Router dispatches like Orion's vert.x routers: by method, exact path and
// request Content-Type. A request no route matches — unknown path, other
// method, or a Content-Type the path does not consume — is answered 404, as
// Orion does, with a short text saying what would have matched.
type Router struct {
	routes map[string][]Route
}

// NewRouter returns a router over routes.
func NewRouter(routes ...Route) *Router {
	r := &Router{routes: map[string][]Route{}}
	for _, rt := range routes {
		r.routes[rt.Path] = append(r.routes[rt.Path], rt)
	}
	return r
}

// ServeHTTP implements http.Handler.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	candidates := rt.routes[r.URL.Path]
	mt := RequestMediaType(r)
	var expected []string
	for _, c := range candidates {
		if c.Method != r.Method {
			continue
		}
		if len(c.Consumes) == 0 {
			c.Handler(w, r)
			return
		}
		for _, want := range c.Consumes {
			if want == mt {
				c.Handler(w, r)
				return
			}
		}
		expected = append(expected, c.Consumes...)
	}
	w.Header().Set("Content-Type", MediaText)
	w.WriteHeader(http.StatusNotFound)
	if len(expected) > 0 {
		io.WriteString(w, "no route for "+r.Method+" "+r.URL.Path+" with Content-Type "+quoteEmpty(mt)+"; expected "+strings.Join(expected, " or ")+"\n")
	} else {
		io.WriteString(w, "no route for "+r.Method+" "+r.URL.Path+"\n")
	}
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// RequestMediaType returns the request's media type, lower case, without
// parameters ("" when absent or unparsable).
func RequestMediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// errorBody is Orion's error JSON.
type errorBody struct {
	Error Code `json:"error"`
}

// WriteError answers status with {"error":"<code>"} (application/json).
func WriteError(w http.ResponseWriter, status int, code Code) {
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody{Error: code})
}

// WriteJSON answers 200 with v as JSON of the given media type.
func WriteJSON(w http.ResponseWriter, mediaType string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, ObjectJSONSerialization)
		return
	}
	w.Header().Set("Content-Type", mediaType)
	w.Write(data)
}

// WriteText answers 200 with a text/plain body.
func WriteText(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", MediaText)
	io.WriteString(w, s)
}

// WriteCBOR answers 200 with a CBOR body (the node API's).
func WriteCBOR(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", MediaCBOR)
	w.Write(b)
}

// WriteBytes answers 200 with raw bytes (application/octet-stream).
func WriteBytes(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", MediaBytes)
	w.Write(b)
}

// Upcheck is the answer of GET /upcheck on both APIs.
const Upcheck = "I'm up!"
