// Package ptmtest runs basalt-privacy instances for tests — in process
// (instance.Start) or as real processes of the built binary — on loopback
// with free ports, and talks to their client API.
package ptmtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/proctest"
	"github.com/basaltchain/basalt/ptm/keys"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	return proctest.FreePort(t)
}

// KeyFiles writes dir/name.pub and dir/name.key (unlocked) and returns the
// public key.
func KeyFiles(t testing.TB, dir, name string) keys.PublicKey {
	t.Helper()
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := keys.WriteKeyPairFiles(filepath.Join(dir, name), kp, ""); err != nil {
		t.Fatal(err)
	}
	return kp.Public
}

// Conf describes an instance's orion.conf.
type Conf struct {
	Dir        string   // workdir (created)
	NodePort   int      // 0: a free port is chosen
	ClientPort int      // 0: a free port is chosen
	Keys       []string // key names: Dir/name.pub and Dir/name.key (created if missing)
	OtherNodes []string
	Storage    string // default "memory"
	Extra      string // more TOML lines
	// ClientTLS, when set, is the TLS configuration the test's API uses to
	// reach a client API that requires TLS (clientconnectiontls = "strict").
	ClientTLS *tls.Config
	// ClientToken, when set, is sent as a bearer token with every client
	// API request (clientapitokens).
	ClientToken string
}

// Write fills in ports, creates missing key files, writes Dir/orion.conf and
// returns its path and the hosted public keys.
func (c *Conf) Write(t testing.TB) (string, []keys.PublicKey) {
	t.Helper()
	if c.NodePort == 0 {
		c.NodePort = FreePort(t)
	}
	if c.ClientPort == 0 {
		c.ClientPort = FreePort(t)
	}
	if c.Storage == "" {
		c.Storage = "memory"
	}
	var pubs, privs []string
	var ks []keys.PublicKey
	for _, name := range c.Keys {
		var k keys.PublicKey
		if _, err := os.Stat(filepath.Join(c.Dir, name+".pub")); err == nil {
			var err error
			if k, err = keys.ReadPublicKeyFile(filepath.Join(c.Dir, name+".pub")); err != nil {
				t.Fatal(err)
			}
		} else {
			k = KeyFiles(t, c.Dir, name)
		}
		ks = append(ks, k)
		pubs = append(pubs, strconv.Quote(name+".pub"))
		privs = append(privs, strconv.Quote(name+".key"))
	}
	var others []string
	for _, o := range c.OtherNodes {
		others = append(others, strconv.Quote(o))
	}
	conf := fmt.Sprintf(`nodeurl = "http://127.0.0.1:%d/"
nodeport = %d
clientport = %d
workdir = %q
publickeys = [%s]
privatekeys = [%s]
othernodes = [%s]
storage = %q
%s
`, c.NodePort, c.NodePort, c.ClientPort, c.Dir, strings.Join(pubs, ", "), strings.Join(privs, ", "), strings.Join(others, ", "), c.Storage, c.Extra)
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(c.Dir, "orion.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ks
}

// NodeURL is the node URL the Conf advertises.
func (c *Conf) NodeURL() string { return fmt.Sprintf("http://127.0.0.1:%d/", c.NodePort) }

// API talks to a client API.
type API struct {
	URL  string // http://127.0.0.1:port
	HTTP *http.Client
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
}

// NewAPI returns an API for a client base URL.
func NewAPI(url string) *API {
	return &API{URL: strings.TrimRight(url, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// NewTLSAPI returns an API for a client base URL (https://...) reached with
// cfg.
func NewTLSAPI(url string, cfg *tls.Config) *API {
	return &API{URL: strings.TrimRight(url, "/"), HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}}
}

// Response is an HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Error returns the Orion error code of an error answer ("" if none).
func (r *Response) Error() string {
	var e struct {
		Error string `json:"error"`
	}
	json.Unmarshal(r.Body, &e)
	return e.Error
}

func (r *Response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }

// Do sends a request; body is sent as is ([]byte or string) or as JSON.
func (a *API) Do(method, path, mediaType string, body any, headers ...string) (*Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, a.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if mediaType != "" {
		req.Header.Set("Content-Type", mediaType)
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// Must is Do that fails the test on a transport error.
func (a *API) Must(t testing.TB, method, path, mediaType string, body any, headers ...string) *Response {
	t.Helper()
	r, err := a.Do(method, path, mediaType, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// Send posts /send and returns the payload key, failing the test otherwise.
func (a *API) Send(t testing.TB, payload []byte, from keys.PublicKey, to ...keys.PublicKey) string {
	t.Helper()
	req := map[string]any{"payload": payload, "from": from.String(), "to": Strings(to)}
	r := a.Must(t, "POST", "/send", "application/json", req)
	return decodeKey(t, r)
}

// SendToGroup posts /send with a privacy group id.
func (a *API) SendToGroup(t testing.TB, payload []byte, from keys.PublicKey, group string) string {
	t.Helper()
	r := a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": payload, "from": from.String(), "privacyGroupId": group})
	return decodeKey(t, r)
}

func decodeKey(t testing.TB, r *Response) string {
	t.Helper()
	var out struct {
		Key string `json:"key"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &out) != nil || out.Key == "" {
		t.Fatalf("/send: %s", r)
	}
	return out.Key
}

// Received is a decoded /receive answer.
type Received struct {
	Payload        []byte `json:"payload"`
	PrivacyGroupID string `json:"privacyGroupId"`
	SenderKey      string `json:"senderKey"`
}

// Receive posts /receive (Orion's v1 media type) for key as to (nil: any
// hosted key).
func (a *API) Receive(key string, to *keys.PublicKey) (*Received, *Response, error) {
	req := map[string]any{"key": key, "to": nil}
	if to != nil {
		req["to"] = to.String()
	}
	r, err := a.Do("POST", "/receive", "application/vnd.orion.v1+json", req)
	if err != nil || r.Status != 200 {
		return nil, r, err
	}
	var got Received
	if err := json.Unmarshal(r.Body, &got); err != nil {
		return nil, r, err
	}
	return &got, r, nil
}

// Up reports whether /upcheck answers.
func (a *API) Up() bool {
	r, err := a.Do("GET", "/upcheck", "", nil)
	return err == nil && r.Status == 200 && string(r.Body) == "I'm up!"
}

// Strings returns the Base64 forms of keys.
func Strings(ks []keys.PublicKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return out
}

// WaitFor polls cond every 50ms until it holds or timeout passes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	proctest.WaitFor(t, timeout, 50*time.Millisecond, what, cond)
}
