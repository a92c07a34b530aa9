package httpmw

import (
	"net/http"
	"regexp"
	"strings"
)

// corsRefusal is the body for a request from an origin that is not allowed.
const corsRefusal = `{"message":"CORS Rejected - Invalid origin"}`

// corsMethods are the methods a preflight allows.
const corsMethods = "GET, POST, OPTIONS"

// CORS applies a cross-origin policy like Besu's (--rpc-http-cors-origins,
// vert.x CorsHandler):
//
//   - A request without an Origin header (or with an empty one) is not a
//     cross-origin request: it passes unchanged, without CORS headers.
//   - origins lists the allowed origins; "*" or "all" allows every origin.
//     An entry matches an Origin exactly (case-insensitively) or, as in
//     Besu, as a regular expression matching the whole Origin.
//   - An allowed preflight (OPTIONS with Access-Control-Request-Method) is
//     answered 204 with Access-Control-Allow-Origin (the request's origin),
//     -Allow-Methods and -Allow-Headers (echoing the requested headers, so
//     Authorization and Content-Type pass); other allowed requests get
//     Access-Control-Allow-Origin and go on.
//   - A request with an Origin that is not allowed — any Origin, when origins
//     is empty — is refused with 403 {"message":"CORS Rejected - Invalid
//     origin"}, so a web page cannot make the server act on a "simple"
//     cross-origin POST whose answer the browser would merely hide.
func CORS(origins []string) Middleware {
	var (
		all      bool
		exact    []string
		patterns []*regexp.Regexp
	)
	for _, o := range origins {
		o = strings.TrimSpace(o)
		switch {
		case o == "":
		case o == "*" || strings.EqualFold(o, "all"):
			all = true
		default:
			exact = append(exact, o)
			if re, err := regexp.Compile(`^(?:` + o + `)$`); err == nil {
				patterns = append(patterns, re)
			}
		}
	}
	allowed := func(origin string) bool {
		if all {
			return true
		}
		for _, e := range exact {
			if strings.EqualFold(e, origin) {
				return true
			}
		}
		for _, re := range patterns {
			if re.MatchString(origin) {
				return true
			}
		}
		return false
	}
	configured := all || len(exact) > 0
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "" {
				if configured {
					w.Header().Add("Vary", "Origin")
				}
				next.ServeHTTP(w, r)
				return
			}
			if !allowed(origin) {
				writeMessage(w, http.StatusForbidden, corsRefusal)
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", corsMethods)
				if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
					h.Set("Access-Control-Allow-Headers", rh)
					h.Add("Vary", "Access-Control-Request-Headers")
				}
				h.Set("Content-Length", "0")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
