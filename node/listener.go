package node

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
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
