package node

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// listener is one HTTP server of a front end (JSON-RPC over HTTP or
// WebSocket, GraphQL over HTTP).
type listener struct {
	frontEnd string // "JSON-RPC", "GraphQL"
	name     string // the service: "HTTP", "WebSocket"
	host     string
	port     int
	handler  http.Handler
	// maxConns caps the open connections (--rpc-http-max-active-connections);
	// 0 means no cap.
	maxConns int
	srv      *http.Server
	ln       net.Listener
	done     chan struct{}
}

// start listens on host:port and serves handler until stop.
func (l *listener) start(n *Node) error {
	addr := net.JoinHostPort(l.host, strconv.Itoa(l.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s %s server: listen on %s: %w", l.frontEnd, l.name, addr, err)
	}
	if l.maxConns > 0 {
		ln = &limitListener{Listener: ln, max: int64(l.maxConns), log: n.log, what: l.frontEnd + " " + l.name}
	}
	l.ln = ln
	l.srv = &http.Server{Handler: l.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error(l.frontEnd+" server failed", "service", l.name, "err", err)
		}
	}()
	n.log.Info(l.frontEnd+" "+l.name+" service started", "address", ln.Addr().String())
	return nil
}

// stop closes the server and waits for it to finish; a nil or stopped
// listener is left alone.
func (l *listener) stop() {
	if l == nil || l.srv == nil {
		return
	}
	l.srv.Close()
	<-l.done
	l.srv = nil
}

// addr returns the listening address ("" when not listening).
func (l *listener) addr() string {
	if l == nil || l.ln == nil {
		return ""
	}
	return l.ln.Addr().String()
}

// limitListener closes at once a connection accepted while max are open,
// as Besu does past --rpc-http-max-active-connections: the client sees its
// connection closed, and the node logs a warning (at most one every ten
// seconds, so a flood does not flood the log). Idle keep-alive
// connections count, as they do in Besu.
type limitListener struct {
	net.Listener
	max    int64
	active atomic.Int64
	log    *slog.Logger
	what   string
	warned atomic.Int64 // unix seconds of the last warning
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.active.Add(1) > l.max {
			l.active.Add(-1)
			c.Close()
			if now := time.Now().Unix(); now-l.warned.Load() >= 10 {
				l.warned.Store(now)
				l.log.Warn("Rejecting new connection: active connections limit reached", "service", l.what,
					"remote", c.RemoteAddr().String(), "max", l.max)
			}
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// countedConn gives its slot back when closed (once, however often Close
// is called).
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.active.Add(-1) })
	return err
}
