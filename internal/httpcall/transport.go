package httpcall

import (
	"net"
	"net/http"
	"time"
)

// IdleConnTimeout is how long an unused connection to a service is kept.
const IdleConnTimeout = 90 * time.Second

// NewTransport returns a transport for a client of one service: a dial
// and a TLS handshake each bounded by dial, TCP keep-alive probes every
// 30 s, no proxy (services are reached directly), and up to 64 idle
// connections kept for IdleConnTimeout. The caller sets what is its own
// (TLS configuration, a connection cap, a proxy) before first use.
func NewTransport(dial time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: dial,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     IdleConnTimeout,
	}
}
