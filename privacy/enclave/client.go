// Package enclave is the node's client of the privacy manager's client API
// (basalt-privacy, Orion, Tessera in Orion mode): /upcheck, /send,
// /receive and the privacy-group routes (spec privacy-manager-api.md,
// reference/privacy.md §5, §11).
//
// Timeouts are Besu's: 1 s to connect, 5 s for a whole request. Only the
// idempotent calls (/upcheck, /receive, /findPrivacyGroup,
// /retrievePrivacyGroup) are retried after an I/O failure; /send and the
// group changes are not, since a retry after a lost answer could store or
// push twice.
package enclave

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
)

// Besu's enclave client timeouts (reference/privacy.md §11).
const (
	ConnectTimeout = time.Second
	RequestTimeout = 5 * time.Second
)

// idempotentAttempts is how often an idempotent request is tried when the
// connection fails.
const idempotentAttempts = 3

// upText is the exact body of a healthy /upcheck.
const upText = "I'm up!"

// maxAnswer bounds what is read of one answer: a payload of a private
// transaction (double Base64 in JSON) or a list of groups, with ample room.
const maxAnswer = 64 << 20

// orionMediaType selects /receive's answer with privacyGroupId and
// senderKey (Besu sends it).
const orionMediaType = "application/vnd.orion.v1+json"

// Config configures a Client.
type Config struct {
	// URL is the client API's base URL (--privacy-url).
	URL string
	// TLS, when set, is used for https URLs (--privacy-tls-*).
	TLS *tls.Config
}

// Client talks to one privacy manager's client API. It is safe for
// concurrent use.
type Client struct {
	base *url.URL
	http *http.Client
}

// New returns a client of the manager at cfg.URL.
func New(cfg Config) (*Client, error) {
	u, err := httpcall.ParseBase(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid privacy manager URL %q: want http(s)://host:port", cfg.URL)
	}
	if u.Scheme == "https" && cfg.TLS == nil {
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tr := httpcall.NewTransport(ConnectTimeout)
	tr.TLSClientConfig = cfg.TLS
	return &Client{base: u, http: &http.Client{Transport: tr, Timeout: RequestTimeout}}, nil
}

// URL is the manager's base URL.
func (c *Client) URL() string { return c.base.String() }

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Error is an answer of the manager other than 200: its HTTP status and
// Orion error code ({"error":"<code>"}), or the body when it is not one.
type Error struct {
	Status int
	Code   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("privacy manager answered %d %s", e.Status, e.Code)
}

// NotOurs reports a 4xx answer: for /receive, a payload this node's keys do
// not hold or cannot decrypt — the "not ours" signal (reference §12).
func (e *Error) NotOurs() bool { return e.Status >= 400 && e.Status < 500 }

// IsNotOurs reports whether err is a 4xx answer of the manager.
func IsNotOurs(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.NotOurs()
}

// Code returns the Orion error code of err, "" if it is no answer of the
// manager.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Upcheck asks GET /upcheck and wants exactly "I'm up!".
func (c *Client) Upcheck(ctx context.Context) error {
	body, err := c.do(ctx, http.MethodGet, "/upcheck", "", nil, true)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(body)) != upText {
		return fmt.Errorf("privacy manager at %s: /upcheck answered %q, want %q", c.base, body, upText)
	}
	return nil
}

// EncodePayload is the /send payload field for a private transaction's RLP:
// Besu sends the UTF-8 of base64(rlp) as a byte array, which JSON encodes
// in Base64 again, so the manager's plaintext is the ASCII text base64(rlp)
// (reference §8.3).
func EncodePayload(rlp []byte) string {
	inner := base64.StdEncoding.EncodeToString(rlp)
	return base64.StdEncoding.EncodeToString([]byte(inner))
}

// DecodePayload reverses EncodePayload.
func DecodePayload(field string) ([]byte, error) {
	inner, err := base64.StdEncoding.DecodeString(field)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	rlp, err := base64.StdEncoding.DecodeString(string(inner))
	if err != nil {
		return nil, fmt.Errorf("payload is not double Base64: %w", err)
	}
	return rlp, nil
}

type sendRequest struct {
	Payload        string   `json:"payload"`
	From           string   `json:"from"`
	To             []string `json:"to,omitempty"`
	PrivacyGroupID string   `json:"privacyGroupId,omitempty"`
}

// Send stores and distributes rlp from the key from to the keys to (empty:
// to from alone) and returns the payload key.
func (c *Client) Send(ctx context.Context, rlp []byte, from string, to []string) ([]byte, error) {
	if len(to) == 0 {
		to = []string{from}
	}
	return c.send(ctx, sendRequest{Payload: EncodePayload(rlp), From: from, To: to})
}

// SendToGroup stores and distributes rlp to the members of a privacy group.
func (c *Client) SendToGroup(ctx context.Context, rlp []byte, from, groupID string) ([]byte, error) {
	return c.send(ctx, sendRequest{Payload: EncodePayload(rlp), From: from, PrivacyGroupID: groupID})
}

func (c *Client) send(ctx context.Context, req sendRequest) ([]byte, error) {
	var out struct {
		Key string `json:"key"`
	}
	if err := c.postJSON(ctx, "/send", "application/json", req, &out, false); err != nil {
		return nil, err
	}
	key, err := base64.StdEncoding.DecodeString(out.Key)
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("privacy manager at %s: /send answered key %q, want 32 bytes in Base64", c.base, out.Key)
	}
	return key, nil
}

// Received is a payload /receive returned.
type Received struct {
	// Payload is the private transaction's RLP (double Base64 undone).
	Payload []byte
	// PrivacyGroupID is the group the payload was sent to (Base64).
	PrivacyGroupID string
	// SenderKey is the sender's key (Base64).
	SenderKey string
}

// Receive fetches the payload under key (the PMT's data), trying every key
// of the manager ("to": null, as Besu asks).
func (c *Client) Receive(ctx context.Context, key []byte) (*Received, error) {
	req := map[string]any{"key": base64.StdEncoding.EncodeToString(key), "to": nil}
	var out struct {
		Payload        string `json:"payload"`
		PrivacyGroupID string `json:"privacyGroupId"`
		SenderKey      string `json:"senderKey"`
	}
	if err := c.postJSON(ctx, "/receive", orionMediaType, req, &out, true); err != nil {
		return nil, err
	}
	p, err := DecodePayload(out.Payload)
	if err != nil {
		return nil, fmt.Errorf("privacy manager at %s: /receive: %w", c.base, err)
	}
	return &Received{Payload: p, PrivacyGroupID: out.PrivacyGroupID, SenderKey: out.SenderKey}, nil
}

// PrivacyGroup is the manager's privacy group object.
type PrivacyGroup struct {
	PrivacyGroupID string   `json:"privacyGroupId"`
	Name           string   `json:"name,omitempty"`
	Description    string   `json:"description,omitempty"`
	Type           string   `json:"type"`
	Members        []string `json:"members"`
}

// CreatePrivacyGroup creates a group of members, made by from.
func (c *Client) CreatePrivacyGroup(ctx context.Context, members []string, from, name, description string) (*PrivacyGroup, error) {
	req := map[string]any{"addresses": members, "from": from}
	if name != "" {
		req["name"] = name
	}
	if description != "" {
		req["description"] = description
	}
	var g PrivacyGroup
	if err := c.postJSON(ctx, "/createPrivacyGroup", "application/json", req, &g, false); err != nil {
		return nil, err
	}
	return &g, nil
}

// DeletePrivacyGroup deletes the group id on behalf of from and returns its
// ID.
func (c *Client) DeletePrivacyGroup(ctx context.Context, id, from string) (string, error) {
	var out string
	err := c.postJSON(ctx, "/deletePrivacyGroup", "application/json", map[string]string{"privacyGroupId": id, "from": from}, &out, false)
	return out, err
}

// FindPrivacyGroup returns the groups with exactly members.
func (c *Client) FindPrivacyGroup(ctx context.Context, members []string) ([]PrivacyGroup, error) {
	out := []PrivacyGroup{}
	err := c.postJSON(ctx, "/findPrivacyGroup", "application/json", map[string]any{"addresses": members}, &out, true)
	return out, err
}

// RetrievePrivacyGroup returns the group id.
func (c *Client) RetrievePrivacyGroup(ctx context.Context, id string) (*PrivacyGroup, error) {
	var g PrivacyGroup
	if err := c.postJSON(ctx, "/retrievePrivacyGroup", "application/json", map[string]string{"privacyGroupId": id}, &g, true); err != nil {
		return nil, err
	}
	return &g, nil
}

func (c *Client) postJSON(ctx context.Context, path, mediaType string, in, out any, idempotent bool) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	resp, err := c.do(ctx, http.MethodPost, path, mediaType, body, idempotent)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return fmt.Errorf("privacy manager at %s: %s answered %q: %w", c.base, path, httpcall.Cut(string(resp), httpcall.TextLimit), err)
	}
	return nil
}

// do sends one request, retrying an idempotent one after a connection
// failure (never after an answer).
func (c *Client) do(ctx context.Context, method, path, mediaType string, body []byte, idempotent bool) ([]byte, error) {
	attempts := 1
	if idempotent {
		attempts = idempotentAttempts
	}
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(i) * 100 * time.Millisecond):
			}
		}
		var out []byte
		var answered bool
		out, answered, err = c.once(ctx, method, path, mediaType, body)
		if err == nil || answered || ctx.Err() != nil {
			return out, err
		}
	}
	return nil, err
}

// once sends one request; answered says the manager answered (err is then
// an *Error or a bad body).
func (c *Client) once(ctx context.Context, method, path, mediaType string, body []byte) ([]byte, bool, error) {
	a, err := httpcall.Do(ctx, c.http, &httpcall.Request{
		Method: method, URL: httpcall.Join(c.base, path).String(), Body: body, ContentType: mediaType,
	}, maxAnswer)
	var tooLong *httpcall.TooLongError
	var broken *httpcall.ReadError
	switch {
	case errors.As(err, &tooLong):
		// An answer, if a wrong one: not retried.
		return nil, true, fmt.Errorf("privacy manager at %s: %s: %w", c.base, path, err)
	case errors.As(err, &broken):
		return nil, false, fmt.Errorf("privacy manager at %s: %s: %w", c.base, path, err)
	case err != nil:
		return nil, false, fmt.Errorf("privacy manager at %s: %w", c.base, err)
	}
	if a.Status != http.StatusOK {
		e := &Error{Status: a.Status, Code: strings.TrimSpace(string(a.Body))}
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(a.Body, &body) == nil && body.Error != "" {
			e.Code = body.Error
		}
		return nil, true, e
	}
	return a.Body, true, nil
}
