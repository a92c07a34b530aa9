// Package downstream is basalt-signer's HTTP client for the node it
// fronts: it sends requests under the --downstream-http-path prefix, bounds
// each with the request timeout, and tells a timeout from a connection
// failure so that the signer can answer the way EthSigner does (504 with
// "Connection to downstream node timed out" or "Failed to connect to
// downstream node") — and tells whether the request reached the node at
// all (Error.Sent), because after a send the transaction may be in the
// node's pool whatever became of the connection.
package downstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
)

// MaxConns is the most connections the signer keeps open to the node:
// under the 80 a Besu-compatible node accepts by default, leaving room for
// the node's other clients.
const MaxConns = 64

// DefaultTimeout is --downstream-http-request-timeout's default.
const DefaultTimeout = 5 * time.Second

// maxResponseBytes bounds a response the signer reads into memory (the
// answers to its own calls); streamed pass-through responses are not
// bounded.
const maxResponseBytes = 32 << 20

// Config says where the node is.
type Config struct {
	Host string
	Port int
	// Path is prefixed to every request path (--downstream-http-path).
	Path string
	// Timeout is how long the node may stay silent: until the response
	// headers, and between reads of the body. EthSigner (Vert.x) has the
	// same idle-timeout meaning.
	Timeout time.Duration
	// Observe, if not nil, hears of every request once it is over: the
	// operation ("call" for Do, "relay" for Relay), how long it took
	// (body included) and its error (an *Error, nil on success). The
	// signer's metrics use it.
	Observe func(op string, d time.Duration, err error)
}

// Client sends requests to the node. It is safe for concurrent use.
type Client struct {
	base    string
	prefix  string
	timeout time.Duration
	hc      *http.Client
	tr      *http.Transport
	observe func(op string, d time.Duration, err error)
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The node is reached directly (no proxy), over http: the transport's
	// TLS settings are unused.
	tr := httpcall.NewTransport(timeout)
	// Keep enough idle connections for a burst of concurrent calls (each
	// send-transaction call makes two requests), so a burst does not leave
	// thousands of sockets in TIME_WAIT.
	tr.MaxIdleConns = 1024
	tr.MaxIdleConnsPerHost = 1024
	// At most MaxConns open at once: a Besu-compatible node closes
	// connections past --rpc-http-max-active-connections (80 by default)
	// as they arrive, which a burst of concurrent sends would otherwise
	// reach; further requests wait for a free connection.
	tr.MaxConnsPerHost = MaxConns
	return &Client{
		base:    "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		prefix:  cfg.Path,
		timeout: timeout,
		tr:      tr,
		observe: cfg.Observe,
		hc: &http.Client{
			Transport: tr,
			// A redirect is the node's answer; relay it, do not follow it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// URL returns the node's base URL.
func (c *Client) URL() string { return c.base + c.Path("/") }

// Close drops idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// Path joins the configured prefix and an incoming path, collapsing
// repeated slashes and dropping a trailing one (EthSigner's
// DownstreamPathCalculator): prefix "/rpc", path "/" gives "/rpc".
func (c *Client) Path(p string) string {
	joined := "/" + c.prefix + "/" + p
	b := make([]byte, 0, len(joined))
	for i := 0; i < len(joined); i++ {
		if joined[i] == '/' && len(b) > 0 && b[len(b)-1] == '/' {
			continue
		}
		b = append(b, joined[i])
	}
	if len(b) > 1 && b[len(b)-1] == '/' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// Kind classifies a failed request.
type Kind int

const (
	// Timeout: the node did not answer within the timeout.
	Timeout Kind = iota + 1
	// Connect: nothing was sent: no connection could be made (refused,
	// unreachable, DNS, no connection within the timeout), or it failed
	// before the request was written.
	Connect
	// Broken: the connection failed after the request was sent, or the
	// answer was not HTTP: the outcome is unknown.
	Broken
	// Canceled: the caller's context ended first.
	Canceled
)

// Error is a request that got no HTTP response.
type Error struct {
	Kind Kind
	Err  error
	// Sent reports that the request's headers were written to a
	// connection: the node may have received the request and acted on it.
	// When false nothing reached the node (a refused or timed-out dial, a
	// DNS failure) and the request can be sent again safely.
	Sent bool
}

// Error describes the failed downstream call.
func (e *Error) Error() string {
	switch e.Kind {
	case Timeout:
		return "downstream node timed out: " + e.Err.Error()
	case Connect:
		return "cannot connect to downstream node: " + e.Err.Error()
	case Canceled:
		return "request canceled: " + e.Err.Error()
	}
	return "downstream request failed: " + e.Err.Error()
}

// Unwrap returns the transport or protocol error behind the failure.
func (e *Error) Unwrap() error { return e.Err }

var errIdle = errors.New("idle timeout")

// Request is a request for the node. Path is the incoming path, escaped
// (url.URL.EscapedPath); the configured prefix is added.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
}

// Response is the node's answer, read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends req and reads the whole answer (up to 32 MiB). Any HTTP status is
// a response; only a request that got no answer is an error, an *Error.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	var out *Response
	err := c.exchange(ctx, "call", req, func(resp *http.Response, body io.Reader) error {
		b, err := httpcall.ReadAll(body, maxResponseBytes)
		if err != nil {
			return err
		}
		out = &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
		return nil
	})
	return out, err
}

// Relay sends req and streams the answer to w: the node's status, its
// headers but Access-Control-Allow-Origin (the signer's CORS policy
// applies) and hop-by-hop headers, and the body. It returns an *Error, and
// writes nothing, when no response arrived; once the status is written a
// failure only cuts the body short.
func (c *Client) Relay(ctx context.Context, w http.ResponseWriter, req *Request) error {
	return c.exchange(ctx, "relay", req, func(resp *http.Response, body io.Reader) error {
		CopyResponseHeader(w.Header(), resp.Header)
		if resp.ContentLength >= 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, body)
		return nil
	})
}

// exchange sends req and hands the response to read, with the idle timeout
// running until read returns; op names it for Config.Observe.
func (c *Client) exchange(ctx context.Context, op string, req *Request, read func(*http.Response, io.Reader) error) (err error) {
	if c.observe != nil {
		start := time.Now()
		defer func() { c.observe(op, time.Since(start), err) }()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.timeout, func() { cancel(errIdle) })
	defer timer.Stop()

	u := c.base + c.Path(req.Path)
	if req.RawQuery != "" {
		u += "?" + req.RawQuery
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, u, bytes.NewReader(req.Body))
	if err != nil {
		return &Error{Kind: Broken, Err: err}
	}
	if req.Header != nil {
		hr.Header = req.Header
	}
	if req.Body == nil {
		hr.Body, hr.ContentLength = http.NoBody, 0
	}
	// Go's transport sends a request again on a fresh connection when a
	// reused one turns out closed before anything was written; the trace
	// sees the headers written only once they went to the connection that
	// failed or answered.
	var sent atomic.Bool
	hr = hr.WithContext(httptrace.WithClientTrace(hr.Context(), &httptrace.ClientTrace{
		WroteHeaders: func() { sent.Store(true) },
	}))
	resp, err := c.hc.Do(hr)
	if err != nil {
		return c.classify(ctx, err, sent.Load())
	}
	defer resp.Body.Close()
	err = read(resp, &idleReader{r: resp.Body, timer: timer, d: c.timeout})
	if err != nil {
		return c.classify(ctx, err, true)
	}
	return nil
}

// classify turns a failed exchange into an *Error. sent says whether the
// request's headers were written.
func (c *Client) classify(ctx context.Context, err error, sent bool) error {
	if context.Cause(ctx) == errIdle {
		if !sent {
			return &Error{Kind: Connect, Err: fmt.Errorf("no connection within %v", c.timeout)}
		}
		return &Error{Kind: Timeout, Err: fmt.Errorf("no answer within %v", c.timeout), Sent: true}
	}
	if ctx.Err() != nil {
		return &Error{Kind: Canceled, Err: context.Cause(ctx), Sent: sent}
	}
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case !sent, errors.As(err, &op) && op.Op == "dial", errors.As(err, &dns), errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Kind: Connect, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: Timeout, Err: err, Sent: true}
	}
	return &Error{Kind: Broken, Err: err, Sent: true}
}

// idleReader restarts the idle timer on every read that returns data.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}

// hopHeaders are connection-level headers a proxy does not forward
// (RFC 9110 §7.6.1).
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// ForwardHeader returns the headers to send the node for an incoming
// request, as EthSigner does: all of them but Content-Length and Origin,
// with Host renamed X-Forwarded-Host; hop-by-hop headers are dropped too.
// Authorization passes, so a node that wants a JWT gets the client's.
func ForwardHeader(r *http.Request) http.Header {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	h.Del("Content-Length")
	h.Del("Origin")
	if r.Host != "" {
		h.Set("X-Forwarded-Host", r.Host)
	}
	return h
}

// CopyResponseHeader copies a node's response headers to dst, but
// Access-Control-Allow-Origin, Content-Length and hop-by-hop headers.
func CopyResponseHeader(dst, src http.Header) {
	for k, vs := range src {
		switch k {
		case "Access-Control-Allow-Origin", "Content-Length":
			continue
		}
		if isHop(k) {
			continue
		}
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

func isHop(k string) bool {
	for _, h := range hopHeaders {
		if h == k {
			return true
		}
	}
	return false
}

// String names the kind for logs and metrics.
func (k Kind) String() string {
	switch k {
	case Timeout:
		return "timeout"
	case Connect:
		return "connect"
	case Broken:
		return "broken"
	case Canceled:
		return "canceled"
	}
	return "unknown"
}
