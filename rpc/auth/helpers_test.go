package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// pegasysHash is Besu's test vector: bcrypt of "pegasys" (cost 10).
const pegasysHash = "$2a$10$l3GA7K8g6rJ/Yv.YFSygCuI9byngpEzxgWS9qEg5emYDZomQW7fGC"

// fastHash and fastDummy are bcrypt hashes at the lowest cost, of
// "pegasys" and of nothing anyone knows, so that logins are quick under the
// race detector; tests of the real cost use pegasysHash and dummyHash.
var (
	fastHash  = mustHash("pegasys")
	fastDummy = mustHash("not a password anyone uses")
)

func mustHash(pw string) string {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
}

// credentialsTOML has a user for each permission form, all with the
// password "pegasys" hashed as hash.
func credentialsTOML(hash string) string {
	return `
[Users.admin]
password = "` + hash + `"
permissions = ["*:*"]

[Users.eth]
password = "` + hash + `"
permissions = ["eth:*"]
privacyPublicKey = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="

[Users.one]
password = "` + hash + `"
permissions = ["net:version", "eth:blockNumber", "fakePermission"]
groups = ["ignored"]
roles = ["ignored"]

[Users.none]
password = "` + hash + `"
permissions = []

[Users.nopassword]
permissions = ["*:*"]

[Groups.ignored]
roles = ["x"]

[Roles.x]
permissions = ["*:*"]
`
}

// testKeys are two RSA signing keys, generated once per test binary (the
// generation is slow under the race detector).
var testKeys = sync.OnceValue(func() [2]*rsa.PrivateKey {
	var keys [2]*rsa.PrivateKey
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keys[i] = k
	}
	return keys
})

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Unix(1_700_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// credentialsService returns a credentials-mode service on the test
// credentials with audience aud, signing with testKeys()[key].
func credentialsService(t testing.TB, aud string, key int, clk *clock, log *slog.Logger) *Service {
	t.Helper()
	creds, err := LoadCredentials(writeFile(t, "auth.toml", credentialsTOML(fastHash)))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(Config{Credentials: creds, Audience: aud, SigningKey: testKeys()[key], Now: clk.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	svc.dummyHash = []byte(fastDummy)
	return svc
}

// endpoint is a JSON-RPC endpoint behind a Service, over HTTP and
// WebSocket (two servers, as on a node).
type endpoint struct {
	svc     *Service
	httpURL string
	wsURL   string // ws://…; its /login is http://…/login
}

// testRegistry has a few methods of several groups; eth_subscribe stands for
// the real one (its authorization is the same as any method's).
func testRegistry(t testing.TB) *rpc.Registry {
	reg := rpc.NewRegistry()
	for _, m := range []struct{ group, name, result string }{
		{rpctypes.GroupEth, "eth_blockNumber", "0x10"},
		{rpctypes.GroupEth, "eth_chainId", "0x539"},
		{rpctypes.GroupEth, "eth_subscribe", "0x1"},
		{rpctypes.GroupNet, "net_version", "1337"},
		{rpctypes.GroupNet, "net_peerCount", "0x0"},
		{rpctypes.GroupWeb3, "web3_clientVersion", "basalt/test"},
		{"ADMIN", "admin_peers", "[]"},
		{rpctypes.GroupRPC, "rpc_modules", "{}"},
	} {
		res := m.result
		if err := reg.RegisterGroup(m.group, []rpctypes.Method{{Name: m.name, Fn: func() string { return res }, AllowExtraParams: true}}); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// serve puts the test registry behind svc on an HTTP and a WebSocket
// server. svc nil serves without authentication.
func serve(t testing.TB, svc *Service) *endpoint {
	t.Helper()
	reg := testRegistry(t)
	apis := []string{"ETH", "NET", "WEB3", "ADMIN"}
	var authz rpc.Authorizer
	hcfg := rpc.HTTPConfig{Routes: map[string]http.Handler{"/login": DisabledLogin()}}
	wcfg := rpc.WSConfig{Routes: hcfg.Routes}
	if svc != nil {
		authz = svc
		hcfg.Routes = map[string]http.Handler{"/login": svc.Login()}
		wcfg.Routes = hcfg.Routes
		hcfg.RPCMiddleware = []httpmw.Middleware{svc.HTTPMiddleware()}
		wcfg.Middleware = []httpmw.Middleware{svc.WSMiddleware()}
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: apis, Authorizer: authz})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(rpc.NewHTTPHandler(srv, hcfg))
	t.Cleanup(hs.Close)
	wh := rpc.NewWSHandler(srv, wcfg)
	ws := httptest.NewServer(wh)
	t.Cleanup(func() { wh.Close(); ws.Close() })
	return &endpoint{svc: svc, httpURL: hs.URL, wsURL: "ws" + strings.TrimPrefix(ws.URL, "http")}
}

// response is an HTTP answer.
type response struct {
	status int
	header http.Header
	body   string
}

func post(t testing.TB, url, token, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, string(b)}
}

// login posts credentials to loginURL and returns the token (failing the
// test unless the answer is 200).
func login(t testing.TB, loginURL, user, password string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"username": user, "password": password})
	r := post(t, loginURL, "", string(body))
	if r.status != http.StatusOK {
		t.Fatalf("login %s: %d %q", user, r.status, r.body)
	}
	var out struct{ Token string }
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Token == "" {
		t.Fatalf("login %s: body %q", user, r.body)
	}
	return out.Token
}

// call is a single JSON-RPC request over HTTP with id 7.
func call(t testing.TB, url, token, method string) response {
	t.Helper()
	return post(t, url, token, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":[]}`)
}

const unauthorized7 = `{"jsonrpc":"2.0","id":7,"error":{"code":-40100,"message":"Unauthorized"}}`
const unauthorizedNull = `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}`

// wsConn is a WebSocket client.
type wsConn struct {
	t testing.TB
	c *websocket.Conn
}

func dialWS(t testing.TB, url, token string) *wsConn {
	t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	c, resp, err := websocket.DefaultDialer.Dial(url, h)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", url, err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return &wsConn{t, c}
}

// roundTrip sends msg and returns the next message.
func (w *wsConn) roundTrip(msg string) string {
	w.t.Helper()
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
	w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := w.c.ReadMessage()
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w *wsConn) call(method string) string {
	w.t.Helper()
	return w.roundTrip(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":[]}`)
}

// logBuffer collects every log record at every level.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.Level(-100)}))
}
