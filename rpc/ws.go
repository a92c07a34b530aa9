package rpc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/internal/defaults"
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/rpctypes"
)

// Defaults of WSConfig.
const (
	DefaultWSMaxMessageBytes = rpctypes.DefaultWSMaxMessageBytes
	DefaultWSMaxConnections  = rpctypes.DefaultWSMaxConnections
	DefaultWSSendQueue       = 1024
	DefaultWSSendQueueBytes  = rpctypes.DefaultWSSendQueueBytes
	DefaultWSMaxInFlight     = 16
	DefaultWSWriteTimeout    = 10 * time.Second
	DefaultWSPingInterval    = 30 * time.Second
)

// WSConfig is the WebSocket side of a JSON-RPC endpoint.
type WSConfig struct {
	// HostAllowlist is --host-allowlist (see HTTPConfig): a refused Host
	// gets 403 before the upgrade.
	HostAllowlist []string

	// MaxMessageBytes is --rpc-ws-max-frame-size: the largest message a
	// client may send; a bigger one closes the connection (status 1009).
	// 0 means DefaultWSMaxMessageBytes.
	MaxMessageBytes int64

	// MaxConnections caps the open connections (503 past it); 0 means
	// DefaultWSMaxConnections, -1 no limit.
	MaxConnections int

	// SendQueue is how many notifications may wait for a connection's
	// client. 0 means DefaultWSSendQueue.
	SendQueue int

	// SendQueueBytes is --rpc-ws-max-queued-bytes: how many bytes of
	// notifications may wait for a connection's client. Past either
	// bound a client still reading is not dropped: a newHeads
	// notification (Notification.Latest) replaces the one of its
	// subscription still waiting, or waits as that subscription's only
	// one, so the queue grows by at most one small entry per subscription
	// and every subscription is told of the newest block (the block's
	// encoding is shared). A notification that cannot be replaced (a log,
	// a pending transaction: dropping one would silently lose it) closes
	// the connection (1008, logged) instead. Responses are bounded by
	// MaxInFlight. 0 means DefaultWSSendQueueBytes.
	SendQueueBytes int64

	// MaxInFlight is how many requests of one connection run at once;
	// past it the connection's messages wait to be read. 0 means
	// DefaultWSMaxInFlight.
	MaxInFlight int

	// WriteTimeout bounds one write to the client. 0 means
	// DefaultWSWriteTimeout.
	WriteTimeout time.Duration

	// PingInterval is how often the server pings; a connection silent for
	// two intervals (no message, no pong) is closed. 0 means
	// DefaultWSPingInterval, negative disables pings.
	PingInterval time.Duration

	// Routes serves plain HTTP requests for other paths (e.g. "/login"),
	// behind the Host check.
	Routes map[string]http.Handler

	// Middleware wraps the upgrade request, the first one outermost. This
	// is where authentication goes: a middleware that puts the caller in
	// the request context with WithCaller makes it the caller of every
	// message of the connection, so Config.Authorizer sees it.
	Middleware []httpmw.Middleware

	// Logger receives connection failures and drops; nil means
	// slog.Default().
	Logger *slog.Logger
}

// WSHandler serves JSON-RPC over WebSocket: each text (or binary) message
// is a request or a batch, dispatched by the Server like an HTTP body, and
// answered on the same connection; methods may push notifications through
// the connection's Notifier (see NotifierFrom). Close closes every
// connection.
type WSHandler struct {
	s        *Server
	cfg      WSConfig
	log      *slog.Logger
	upgrader websocket.Upgrader
	handler  http.Handler

	mu     sync.Mutex
	conns  map[*wsConn]struct{}
	active int // connections admitted, including those still upgrading
	closed bool
	wg     sync.WaitGroup
}

// NewWSHandler returns the WebSocket handler of a JSON-RPC endpoint.
// Requests go through, in order: the Host allowlist (403), Routes, a
// refusal of plain HTTP (400 "Websocket endpoint can't handle HTTP
// requests", Besu's), the connection limit (503), the Middleware, and the
// upgrade.
func NewWSHandler(s *Server, cfg WSConfig) *WSHandler {
	cfg.MaxMessageBytes = defaults.Positive(cfg.MaxMessageBytes, DefaultWSMaxMessageBytes)
	cfg.MaxConnections = cmp.Or(cfg.MaxConnections, DefaultWSMaxConnections)
	cfg.SendQueue = defaults.Positive(cfg.SendQueue, DefaultWSSendQueue)
	cfg.SendQueueBytes = defaults.Positive(cfg.SendQueueBytes, DefaultWSSendQueueBytes)
	cfg.MaxInFlight = defaults.Positive(cfg.MaxInFlight, DefaultWSMaxInFlight)
	cfg.WriteTimeout = defaults.Positive(cfg.WriteTimeout, DefaultWSWriteTimeout)
	cfg.PingInterval = cmp.Or(cfg.PingInterval, DefaultWSPingInterval)
	h := &WSHandler{s: s, cfg: cfg, log: cfg.Logger, conns: make(map[*wsConn]struct{})}
	if h.log == nil {
		h.log = slog.Default()
	}
	// Like Besu, any Origin is accepted: browsers' cross-origin rules are
	// for HTTP (--rpc-http-cors-origins); the Host allowlist still applies.
	h.upgrader = websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 4096,
		CheckOrigin:     func(*http.Request) bool { return true },
	}
	upgrade := httpmw.Chain(http.HandlerFunc(h.upgrade), cfg.Middleware...)
	routes := cfg.Routes
	h.handler = httpmw.Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt, ok := routes[r.URL.Path]; ok && !websocket.IsWebSocketUpgrade(r) {
			rt.ServeHTTP(w, r)
			return
		}
		if !websocket.IsWebSocketUpgrade(r) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("Websocket endpoint can't handle HTTP requests"))
			return
		}
		upgrade.ServeHTTP(w, r)
	}), httpmw.HostAllowlist(cfg.HostAllowlist))
	return h
}

// ServeHTTP implements http.Handler. For a WebSocket connection it returns
// when the connection ends.
func (h *WSHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.handler.ServeHTTP(w, r)
}

// Connections returns the number of open connections.
func (h *WSHandler) Connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// Close closes every connection (status 1001) and waits for their
// goroutines; later upgrades are refused. It does not stop the
// http.Server the handler is mounted on (whose Close leaves upgraded
// connections alone).
func (h *WSHandler) Close() {
	h.mu.Lock()
	h.closed = true
	conns := make([]*wsConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.close(websocket.CloseGoingAway, "server shutting down")
	}
	h.wg.Wait()
}

func (h *WSHandler) upgrade(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	refuse := h.closed || (h.cfg.MaxConnections > 0 && h.active >= h.cfg.MaxConnections)
	if !refuse {
		h.active++
		h.wg.Add(1)
	}
	h.mu.Unlock()
	if refuse {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"message":"Too many active WebSocket connections"}`))
		return
	}
	defer func() {
		h.mu.Lock()
		h.active--
		h.mu.Unlock()
		h.wg.Done()
	}()
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	c := newWSConn(h, conn, r)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		conn.Close()
		return
	}
	h.conns[c] = struct{}{}
	h.mu.Unlock()
	c.serve()
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// wsConn is one WebSocket connection. Its goroutines: the reader (serve,
// on the handler's goroutine), one writer, and at most MaxInFlight request
// goroutines.
type wsConn struct {
	h      *WSHandler
	conn   *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	remote string

	out      chan []byte   // responses waiting to be written
	inFlight chan struct{} // request slots
	notes    noteQueue     // notifications waiting to be written

	slowLogged atomic.Bool // the first replaced notification was logged
	requests   sync.WaitGroup

	closeOnce sync.Once
	closing   chan struct{} // closed when the connection starts closing
	code      int           // close status and reason, set once by close
	reason    string

	mu       sync.Mutex
	onClose  []func()
	finished bool
}

func newWSConn(h *WSHandler, conn *websocket.Conn, r *http.Request) *wsConn {
	c := &wsConn{
		h:        h,
		conn:     conn,
		remote:   r.RemoteAddr,
		out:      make(chan []byte, h.cfg.MaxInFlight),
		inFlight: make(chan struct{}, h.cfg.MaxInFlight),
		closing:  make(chan struct{}),
	}
	c.notes.init()
	// The connection's context keeps the upgrade request's values (the
	// caller put there by authentication middleware) and carries the
	// Notifier; it ends with the connection.
	c.ctx, c.cancel = context.WithCancel(WithNotifier(r.Context(), c))
	return c
}

// serve reads messages until the connection ends, then cleans up.
func (c *wsConn) serve() {
	c.conn.SetReadLimit(c.h.cfg.MaxMessageBytes)
	ping := c.h.cfg.PingInterval
	if ping > 0 {
		c.conn.SetReadDeadline(time.Now().Add(2 * ping))
		c.conn.SetPongHandler(func(string) error {
			return c.conn.SetReadDeadline(time.Now().Add(2 * ping))
		})
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop()
	}()

	for {
		typ, msg, err := c.conn.ReadMessage()
		if err != nil {
			c.readFailed(err)
			break
		}
		if ping > 0 {
			c.conn.SetReadDeadline(time.Now().Add(2 * ping))
		}
		if typ != websocket.TextMessage && typ != websocket.BinaryMessage {
			continue
		}
		select {
		case c.inFlight <- struct{}{}:
		case <-c.closing:
		}
		if c.isClosing() {
			break
		}
		c.requests.Add(1)
		go c.handle(msg)
	}

	<-writerDone
	c.requests.Wait()
	c.mu.Lock()
	c.finished = true
	fns := c.onClose
	c.onClose = nil
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
	switch c.code {
	case websocket.ClosePolicyViolation, websocket.CloseMessageTooBig:
		// The server dropped the client: say so where operators look.
		c.h.log.Warn("WebSocket connection dropped", "remote", c.remote, "reason", c.reason)
	default:
		c.h.log.Debug("WebSocket connection closed", "remote", c.remote, "code", c.code, "reason", c.reason)
	}
}

// readFailed closes the connection after the reader's error.
func (c *wsConn) readFailed(err error) {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce):
		c.close(ce.Code, "closed by the client")
	case errors.Is(err, websocket.ErrReadLimit):
		c.close(websocket.CloseMessageTooBig, fmt.Sprintf("message larger than %d bytes", c.h.cfg.MaxMessageBytes))
	default:
		c.close(websocket.CloseAbnormalClosure, "read: "+err.Error())
	}
}

// handle dispatches one message and queues its response.
func (c *wsConn) handle(msg []byte) {
	defer func() {
		<-c.inFlight
		c.requests.Done()
	}()
	ctx, after := withAfterResponse(c.ctx)
	resp, _ := c.h.s.HandleMessage(ctx, msg)
	if resp != nil {
		select {
		case c.out <- resp:
		case <-c.closing:
			return
		}
	}
	after.run()
}

// writeLoop writes responses, notifications and pings; when the
// connection closes it sends the close frame and closes the socket, which
// ends the reader.
func (c *wsConn) writeLoop() {
	var tick <-chan time.Time
	if c.h.cfg.PingInterval > 0 {
		t := time.NewTicker(c.h.cfg.PingInterval)
		defer t.Stop()
		tick = t.C
	}
	defer func() {
		_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(c.code, truncate(c.reason, 120)), time.Now().Add(time.Second))
		c.conn.Close()
	}()
	var header []byte
	for {
		// Responses and pings go first: a response queued before a
		// notification is written before it (eth_subscribe's id before
		// the subscription's first notification), and a busy connection
		// still pings.
		select {
		case msg := <-c.out:
			if !c.write(msg) {
				return
			}
			continue
		case <-tick:
			if !c.ping() {
				return
			}
			continue
		case <-c.closing:
			return
		default:
		}
		if e, ok := c.notes.pop(); ok {
			if !c.writeNote(&e, &header) {
				return
			}
			continue
		}
		select {
		case msg := <-c.out:
			if !c.write(msg) {
				return
			}
		case <-c.notes.ready:
		case <-tick:
			if !c.ping() {
				return
			}
		case <-c.closing:
			return
		}
	}
}

func (c *wsConn) write(msg []byte) bool {
	c.conn.SetWriteDeadline(time.Now().Add(c.h.cfg.WriteTimeout))
	if err := c.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
		c.close(websocket.CloseAbnormalClosure, "write: "+err.Error())
		return false
	}
	return true
}

// writeNote writes a notification in pieces, so that its shared result is
// never copied.
func (c *wsConn) writeNote(e *noteEntry, header *[]byte) bool {
	if e.raw != nil { // Notify's message
		return c.write(e.raw)
	}
	n := &e.n
	c.conn.SetWriteDeadline(time.Now().Add(c.h.cfg.WriteTimeout))
	w, err := c.conn.NextWriter(websocket.TextMessage)
	if err == nil {
		*header = n.AppendHeader((*header)[:0])
		if _, err = w.Write(*header); err == nil {
			if _, err = w.Write(n.Result); err == nil {
				_, err = w.Write([]byte(noteEnd))
			}
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		c.close(websocket.CloseAbnormalClosure, "write: "+err.Error())
		return false
	}
	return true
}

func (c *wsConn) ping() bool {
	if err := c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.h.cfg.WriteTimeout)); err != nil {
		c.close(websocket.CloseAbnormalClosure, "ping: "+err.Error())
		return false
	}
	return true
}

// close starts closing the connection with a status and reason. It never
// blocks: the writer sends the close frame and closes the socket (a write
// stuck on a client that stopped reading is cut short).
func (c *wsConn) close(code int, reason string) {
	c.closeOnce.Do(func() {
		c.code, c.reason = code, reason
		close(c.closing)
		c.cancel()
		_ = c.conn.NetConn().SetWriteDeadline(time.Now())
	})
}

func (c *wsConn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// Notify implements Notifier: it queues msg, or drops the connection if
// its queue is full.
func (c *wsConn) Notify(msg []byte) bool {
	return c.enqueue(noteEntry{raw: msg, size: len(msg)})
}

// NotifySubscription implements Notifier.
func (c *wsConn) NotifySubscription(n Notification) bool {
	return c.enqueue(noteEntry{n: n, size: n.Len()})
}

func (c *wsConn) enqueue(e noteEntry) bool {
	if c.isClosing() {
		return false
	}
	switch c.notes.push(e, c.h.cfg.SendQueue, c.h.cfg.SendQueueBytes) {
	case queued:
		return true
	case replaced:
		if c.slowLogged.CompareAndSwap(false, true) {
			c.h.log.Info("WebSocket client reads slower than its notifications come: it is sent each newHeads subscription's newest block only", "remote", c.remote)
		}
		return true
	case full:
		count, bytes := c.notes.size()
		c.close(websocket.ClosePolicyViolation, fmt.Sprintf("client too slow: %d messages, %d bytes waiting (--rpc-ws-max-queued-bytes)", count, bytes))
	}
	return false
}

// OnClose implements Notifier.
func (c *wsConn) OnClose(fn func()) {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		fn()
		return
	}
	c.onClose = append(c.onClose, fn)
	c.mu.Unlock()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

var _ Notifier = (*wsConn)(nil)
