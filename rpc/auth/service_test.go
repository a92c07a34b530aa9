package auth

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func TestLogin(t *testing.T) {
	ep := serve(t, credentialsService(t, "rpc-http", 0, newClock(), nil))
	tok := login(t, ep.httpURL+"/login", "admin", "pegasys")
	if c, err := ep.svc.Verify(tok); err != nil || c.Username != "admin" {
		t.Fatalf("token: %+v %v", c, err)
	}
	r := post(t, ep.httpURL+"/login", "", `{"username":"admin","password":"pegasys"}`)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}

	// Bad credentials: one answer whatever the reason.
	var refusals []response
	for _, body := range []string{
		`{"username":"admin","password":"wrong"}`,
		`{"username":"nobody","password":"pegasys"}`,
		`{"username":"nopassword","password":""}`,
		`{"username":"nopassword","password":"pegasys"}`,
		`{"username":"admin","password":""}`,
		`{"username":"","password":""}`,
	} {
		r := post(t, ep.httpURL+"/login", "", body)
		if r.status != http.StatusUnauthorized || r.body != "" {
			t.Errorf("%s: %d %q, want 401 and an empty body", body, r.status, r.body)
		}
		refusals = append(refusals, r)
	}
	for _, r := range refusals[1:] {
		for _, h := range []string{"Content-Type", "Content-Length", "Retry-After"} {
			if r.header.Get(h) != refusals[0].header.Get(h) {
				t.Errorf("refusals differ in %s: %q vs %q", h, r.header.Get(h), refusals[0].header.Get(h))
			}
		}
	}

	// Malformed bodies.
	for _, body := range []string{``, `not json`, `[]`, `"admin"`, `{}`, `{"username":"admin"}`, `{"password":"pegasys"}`,
		`{"username":"admin","password":null}`, `{"username":1,"password":"pegasys"}`, `{"username":"admin","password":["pegasys"]}`} {
		if r := post(t, ep.httpURL+"/login", "", body); r.status != http.StatusBadRequest || r.body != "" {
			t.Errorf("%q: %d %q, want 400", body, r.status, r.body)
		}
	}
	if r := post(t, ep.httpURL+"/login", "", `{"username":"admin","password":"`+strings.Repeat("x", maxLoginBody)+`"}`); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("huge body: %d", r.status)
	}
	resp, err := http.Get(ep.httpURL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /login: %d", resp.StatusCode)
	}

	// /login is served on the WebSocket port too.
	wsLogin := "http" + strings.TrimPrefix(ep.wsURL, "ws") + "/login"
	if tok := login(t, wsLogin, "eth", "pegasys"); tok == "" {
		t.Error("no token from the WebSocket port")
	}
}

// TestLoginDisabled: 400 when authentication is off or only a public key
// is configured, as Besu.
func TestLoginDisabled(t *testing.T) {
	pk, err := NewService(Config{PublicKey: &testKeys()[0].PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	for name, ep := range map[string]*endpoint{"auth off": serve(t, nil), "public key": serve(t, pk)} {
		for _, url := range []string{ep.httpURL + "/login", "http" + strings.TrimPrefix(ep.wsURL, "ws") + "/login"} {
			if r := post(t, url, "", `{"username":"admin","password":"pegasys"}`); r.status != http.StatusBadRequest || r.body != "" {
				t.Errorf("%s %s: %d %q", name, url, r.status, r.body)
			}
		}
	}
}

// TestNoUserEnumeration: every refused login runs exactly one bcrypt
// comparison at the cost of a real one, so neither the answer nor the time
// tells an unknown user from a wrong password.
func TestNoUserEnumeration(t *testing.T) {
	creds, err := LoadCredentials(writeFile(t, "auth.toml", credentialsTOML(pegasysHash)))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(Config{Credentials: creds, Audience: "rpc-http", SigningKey: testKeys()[0]})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var costs []int
	svc.passwordMatches = func(hash []byte, pw string) bool {
		c, _ := bcrypt.Cost(hash)
		mu.Lock()
		costs = append(costs, c)
		mu.Unlock()
		return passwordMatches(hash, pw)
	}
	ep := serve(t, svc)
	for _, body := range []string{
		`{"username":"admin","password":"wrong"}`,
		`{"username":"nobody","password":"pegasys"}`,
		`{"username":"nopassword","password":"pegasys"}`,
	} {
		costs = nil
		r := post(t, ep.httpURL+"/login", "", body)
		if r.status != http.StatusUnauthorized || len(costs) != 1 || costs[0] != PasswordCost {
			t.Errorf("%s: bcrypt comparisons at costs %v, want one at %d", body, costs, PasswordCost)
		}
	}
}

// TestHTTPAuthorization: every single request and every element of a batch
// is checked; each permission form allows exactly what it names.
func TestHTTPAuthorization(t *testing.T) {
	ep := serve(t, credentialsService(t, "rpc-http", 0, newClock(), nil))
	tokens := map[string]string{}
	for _, u := range []string{"admin", "eth", "one", "none"} {
		tokens[u] = login(t, ep.httpURL+"/login", u, "pegasys")
	}
	// No token: 401 before the body is read, id null (a batch alike).
	for _, body := range []string{`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`, `[{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}]`, `garbage`} {
		if r := post(t, ep.httpURL, "", body); r.status != http.StatusUnauthorized || r.body != unauthorizedNull {
			t.Errorf("no token, %s: %d %s", body, r.status, r.body)
		}
	}
	// An invalid token: -40100 per request, with its id.
	if r := call(t, ep.httpURL, "bogus", "eth_blockNumber"); r.status != http.StatusUnauthorized || r.body != unauthorized7 {
		t.Errorf("bad token: %d %s", r.status, r.body)
	}
	allowed := map[string][]string{
		"admin": {"eth_blockNumber", "eth_chainId", "eth_subscribe", "net_version", "net_peerCount", "web3_clientVersion", "admin_peers", "rpc_modules"},
		"eth":   {"eth_blockNumber", "eth_chainId", "eth_subscribe"},
		"one":   {"eth_blockNumber", "net_version"},
		"none":  {},
	}
	for user, tok := range tokens {
		ok := map[string]bool{}
		for _, m := range allowed[user] {
			ok[m] = true
		}
		for _, m := range allowed["admin"] {
			r := call(t, ep.httpURL, tok, m)
			if ok[m] {
				if r.status != http.StatusOK || !strings.Contains(r.body, `"result"`) {
					t.Errorf("%s %s: %d %s, want a result", user, m, r.status, r.body)
				}
			} else if r.status != http.StatusUnauthorized || r.body != unauthorized7 {
				t.Errorf("%s %s: %d %s, want 401 -40100", user, m, r.status, r.body)
			}
		}
	}
	// A batch with mixed permissions: each element on its own.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"net_version"},` +
		`{"jsonrpc":"2.0","id":3,"method":"web3_clientVersion"},{"jsonrpc":"2.0","id":4,"method":"net_peerCount"},` +
		`{"jsonrpc":"2.0","method":"admin_peers"},{"jsonrpc":"2.0","id":5,"method":"eth_nope"}]`
	want := `[{"jsonrpc":"2.0","id":1,"result":"0x10"},{"jsonrpc":"2.0","id":2,"result":"1337"},` +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-40100,"message":"Unauthorized"}},{"jsonrpc":"2.0","id":4,"error":{"code":-40100,"message":"Unauthorized"}},` +
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}]`
	if r := post(t, ep.httpURL, tokens["one"], batch); r.status != http.StatusOK || r.body != want {
		t.Errorf("mixed batch: %d\n got %s\nwant %s", r.status, r.body, want)
	}
}

// TestWSAuthorization: the upgrade's token is the caller of every message,
// batches and subscriptions included; without one every message is
// refused.
func TestWSAuthorization(t *testing.T) {
	clk := newClock()
	ep := serve(t, credentialsService(t, "rpc-ws", 0, clk, nil))
	wsLogin := "http" + strings.TrimPrefix(ep.wsURL, "ws") + "/login"

	anon := dialWS(t, ep.wsURL, "")
	bad := dialWS(t, ep.wsURL, "bogus")
	for _, c := range []*wsConn{anon, bad} {
		for _, m := range []string{"eth_blockNumber", "eth_subscribe", "rpc_modules"} {
			if got := c.call(m); got != unauthorized7 {
				t.Errorf("no/bad token %s: %s", m, got)
			}
		}
		if got := c.roundTrip(`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]`); got != `[{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"Unauthorized"}}]` {
			t.Errorf("no/bad token batch: %s", got)
		}
	}

	eth := dialWS(t, ep.wsURL, login(t, wsLogin, "eth", "pegasys"))
	if got := eth.call("eth_subscribe"); got != `{"jsonrpc":"2.0","id":7,"result":"0x1"}` {
		t.Errorf("eth:* eth_subscribe: %s", got)
	}
	if got := eth.call("net_version"); got != unauthorized7 {
		t.Errorf("eth:* net_version: %s", got)
	}
	one := dialWS(t, ep.wsURL, login(t, wsLogin, "one", "pegasys"))
	if got := one.call("eth_subscribe"); got != unauthorized7 {
		t.Errorf("one eth_subscribe: %s", got)
	}
	got := one.roundTrip(`[{"jsonrpc":"2.0","id":1,"method":"net_version"},{"jsonrpc":"2.0","id":2,"method":"net_peerCount"}]`)
	if got != `[{"jsonrpc":"2.0","id":1,"result":"1337"},{"jsonrpc":"2.0","id":2,"error":{"code":-40100,"message":"Unauthorized"}}]` {
		t.Errorf("one batch: %s", got)
	}

	// The connection outlives its token: once it expires, every message is
	// refused (Besu checks the token for every message).
	clk.Advance(TokenLifetime - time.Second)
	if got := eth.call("eth_blockNumber"); got != `{"jsonrpc":"2.0","id":7,"result":"0x10"}` {
		t.Errorf("before expiry: %s", got)
	}
	clk.Advance(time.Second)
	for _, m := range []string{"eth_blockNumber", "eth_subscribe"} {
		if got := eth.call(m); got != unauthorized7 {
			t.Errorf("after expiry %s: %s", m, got)
		}
	}
}

// TestHTTPExpiry drives an HTTP token through its lifetime.
func TestHTTPExpiry(t *testing.T) {
	clk := newClock()
	ep := serve(t, credentialsService(t, "rpc-http", 0, clk, nil))
	tok := login(t, ep.httpURL+"/login", "admin", "pegasys")
	clk.Advance(TokenLifetime - time.Second)
	if r := call(t, ep.httpURL, tok, "eth_blockNumber"); r.status != http.StatusOK {
		t.Errorf("at 4:59: %d %s", r.status, r.body)
	}
	clk.Advance(time.Second)
	if r := call(t, ep.httpURL, tok, "eth_blockNumber"); r.status != http.StatusUnauthorized || r.body != unauthorized7 {
		t.Errorf("at 5:00: %d %s", r.status, r.body)
	}
	// A new login gives a new 5 minutes.
	tok = login(t, ep.httpURL+"/login", "admin", "pegasys")
	if r := call(t, ep.httpURL, tok, "eth_blockNumber"); r.status != http.StatusOK {
		t.Errorf("after a new login: %d %s", r.status, r.body)
	}
}

// TestCrossEndpoint: an HTTP token does not work on WebSocket and the
// reverse, whether the endpoints' keys differ (as on a node) or not (the
// audience alone tells them apart).
func TestCrossEndpoint(t *testing.T) {
	clk := newClock()
	for name, wsKey := range map[string]int{"other key": 1, "same key": 0} {
		t.Run(name, func(t *testing.T) {
			h := serve(t, credentialsService(t, "rpc-http", 0, clk, nil))
			w := serve(t, credentialsService(t, "rpc-ws", wsKey, clk, nil))
			httpTok := login(t, h.httpURL+"/login", "admin", "pegasys")
			wsTok := login(t, "http"+strings.TrimPrefix(w.wsURL, "ws")+"/login", "admin", "pegasys")
			if got := dialWS(t, w.wsURL, httpTok).call("eth_blockNumber"); got != unauthorized7 {
				t.Errorf("HTTP token on WebSocket: %s", got)
			}
			if r := call(t, h.httpURL, wsTok, "eth_blockNumber"); r.status != http.StatusUnauthorized || r.body != unauthorized7 {
				t.Errorf("WebSocket token on HTTP: %d %s", r.status, r.body)
			}
			if got := dialWS(t, w.wsURL, wsTok).call("eth_blockNumber"); !strings.Contains(got, `"result"`) {
				t.Errorf("WebSocket token on WebSocket: %s", got)
			}
			if r := call(t, h.httpURL, httpTok, "eth_blockNumber"); r.status != http.StatusOK {
				t.Errorf("HTTP token on HTTP: %d %s", r.status, r.body)
			}
		})
	}
}

// TestLoginLimit: with every slot busy and the queue full, a login is
// refused at once (429) instead of starting another bcrypt.
func TestLoginLimit(t *testing.T) {
	svc := credentialsService(t, "rpc-http", 0, newClock(), nil)
	svc.logins = NewLoginLimiter(1, 1, time.Minute)
	release := make(chan struct{})
	var running, maxRunning atomic.Int32
	svc.passwordMatches = func(hash []byte, pw string) bool {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		running.Add(-1)
		return passwordMatches(hash, pw)
	}
	ep := serve(t, svc)
	body := `{"username":"admin","password":"pegasys"}`
	statuses := make(chan int, 2)
	for range 2 { // one checks, one waits
		go func() { statuses <- post(t, ep.httpURL+"/login", "", body).status }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(svc.logins.queue) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("logins did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r := post(t, ep.httpURL+"/login", "", body)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("third login: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	close(release)
	for range 2 {
		if s := <-statuses; s != http.StatusOK {
			t.Errorf("queued login: %d", s)
		}
	}
	if maxRunning.Load() != 1 {
		t.Errorf("%d bcrypt checks ran at once, limit 1", maxRunning.Load())
	}
	if len(svc.logins.slots) != 0 || len(svc.logins.queue) != 0 {
		t.Error("limiter not released")
	}
}

func TestLoginLimiterWait(t *testing.T) {
	l := NewLoginLimiter(1, 4, 20*time.Millisecond)
	if !l.acquire(context.Background()) {
		t.Fatal("first acquire")
	}
	if l.acquire(context.Background()) {
		t.Fatal("second acquire while the slot is held")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if l.acquire(ctx) {
		t.Fatal("acquire with a cancelled context")
	}
	l.release()
	if !l.acquire(context.Background()) {
		t.Fatal("acquire after release")
	}
	l.release()
	if len(l.queue) != 0 {
		t.Fatalf("queue holds %d", len(l.queue))
	}
	if d := NewLoginLimiter(0, 0, 0); cap(d.slots) < 1 || cap(d.queue) != cap(d.slots)+DefaultLoginQueue {
		t.Errorf("defaults: %d slots, %d queue", cap(d.slots), cap(d.queue))
	}
}

// TestSecretsNotLogged runs logins and calls, good and bad, over HTTP and
// WebSocket with logging at its most verbose, and looks for tokens and
// passwords in the log.
func TestSecretsNotLogged(t *testing.T) {
	var logs logBuffer
	clk := newClock()
	ep := serve(t, credentialsService(t, "rpc-http", 0, clk, logs.logger()))
	tok := login(t, ep.httpURL+"/login", "one", "pegasys")
	post(t, ep.httpURL+"/login", "", `{"username":"one","password":"wrong-Secret-1"}`)
	post(t, ep.httpURL+"/login", "", `{"username":"Secret-2","password":"pegasys"}`)
	call(t, ep.httpURL, tok, "eth_blockNumber")
	call(t, ep.httpURL, tok, "admin_peers")
	call(t, ep.httpURL, tok+"x", "eth_blockNumber")
	dialWS(t, ep.wsURL, tok).call("net_peerCount")
	dialWS(t, ep.wsURL, "Secret-3."+tok).call("net_version")
	clk.Advance(TokenLifetime)
	call(t, ep.httpURL, tok, "eth_blockNumber")

	out := logs.String()
	if !strings.Contains(out, "JSON-RPC token refused") || !strings.Contains(out, "JSON-RPC login") {
		t.Fatalf("expected debug messages missing; log:\n%s", out)
	}
	parts := strings.Split(tok, ".")
	for _, secret := range []string{"pegasys", "Secret-1", "Secret-2", "Secret-3", parts[1], parts[2], parts[2][:20]} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
}
