package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/basaltchain/basalt/internal/httpmw"
)

// HTTPMetrics times and counts the requests of an HTTP server by endpoint,
// as a middleware (STYLE.md §4: metrics wrap a handler without knowing what
// it serves).
type HTTPMetrics struct {
	// Time is the request timer, labelled by the endpoint labels.
	Time *TimerVec
	// Requests counts requests, labelled by the endpoint labels and then
	// the HTTP status.
	Requests *CounterVec
	// Endpoint returns the endpoint labels of a request. Its values must
	// come from a small fixed set (the server's routes, "other" for the
	// rest): every value is a series Prometheus keeps.
	Endpoint func(*http.Request) []string
}

// HTTPRequestMetrics returns the timer <name>_request_time and the counter
// <name>_requests_total of category c, labelled by labels and (the counter)
// status.
func (r *Registry) HTTPRequestMetrics(c Category, help string, endpoint func(*http.Request) []string, labels ...string) *HTTPMetrics {
	if !r.Enabled(c) {
		return nil
	}
	return &HTTPMetrics{
		Time:     r.TimerVec(c, "request_time", "Time to answer "+help+" requests, in seconds", labels...),
		Requests: r.CounterVec(c, "requests_total", "Count of "+help+" requests, by HTTP status", append(labels[:len(labels):len(labels)], "status")...),
		Endpoint: endpoint,
	}
}

// Middleware returns the middleware; nil (metrics off) passes requests
// through untouched.
func (m *HTTPMetrics) Middleware() httpmw.Middleware {
	if m == nil {
		return nil
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			labels := m.Endpoint(r)
			m.Time.With(labels...).Observe(time.Since(start).Seconds())
			m.Requests.With(append(labels[:len(labels):len(labels)], strconv.Itoa(rec.status))...).Inc()
		})
	}
}

// statusRecorder notes the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wroteHeader {
		s.status, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wroteHeader = true
	return s.ResponseWriter.Write(b)
}

// Flush passes flushes on (a streamed proxy response).
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
