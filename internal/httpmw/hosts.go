package httpmw

import (
	"net/http"
	"strings"
)

// DefaultHosts is the default Host allowlist (Besu's --host-allowlist).
var DefaultHosts = []string{"localhost", "127.0.0.1"}

// hostRefusal is Besu's body for a Host outside the allowlist.
const hostRefusal = `{"message":"Host not authorized."}`

// HostAllowlist admits only requests whose Host header, without its port,
// equals one of hosts, compared case-insensitively (so a DNS-rebinding page
// cannot reach a node that listens on loopback). "*" among hosts admits every
// request; nil hosts means DefaultHosts. A refused request gets 403 with
// {"message":"Host not authorized."}, before any other handling.
func HostAllowlist(hosts []string) Middleware {
	if hosts == nil {
		hosts = DefaultHosts
	}
	allowed := make([]string, 0, len(hosts))
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "*" {
			return func(next http.Handler) http.Handler { return next }
		}
		if h = trimBrackets(h); h != "" {
			allowed = append(allowed, h)
		}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if host := hostOnly(r.Host); host != "" {
				for _, a := range allowed {
					if strings.EqualFold(a, host) {
						next.ServeHTTP(w, r)
						return
					}
				}
			}
			writeMessage(w, http.StatusForbidden, hostRefusal)
		})
	}
}

// hostOnly returns the host part of a Host header value: without the port,
// and an IPv6 literal without its brackets.
func hostOnly(h string) string {
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			return h[1:i]
		}
		return ""
	}
	if i := strings.IndexByte(h, ':'); i >= 0 && strings.IndexByte(h[i+1:], ':') < 0 {
		return h[:i] // exactly one colon: host:port
	}
	return h // no port, or a bare IPv6 literal
}

func trimBrackets(h string) string {
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		return h[1 : len(h)-1]
	}
	return h
}
