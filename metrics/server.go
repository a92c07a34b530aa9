package metrics

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/basaltchain/basalt/internal/httpmw"
)

// Path is where the metrics service answers in Prometheus text format.
const Path = "/metrics"

// Handler returns the metrics service of a program, routed like Besu's
// MetricsHttpService:
//
//	GET /metrics   the registry in Prometheus text format (gzip when asked)
//	GET /          201, empty body (a probe)
//
// behind the Host allowlist (403 for a Host not in hosts; nil hosts means
// localhost and 127.0.0.1, "*" any).
func (r *Registry) Handler(hosts []string) http.Handler {
	metrics := promhttp.HandlerFor(r.Gatherer(), promhttp.HandlerOpts{
		// One failing collector must not blank the page operators alert on.
		ErrorHandling: promhttp.ContinueOnError,
	})
	router := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch req.URL.Path {
		case Path:
			metrics.ServeHTTP(w, req)
		case "/":
			w.WriteHeader(http.StatusCreated)
		default:
			http.NotFound(w, req)
		}
	})
	return httpmw.Chain(router, httpmw.HostAllowlist(hosts))
}

// ServerConfig says where a program serves its metrics.
type ServerConfig struct {
	// Host and Port are the listening address (--metrics-host,
	// --metrics-port; port 0 picks a free one).
	Host string
	Port int
	// HostAllowlist is the Host header allowlist (nil: localhost and
	// 127.0.0.1; "*": any).
	HostAllowlist []string
	// Logger receives the server's errors; nil discards them.
	Logger *slog.Logger
}

// Server is a running metrics service. Its zero value and a nil *Server are
// "not running".
type Server struct {
	srv  *http.Server
	ln   net.Listener
	host string
	done chan struct{}
}

// Serve listens on cfg's address and serves r's Handler until Close.
func (r *Registry) Serve(cfg ServerConfig) (*Server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics service: listen on %s: %w", addr, err)
	}
	s := &Server{
		srv: &http.Server{
			Handler:           r.Handler(cfg.HostAllowlist),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		},
		ln:   ln,
		host: cfg.Host,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("Metrics service failed", "err", err)
		}
	}()
	return s, nil
}

// Addr returns the listening address ("" when not running).
func (s *Server) Addr() string {
	if s == nil || s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Host returns the host the service was configured with (net_services
// reports it, as Besu does, rather than the resolved address).
func (s *Server) Host() string {
	if s == nil {
		return ""
	}
	return s.host
}

// Port returns the port the service listens on (0 when not running).
func (s *Server) Port() int {
	if s == nil || s.ln == nil {
		return 0
	}
	if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Close stops the service and waits for it.
func (s *Server) Close() error {
	if s == nil || s.srv == nil {
		return nil
	}
	err := s.srv.Close()
	<-s.done
	return err
}
