// Package httpcall is the plumbing every HTTP client of Basalt repeats: a
// checked base URL, a transport for one service, a path joined onto the
// base, a request with a JSON (or other) body sent and its answer read
// into memory with a bound, and a non-2xx status turned into an error with
// a short text. The node's privacy manager clients, the privacy manager's
// node API client, the signer's clients of its node, of Tessera and of
// Vault, and the load generator share it, so that each keeps only what is
// its own: its timeouts, its retries, its error types.
//
// It imports only the standard library (a leaf: test/layers checks it).
package httpcall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ParseBase checks a service's base URL: absolute, http or https, with a
// host. A path is kept as a prefix of every call's path (see Join); the
// caller checks anything more it needs (credentials, a query).
func ParseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, err
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("want an http:// or https:// URL")
	case u.Host == "":
		return nil, errors.New("the URL has no host")
	}
	return u, nil
}

// Join returns base with path appended to its path: path is in escaped
// form and starts with "/" (a segment built from data is escaped with
// url.PathEscape by the caller). The base's trailing slashes are dropped,
// so "http://h/prefix/" and "/send" give "http://h/prefix/send", and its
// own escaping is kept, so an escaped "/" in the prefix stays one. The
// base's query and fragment are not carried over.
func Join(base *url.URL, path string) *url.URL {
	u := *base
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	raw := strings.TrimRight(base.EscapedPath(), "/") + path
	p, err := url.PathUnescape(raw)
	if err != nil {
		// Not valid escaping: take the text as it is, which String escapes.
		u.Path, u.RawPath = raw, ""
		return &u
	}
	u.Path, u.RawPath = p, raw
	return &u
}

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

// Request is one call of a service.
type Request struct {
	Method string
	URL    string
	// Body is sent when not nil.
	Body []byte
	// ContentType and Accept set those headers when not empty.
	ContentType string
	Accept      string
	// Header holds further headers, set after the two above.
	Header http.Header
}

// Answer is a service's answer, read in full.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// OK reports a 2xx status.
func (a *Answer) OK() bool { return a.Status/100 == 2 }

// Text is the body as an error text: space trimmed, cut at TextLimit bytes.
func (a *Answer) Text() string { return Cut(strings.TrimSpace(string(a.Body)), TextLimit) }

// Err returns nil for a 2xx answer, else a *StatusError with the status
// and Text.
func (a *Answer) Err() error {
	if a.OK() {
		return nil
	}
	return &StatusError{Status: a.Status, Text: a.Text()}
}

// StatusError is an answer with a status other than 2xx.
type StatusError struct {
	Status int
	// Text is the answer's body, trimmed and cut (Answer.Text).
	Text string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Text) }

// TextLimit is where an answer's text in an error is cut: enough for a
// service's error message, too little to flood a log with an HTML page.
const TextLimit = 200

// Cut returns s cut at n bytes, with "…" when something was cut off. A
// cut never splits a UTF-8 sequence.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// ReadError is a failure to read an answer whose status line arrived: the
// connection broke or timed out mid-body. Its text is the cause's.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// TooLongError is an answer longer than the caller's bound: refused
// rather than cut, since a cut answer is a wrong one.
type TooLongError struct{ Max int64 }

func (e *TooLongError) Error() string { return fmt.Sprintf("response larger than %d bytes", e.Max) }

// ReadAll reads r to its end, at most max bytes: a longer stream is a
// *TooLongError (the bound keeps a faulty or hostile service from growing
// the caller's memory without limit).
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLongError{Max: max}
	}
	return b, nil
}

// Do sends req with hc and reads the answer, up to max bytes of body. Any
// status is an answer (see Answer.Err). Errors: building the request, the
// client's own (a *url.Error: no answer arrived, with the transport's or
// ctx's cause inside), a *ReadError, or a *TooLongError.
func Do(ctx context.Context, hc *http.Client, req *Request, max int64) (*Answer, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	if req.ContentType != "" {
		hr.Header.Set("Content-Type", req.ContentType)
	}
	if req.Accept != "" {
		hr.Header.Set("Accept", req.Accept)
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := ReadAll(resp.Body, max)
	if err != nil {
		var tl *TooLongError
		if errors.As(err, &tl) {
			return nil, err
		}
		return nil, &ReadError{Err: err}
	}
	return &Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
