// Package tessera is basalt-signer's client of a privacy manager's Tessera
// Q2T API (basalt-privacy's q2tport, or Tessera's own Q2T server): the one
// call a signer needs to send a GoQuorum private transaction, POST
// /storeraw, which stores a payload encrypted for its sender only and
// returns the key GoQuorum private transactions carry as their data. The
// node then shares the payload with the recipients when it takes the
// signed transaction (eth_sendRawPrivateTransaction calls /sendsignedtx on
// the same manager), so the manager must be the one the node uses.
package tessera

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
)

// KeySize is the size of a payload key: Tessera's SHA3-512 of the cipher
// text.
const KeySize = 64

// DefaultTimeout bounds a call when Config.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// maxAnswer bounds the answer read into memory: a key is under 100 bytes,
// an error text a few hundred.
const maxAnswer = 64 << 10

// Config says where the Q2T API is.
type Config struct {
	// URL is the API's base URL, http or https (a path is a prefix).
	URL string
	// Timeout bounds each call (dial, request and answer).
	Timeout time.Duration
}

// Client calls a Q2T API. It is safe for concurrent use.
type Client struct {
	base *url.URL
	hc   *http.Client
}

// ParseURL checks a Q2T base URL: absolute http or https, with a host, no
// query, fragment or credentials.
func ParseURL(s string) (*url.URL, error) {
	u, err := httpcall.ParseBase(s)
	switch {
	case err != nil:
		return nil, err
	case u.User != nil:
		return nil, errors.New("the URL cannot hold credentials")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, errors.New("the URL cannot hold a query or fragment")
	}
	return u, nil
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	u, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("privacy manager URL %q: %w", cfg.URL, err)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{base: u, hc: &http.Client{
		Transport: httpcall.NewTransport(timeout),
		Timeout:   timeout,
		// A redirect is not a stored payload.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// URL returns the base URL.
func (c *Client) URL() string { return c.base.String() }

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Error is a call that failed. Kind says how; for Refused, Status and Text
// are the manager's answer.
type Error struct {
	Kind   Kind
	Status int
	Text   string
	Err    error
}

// Kind is how a call failed.
type Kind int

const (
	// Unreachable: no connection to the manager.
	Unreachable Kind = iota
	// TimedOut: no answer in time.
	TimedOut
	// Refused: the manager answered with an error status.
	Refused
	// BadAnswer: a 2xx answer that holds no key.
	BadAnswer
)

func (e *Error) Error() string {
	switch e.Kind {
	case Refused:
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Text)
	case BadAnswer:
		return "not a storeraw answer: " + e.Text
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// StoreRaw stores payload with the manager, encrypted for from (a Base64
// public key of the manager's; "" for its default key), and returns the
// payload's key. Nothing is shared with anyone until a node sends the
// signed transaction that carries the key.
func (c *Client) StoreRaw(ctx context.Context, payload []byte, from string) ([]byte, error) {
	req := struct {
		Payload []byte `json:"payload"`
		From    string `json:"from,omitempty"`
	}{payload, from}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	a, err := httpcall.Do(ctx, c.hc, &httpcall.Request{
		Method: http.MethodPost, URL: httpcall.Join(c.base, "/storeraw").String(), Body: body,
		ContentType: "application/json", Accept: "application/json",
	}, maxAnswer)
	var tooLong *httpcall.TooLongError
	switch {
	case errors.As(err, &tooLong):
		return nil, &Error{Kind: BadAnswer, Text: err.Error()}
	case err != nil:
		return nil, classify(ctx, err)
	case !a.OK():
		return nil, &Error{Kind: Refused, Status: a.Status, Text: a.Text()}
	}
	data := a.Body
	var out struct {
		Key string `json:"key"`
	}
	if json.Unmarshal(data, &out) != nil {
		return nil, &Error{Kind: BadAnswer, Text: fmt.Sprintf("%.100q", data)}
	}
	key, err := base64.StdEncoding.DecodeString(out.Key)
	if err != nil || len(key) != KeySize {
		return nil, &Error{Kind: BadAnswer, Text: fmt.Sprintf("key %.100q is not Base64 of %d bytes", out.Key, KeySize)}
	}
	return key, nil
}

// classify turns a transport error into an *Error.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err // the caller went away: not the manager's fault
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: TimedOut, Err: err}
	}
	return &Error{Kind: Unreachable, Err: err}
}
