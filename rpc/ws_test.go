package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/internal/httpmw"

	"github.com/basaltchain/basalt/rpctypes"
)

// wsTestRegistry is the test registry plus methods that push notifications.
func wsTestRegistry(t testing.TB, notified chan<- bool, closed chan<- struct{}) *Registry {
	reg := testRegistry(t)
	floodReady := make(chan Notifier, 1)
	err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{
		// eth_notifyMe answers "ok", then pushes n notifications.
		{Name: "eth_notifyMe", Fn: func(ctx context.Context, n int) (string, error) {
			nt := NotifierFrom(ctx)
			if nt == nil {
				return "", rpctypes.ErrMethodNotFound
			}
			AfterResponse(ctx, func() {
				for i := range n {
					nt.Notify(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":%d}}`, i))
				}
			})
			return "ok", nil
		}},
		// eth_flood pushes large notifications from another goroutine until
		// the connection refuses one, and reports on notified. It starts
		// when the client sends its next message, which proves the client
		// has read this response: a queued response could otherwise be
		// dropped with the connection before it reaches the client.
		{Name: "eth_flood", Fn: func(ctx context.Context) string {
			nt := NotifierFrom(ctx)
			nt.OnClose(func() { close(closed) })
			floodReady <- nt
			return "flooding"
		}},
		{Name: "eth_startFlood", Fn: func() string {
			nt := <-floodReady
			big := []byte(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":"` + strings.Repeat("x", 64<<10) + `"}}`)
			go flood(nt, big, notified)
			return "started"
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// flood notifies until refused; it reports false if a Notify blocked.
func flood(nt Notifier, big []byte, notified chan<- bool) {
	for {
		start := time.Now()
		ok := nt.Notify(big)
		if time.Since(start) > time.Second {
			notified <- false // Notify blocked
			return
		}
		if !ok {
			notified <- true
			return
		}
	}
}

func startWS(t *testing.T, cfg WSConfig, notified chan<- bool, closed chan<- struct{}) (*httptest.Server, *WSHandler, string) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	srv, err := NewServer(wsTestRegistry(t, notified, closed), Config{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	h := NewWSHandler(srv, cfg)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return ts, h, "ws" + strings.TrimPrefix(ts.URL, "http")
}

func dialWS(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", url, err, status)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func roundTrip(t *testing.T, c *websocket.Conn, req string) string {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(req)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read answer to %s: %v", req, err)
	}
	return string(msg)
}

func TestWSRoundTrip(t *testing.T) {
	who := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.URL.Query().Get("user"); u != "" {
				r = r.WithContext(WithCaller(r.Context(), &Caller{User: u}))
			}
			next.ServeHTTP(w, r)
		})
	}
	_, _, url := startWS(t, WSConfig{Middleware: []httpmw.Middleware{who}}, nil, nil)
	c := dialWS(t, url)
	cases := []struct{ req, resp string }{
		{`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`},
		{`[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"net_version"}]`, `[{"jsonrpc":"2.0","id":1,"result":"0x2a"},{"jsonrpc":"2.0","id":2,"result":"1337"}]`},
		{`{"id":3,"method":"eth_nope"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`},
		{`{"id":4,"method":"admin_peers"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32604,"message":"Method not enabled"}}`},
		{`{"id":5,`, errParse},
		{`{"id":6,"method":"eth_whoami"}`, `{"jsonrpc":"2.0","id":6,"result":""}`},
	}
	for _, tc := range cases {
		if got := roundTrip(t, c, tc.req); got != tc.resp {
			t.Errorf("%s:\n got %s\nwant %s", tc.req, got, tc.resp)
		}
	}
	// A notification (no id) gets no answer: the next message answers the
	// following request.
	c.WriteMessage(websocket.TextMessage, []byte(`{"method":"eth_blockNumber"}`))
	if got := roundTrip(t, c, `{"id":7,"method":"eth_blockNumber"}`); got != `{"jsonrpc":"2.0","id":7,"result":"0x2a"}` {
		t.Errorf("after a notification: %s", got)
	}
	// The caller identity of the upgrade request reaches every message.
	alice := dialWS(t, url+"?user=alice")
	if got := roundTrip(t, alice, `{"id":1,"method":"eth_whoami"}`); got != `{"jsonrpc":"2.0","id":1,"result":"alice"}` {
		t.Errorf("whoami: %s", got)
	}
	// Binary messages are served too.
	if err := alice.WriteMessage(websocket.BinaryMessage, []byte(`{"id":2,"method":"eth_blockNumber"}`)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := alice.ReadMessage(); err != nil || string(msg) != `{"jsonrpc":"2.0","id":2,"result":"0x2a"}` {
		t.Errorf("binary: %s %v", msg, err)
	}
}

func TestWSNotificationsFollowResponse(t *testing.T) {
	_, _, url := startWS(t, WSConfig{}, nil, nil)
	c := dialWS(t, url)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"method":"eth_notifyMe","params":[3]}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":"ok"}`,
		`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":0}}`,
		`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":1}}`,
		`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":2}}`,
	}
	for i, w := range want {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := c.ReadMessage()
		if err != nil || string(msg) != w {
			t.Fatalf("message %d: %s %v, want %s", i, msg, err, w)
		}
	}
}

func TestWSRefusals(t *testing.T) {
	ts, _, url := startWS(t, WSConfig{
		MaxConnections: 1,
		Routes:         map[string]http.Handler{"/login": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "login") })},
	}, nil, nil)
	r := do(t, http.MethodPost, ts.URL, `{"id":1,"method":"eth_blockNumber"}`, nil)
	if r.status != http.StatusBadRequest || r.body != "Websocket endpoint can't handle HTTP requests" {
		t.Errorf("plain HTTP: %d %q", r.status, r.body)
	}
	if r := do(t, http.MethodPost, ts.URL+"/login", `{}`, nil); r.status != 200 || r.body != "login" {
		t.Errorf("route: %d %q", r.status, r.body)
	}
	if r := do(t, http.MethodGet, ts.URL, "", map[string]string{"Host": "evil.example"}); r.status != http.StatusForbidden {
		t.Errorf("bad host: %d", r.status)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Host": []string{"evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("upgrade with bad host: %v", err)
	}
	// The connection limit.
	dialWS(t, url)
	_, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("second connection over the limit of 1: %v", err)
	}
}

func TestWSMessageTooBig(t *testing.T) {
	_, h, url := startWS(t, WSConfig{MaxMessageBytes: 1024}, nil, nil)
	c := dialWS(t, url)
	if got := roundTrip(t, c, `{"id":1,"method":"eth_echo","params":["`+strings.Repeat("a", 900)+`"]}`); !strings.Contains(got, `"result"`) {
		t.Fatalf("message under the limit: %s", got)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"id":2,"method":"eth_echo","params":["`+strings.Repeat("a", 2000)+`"]}`))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("want close 1009, got %v", err)
	}
	waitFor(t, func() bool { return h.Connections() == 0 })
}

// TestWSSlowClientDropped: a client that stops reading while notifications
// pour in is disconnected, and Notify never blocks the sender; by message
// count and by bytes.
func TestWSSlowClientDropped(t *testing.T) {
	for name, cfg := range map[string]WSConfig{
		"messages": {SendQueue: 8, WriteTimeout: time.Second},
		"bytes":    {SendQueue: 100000, SendQueueBytes: 512 << 10, WriteTimeout: time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			notified := make(chan bool, 1)
			closed := make(chan struct{})
			_, h, url := startWS(t, cfg, notified, closed)
			c := dialWS(t, url)
			if got := roundTrip(t, c, `{"id":1,"method":"eth_flood"}`); got != `{"jsonrpc":"2.0","id":1,"result":"flooding"}` {
				t.Fatalf("flood: %.200s", got)
			}
			if err := c.WriteMessage(websocket.TextMessage, []byte(`{"id":2,"method":"eth_startFlood"}`)); err != nil {
				t.Fatal(err)
			}
			// The client reads nothing more.
			select {
			case ok := <-notified:
				if !ok {
					t.Fatal("Notify blocked")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the slow client was never refused")
			}
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("OnClose did not run")
			}
			waitFor(t, func() bool { return h.Connections() == 0 })
		})
	}
}

func TestWSCloseEndsConnections(t *testing.T) {
	_, h, url := startWS(t, WSConfig{}, nil, nil)
	conns := make([]*websocket.Conn, 3)
	for i := range conns {
		conns[i] = dialWS(t, url)
		roundTrip(t, conns[i], `{"id":1,"method":"eth_blockNumber"}`)
	}
	// A request in flight is cancelled.
	conns[0].WriteMessage(websocket.TextMessage, []byte(`{"id":2,"method":"eth_slow"}`))
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					var ce *websocket.CloseError
					if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
						t.Errorf("want close 1001, got %v", err)
					}
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	h.Close()
	wg.Wait()
	if h.Connections() != 0 {
		t.Fatalf("%d connections after Close", h.Connections())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWSAuthorizerPerMessage: the Authorizer sees, for every message of a
// connection, the caller that middleware found on the upgrade request.
func TestWSAuthorizerPerMessage(t *testing.T) {
	auth := AuthorizerFunc(func(ctx context.Context, method string) bool {
		c := CallerFrom(ctx)
		return c != nil && c.User == "alice" && method == "eth_blockNumber"
	})
	srv, err := NewServer(testRegistry(t), Config{Authorizer: auth, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	who := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.URL.Query().Get("user"); u != "" {
				r = r.WithContext(WithCaller(r.Context(), &Caller{User: u}))
			}
			next.ServeHTTP(w, r)
		})
	}
	h := NewWSHandler(srv, WSConfig{Middleware: []httpmw.Middleware{who}, Logger: quietLogger})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	unauthorized := `{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"Unauthorized"}}`
	alice := dialWS(t, url+"?user=alice")
	if got := roundTrip(t, alice, `{"id":1,"method":"eth_blockNumber"}`); got != `{"jsonrpc":"2.0","id":1,"result":"0x2a"}` {
		t.Errorf("alice eth_blockNumber: %s", got)
	}
	if got := roundTrip(t, alice, `{"id":1,"method":"eth_whoami"}`); got != unauthorized {
		t.Errorf("alice eth_whoami: %s", got)
	}
	anon := dialWS(t, url)
	if got := roundTrip(t, anon, `[{"id":1,"method":"eth_blockNumber"}]`); got != "["+unauthorized+"]" {
		t.Errorf("anonymous batch: %s", got)
	}
}
