package nodeapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
)

// Client timeouts: connecting as Orion's node client (1.5 s); a push may
// take longer than that on a loaded peer, which must store durably first.
const (
	DialTimeout = 1500 * time.Millisecond
	CallTimeout = 10 * time.Second
	// maxReply bounds a peer's answer (a party-info table of many nodes).
	maxReply = 16 << 20
)

var errNoURL = errors.New("empty node URL")

// Client calls other instances' node APIs. It implements manager.Peers and
// discovery.Poller.
type Client struct {
	HTTP *http.Client
	// TLS makes every call use https, whatever the node URL's scheme, as
	// Orion does with tls = "strict".
	TLS bool
}

// DialTLSFunc dials a TLS connection (tlstrust.Dialer.DialTLSContext).
type DialTLSFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// NewClient returns a client. With dialTLS (Orion's tls = "strict"), every
// call is made over TLS connections it dials.
func NewClient(dialTLS DialTLSFunc) *Client {
	tr := httpcall.NewTransport(DialTimeout)
	tr.MaxIdleConns = 256
	tr.ResponseHeaderTimeout = CallTimeout
	if dialTLS != nil {
		tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dctx, cancel := context.WithTimeout(ctx, DialTimeout)
			defer cancel()
			return dialTLS(dctx, network, addr)
		}
	}
	return &Client{HTTP: &http.Client{Transport: tr, Timeout: CallTimeout}, TLS: dialTLS != nil}
}

// endpoint builds scheme://host/path from a node URL. Like Orion, only the
// scheme, host and port of the URL are used.
func (c *Client) endpoint(nodeURL, path string) (string, error) {
	if nodeURL == "" {
		return "", errNoURL
	}
	u, err := url.Parse(nodeURL)
	if err != nil {
		return "", err
	}
	if u.Host == "" {
		return "", fmt.Errorf("node URL %q has no host", nodeURL)
	}
	scheme := u.Scheme
	if c.TLS {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: u.Host, Path: path}).String(), nil
}

func (c *Client) post(ctx context.Context, nodeURL, path, mediaType string, body []byte, header ...string) ([]byte, error) {
	ep, err := c.endpoint(nodeURL, path)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	// Every node API call is idempotent (a push stores the same value under
	// the same key again), so the transport may retry it on a fresh
	// connection when a pooled one turns out dead (the peer restarted). An
	// empty value marks it without sending the header.
	h["Idempotency-Key"] = nil
	a, err := httpcall.Do(ctx, c.HTTP, &httpcall.Request{
		Method: http.MethodPost, URL: ep, Body: body, ContentType: mediaType, Header: h,
	}, maxReply)
	var broken *httpcall.ReadError
	var tooLong *httpcall.TooLongError
	switch {
	case errors.As(err, &broken), errors.As(err, &tooLong):
		return nil, fmt.Errorf("read answer of %s: %w", ep, err)
	case err != nil:
		return nil, err
	case a.Status != http.StatusOK:
		return nil, &manager.PeerStatusError{URL: ep, Status: a.Status, Body: a.Text()}
	}
	return a.Body, nil
}

// Push implements manager.Peers.
func (c *Client) Push(ctx context.Context, nodeURL string, p *payload.EncryptedPayload) (string, error) {
	body, err := p.MarshalCBOR()
	if err != nil {
		return "", err
	}
	reply, err := c.post(ctx, nodeURL, "/push", ptm.MediaCBOR, body)
	return string(reply), err
}

// PushGroup implements manager.Peers.
func (c *Client) PushGroup(ctx context.Context, nodeURL string, body []byte, auth string) (string, error) {
	reply, err := c.post(ctx, nodeURL, "/pushPrivacyGroup", ptm.MediaCBOR, body, manager.GroupAuthHeader, auth)
	return string(reply), err
}

// PartyInfo implements discovery.Poller.
func (c *Client) PartyInfo(ctx context.Context, nodeURL string, body []byte) ([]byte, error) {
	return c.post(ctx, nodeURL, "/partyinfo", ptm.MediaCBOR, body)
}

// Validate implements discovery.Poller.
func (c *Client) Validate(ctx context.Context, nodeURL string, body []byte) ([]byte, error) {
	return c.post(ctx, nodeURL, "/partyinfo/validate", ptm.MediaCBOR, body)
}

// Upcheck calls GET /upcheck and reports whether it answered "I'm up!".
func (c *Client) Upcheck(ctx context.Context, nodeURL string) error {
	ep, err := c.endpoint(nodeURL, "/upcheck")
	if err != nil {
		return err
	}
	a, err := httpcall.Do(ctx, c.HTTP, &httpcall.Request{Method: http.MethodGet, URL: ep}, 64)
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK || string(a.Body) != ptm.Upcheck {
		return fmt.Errorf("%s answered %d %q", ep, a.Status, a.Body)
	}
	return nil
}
