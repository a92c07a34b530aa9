package goquorum

import (
	"context"
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

// Timeouts of the manager client. GoQuorum's own with a TOML
// PRIVATE_CONFIG default to 5 s; a receive that times out is retried (the
// block waits), so a short one only means an earlier retry.
const (
	connectTimeout = time.Second
	requestTimeout = 10 * time.Second
)

// maxAnswer bounds what is read of one answer of the manager: a payload
// of a private transaction (GoQuorum's pool limit is 64 KiB of data, the
// payload is Base64 in JSON) with ample room.
const maxAnswer = 16 << 20

// ErrNotParty is the manager's 404 to a receive: it holds no payload of
// that key for this node (GoQuorum: the node is not a party).
var ErrNotParty = errors.New("not a party to the private transaction")

// StatusError is a manager answer other than success or 404.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("privacy manager answered %d: %s", e.Status, e.Body)
}

// Client talks to a privacy manager's Tessera Q2T API (basalt-privacy's,
// or Tessera's), as GoQuorum's private/engine/tessera client does with API
// version 1.0 media types. It is safe for concurrent use.
type Client struct {
	base *url.URL
	http *http.Client
}

// NewClient returns a client of the Q2T API at rawURL (http).
func NewClient(rawURL string) (*Client, error) {
	u, err := httpcall.ParseBase(strings.TrimRight(rawURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("invalid privacy manager Q2T URL %q: want http://host:port", rawURL)
	}
	tr := httpcall.NewTransport(connectTimeout)
	tr.MaxIdleConnsPerHost = 32
	return &Client{base: u, http: &http.Client{Transport: tr, Timeout: requestTimeout}}, nil
}

// URL is the manager's base URL.
func (c *Client) URL() string { return c.base.String() }

// Received is the answer to a receive.
type Received struct {
	Payload        []byte   `json:"payload"`
	PrivacyFlag    int      `json:"privacyFlag"`
	ManagedParties []string `json:"managedParties"`
	SenderKey      string   `json:"senderKey"`
	ExecHash       string   `json:"execHash"`
	Affected       []string `json:"affectedContractTransactions"`
}

// Upcheck asks GET /upcheck.
func (c *Client) Upcheck(ctx context.Context) error {
	b, err := c.do(ctx, http.MethodGet, "/upcheck", "", nil, nil)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(b)) != "I'm up!" {
		return fmt.Errorf("/upcheck answered %q", b)
	}
	return nil
}

// Receive asks GET /transaction/{key}?isRaw=raw for the payload of a
// private transaction's 64-byte key: ErrNotParty on 404.
func (c *Client) Receive(ctx context.Context, key []byte, raw bool) (*Received, error) {
	path := "/transaction/" + url.PathEscape(base64.StdEncoding.EncodeToString(key))
	q := "isRaw=false"
	if raw {
		q = "isRaw=true"
	}
	b, err := c.do(ctx, http.MethodGet, path, q, nil, nil)
	if err != nil {
		return nil, err
	}
	var r Received
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("privacy manager's answer to %s: %w", path, err)
	}
	return &r, nil
}

// SendSigned asks POST /sendsignedtx (JSON, API 1.0 media type) to send the
// payload stored by /storeraw under key to the recipients to; it returns
// the key (the same one).
func (c *Client) SendSigned(ctx context.Context, key []byte, to []string) (string, error) {
	body, err := json.Marshal(struct {
		Hash []byte   `json:"hash"`
		To   []string `json:"to"`
	}{key, to})
	if err != nil {
		return "", err
	}
	b, err := c.do(ctx, http.MethodPost, "/sendsignedtx", "", body, nil)
	if err != nil {
		return "", err
	}
	var r struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return "", fmt.Errorf("privacy manager's answer to /sendsignedtx: %w", err)
	}
	return r.Key, nil
}

// do sends one request and returns the body of a 200 or 201 answer.
func (c *Client) do(ctx context.Context, method, path, query string, body []byte, _ http.Header) ([]byte, error) {
	u := httpcall.Join(c.base, path)
	u.RawQuery = query
	req := &httpcall.Request{Method: method, URL: u.String(), Body: body, Accept: "application/json"}
	if body != nil {
		req.ContentType = "application/json"
	}
	a, err := httpcall.Do(ctx, c.http, req, maxAnswer)
	if err != nil {
		var tooLong *httpcall.TooLongError
		if errors.As(err, &tooLong) {
			return nil, fmt.Errorf("privacy manager's answer to %s is over %d bytes", path, maxAnswer)
		}
		return nil, err
	}
	switch a.Status {
	case http.StatusOK, http.StatusCreated:
		return a.Body, nil
	case http.StatusNotFound:
		return nil, ErrNotParty
	}
	return nil, &StatusError{Status: a.Status, Body: a.Text()}
}
