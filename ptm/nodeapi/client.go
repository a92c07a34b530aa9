package nodeapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

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
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   DialTimeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: CallTimeout,
	}
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mediaType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// Every node API call is idempotent (a push stores the same value under
	// the same key again), so the transport may retry it on a fresh
	// connection when a pooled one turns out dead (the peer restarted). An
	// empty value marks it without sending the header.
	req.Header["Idempotency-Key"] = nil
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return nil, fmt.Errorf("read answer of %s: %w", ep, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &manager.PeerStatusError{URL: ep, Status: resp.StatusCode, Body: string(bytes.TrimSpace(reply))}
	}
	return reply, nil
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep, nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	if resp.StatusCode != http.StatusOK || string(b) != ptm.Upcheck {
		return fmt.Errorf("%s answered %d %q", ep, resp.StatusCode, b)
	}
	return nil
}
