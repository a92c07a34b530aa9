package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltchain/basalt/rpctypes"
)

// Defaults of Config.
const (
	DefaultMaxBatchSize = rpctypes.DefaultMaxBatchSize
	DefaultTimeout      = rpctypes.DefaultTimeout
)

// Config is the configuration of one JSON-RPC endpoint (HTTP or WebSocket).
type Config struct {
	// APIs are the enabled API groups (--rpc-http-api), case-insensitive.
	// nil means DefaultAPIs; an empty slice enables none. Each must be one
	// of KnownGroups or a group with registered methods.
	APIs []string

	// MaxBatchSize caps the requests in a batch (-32005 above it). 0 means
	// DefaultMaxBatchSize; -1 means unlimited.
	MaxBatchSize int

	// Timeout bounds the processing of one message (a single request or a
	// whole batch) through its context's deadline; past it the answer is
	// -32603 "Timeout expired" (HTTP 408). Methods doing long work must
	// honour ctx. 0 means DefaultTimeout; negative means none.
	Timeout time.Duration

	// BatchConcurrency is how many requests of one batch may run at once.
	// 0 means GOMAXPROCS; 1 runs batches sequentially. Responses keep the
	// order of the requests either way.
	BatchConcurrency int

	// Authorizer, if not nil, is consulted for every request (see
	// Authorizer).
	Authorizer Authorizer

	// Logger receives handler failures and panics; nil means slog.Default().
	Logger *slog.Logger

	// Timer, if not nil, times the calls of every enabled method: on a
	// method's first call the server asks it for that method's Observer
	// (a metrics.TimerVec labelled by method name, say) and then records in
	// it the seconds each call takes, from dispatch to encoded response,
	// errors and panics included. Asking lazily keeps methods nobody calls
	// out of the metrics, as in Besu; nil costs nothing.
	Timer func(method string) Observer
}

// Observer records one observation (a call's duration in seconds); a
// Prometheus histogram is one.
type Observer interface {
	Observe(float64)
}

// Server dispatches JSON-RPC messages to the methods of a Registry, with the
// groups, limits and authorization of one endpoint. It is independent of the
// transport: HTTP uses it through NewHTTPHandler, a WebSocket connection
// through HandleMessage. A Server is safe for concurrent use.
type Server struct {
	enabled      map[string]*method  // methods of enabled groups
	disabled     map[string]struct{} // registered methods of disabled groups
	apis         []string
	maxBatch     int
	timeout      time.Duration
	batchWorkers int
	helpers      chan struct{} // bounds batch helper goroutines server-wide
	auth         Authorizer
	log          *slog.Logger
	timers       map[*method]*methodTimer // nil without Config.Timer
}

// NewServer builds a server from a snapshot of reg: methods registered later
// are not served.
func NewServer(reg *Registry, cfg Config) (*Server, error) {
	s := &Server{
		enabled:      make(map[string]*method),
		disabled:     make(map[string]struct{}),
		maxBatch:     cfg.MaxBatchSize,
		timeout:      cfg.Timeout,
		batchWorkers: cfg.BatchConcurrency,
		auth:         cfg.Authorizer,
		log:          cfg.Logger,
	}
	if s.maxBatch == 0 {
		s.maxBatch = DefaultMaxBatchSize
	}
	if s.maxBatch < -1 {
		return nil, fmt.Errorf("rpc: invalid max batch size %d", cfg.MaxBatchSize)
	}
	if s.timeout == 0 {
		s.timeout = DefaultTimeout
	}
	if s.batchWorkers <= 0 {
		s.batchWorkers = runtime.GOMAXPROCS(0)
	}
	s.helpers = make(chan struct{}, 4*runtime.GOMAXPROCS(0))
	if s.log == nil {
		s.log = slog.Default()
	}

	apis := cfg.APIs
	if apis == nil {
		apis = rpctypes.DefaultAPIs
	}
	registered := reg.Groups()
	on := map[string]bool{rpctypes.GroupRPC: true}
	for _, a := range apis {
		g := strings.ToUpper(strings.TrimSpace(a))
		if g == "" || g == rpctypes.GroupRPC {
			continue // RPC is always on
		}
		if !slices.Contains(rpctypes.KnownGroups, g) && !slices.Contains(registered, g) {
			return nil, fmt.Errorf("rpc: unknown API group %q", a)
		}
		if !on[g] {
			on[g] = true
			s.apis = append(s.apis, g)
		}
	}
	for name, m := range reg.snapshot() {
		if on[m.group] {
			s.enabled[name] = m
		} else {
			s.disabled[name] = struct{}{}
		}
	}
	if cfg.Timer != nil {
		s.timers = make(map[*method]*methodTimer, len(s.enabled))
		for name, m := range s.enabled {
			s.timers[m] = &methodTimer{name: name, get: cfg.Timer}
		}
	}
	return s, nil
}

// methodTimer records the call times of one method in the Observer
// Config.Timer gives for it, fetched on the first call.
type methodTimer struct {
	name string
	get  func(string) Observer
	once sync.Once
	obs  Observer
}

// since records the time elapsed since start (a monotonic reading).
func (t *methodTimer) since(start time.Duration) {
	t.once.Do(func() {
		if t.obs = t.get(t.name); t.obs == nil {
			t.obs = nopObserver{}
		}
	})
	t.obs.Observe((monotonic() - start).Seconds())
}

// clockBase anchors monotonic. time.Since of a time carrying a monotonic
// reading reads only the monotonic clock: half the cost of time.Now, which
// reads the wall clock too, and the timer reads the clock twice a call.
var clockBase = time.Now()

// monotonic returns the monotonic clock.
func monotonic() time.Duration { return time.Since(clockBase) }

type nopObserver struct{}

func (nopObserver) Observe(float64) {}

// APIs returns the enabled API groups in configuration order (for
// rpc_modules).
func (s *Server) APIs() []string { return slices.Clone(s.apis) }

// HandleMessage processes one message (a request object or a batch array)
// and returns the response to send, or nil when there is none (a
// notification). isBatch reports whether msg was a batch.
func (s *Server) HandleMessage(ctx context.Context, msg []byte) (resp []byte, isBatch bool) {
	bp := getBuffer()
	out, o := s.process(ctx, msg, (*bp)[:0])
	if len(out) > 0 {
		resp = slices.Clone(out)
	}
	*bp = out
	putBuffer(bp)
	return resp, o.batch
}

// outcome describes a processed message for the transport.
type outcome struct {
	status int  // HTTP status (current Besu's mapping)
	batch  bool // the message was an array
}

// process handles one message, appending the response (if any) to dst.
func (s *Server) process(ctx context.Context, msg []byte, dst []byte) ([]byte, outcome) {
	i := skipSpace(msg, 0)
	if i == len(msg) {
		return appendError(dst, nullID, rpctypes.ErrParse), outcome{status: http.StatusBadRequest}
	}
	switch msg[i] {
	case '{':
		var req request
		end := parseRequest(msg, i, &req)
		if end < 0 || skipSpace(msg, end) != len(msg) {
			return appendError(dst, nullID, rpctypes.ErrParse), outcome{status: http.StatusBadRequest}
		}
		out, status := s.dispatch(ctx, &req, dst, true)
		return out, outcome{status: status}
	case '[':
		sp := getSpans()
		defer putSpans(sp)
		spans, end := splitBatch(msg, i, (*sp)[:0])
		*sp = spans
		if end < 0 || skipSpace(msg, end) != len(msg) {
			return appendError(dst, nullID, rpctypes.ErrParse), outcome{status: http.StatusBadRequest}
		}
		if len(spans) == 0 {
			return appendError(dst, nullID, rpctypes.ErrInvalidRequest), outcome{status: http.StatusBadRequest, batch: true}
		}
		if s.maxBatch > 0 && len(spans) > s.maxBatch {
			return appendError(dst, nullID, rpctypes.ErrExceedsBatchLimit), outcome{status: http.StatusOK, batch: true}
		}
		out, status := s.runBatch(ctx, msg, spans, dst)
		return out, outcome{status: status, batch: true}
	}
	// A scalar is valid JSON but neither a request nor a batch; Besu
	// answers it, like malformed JSON, with a parse error.
	return appendError(dst, nullID, rpctypes.ErrParse), outcome{status: http.StatusBadRequest}
}

// dispatch answers one parsed request, appending the response to dst, and
// returns the HTTP status a single request would get. single makes the call
// carry the server's timeout (a batch shares one deadline instead).
func (s *Server) dispatch(ctx context.Context, req *request, dst []byte, single bool) (out []byte, status int) {
	if req.err != nil {
		return appendError(dst, req.responseID(), req.err), statusFor(req.err)
	}
	if !req.hasID {
		// Like Besu, a notification is neither executed nor answered.
		return dst, http.StatusOK
	}
	id := req.id
	m := s.enabled[string(req.method)]
	if m == nil {
		e := rpctypes.ErrMethodNotFound
		if _, ok := s.disabled[string(req.method)]; ok || rpctypes.IsKnownMethod(string(req.method)) {
			e = rpctypes.ErrMethodNotEnabled
		}
		return appendError(dst, id, e), http.StatusOK
	}
	if s.auth != nil && !s.auth.Authorize(ctx, m.name) {
		return appendError(dst, id, rpctypes.ErrUnauthorized), http.StatusUnauthorized
	}
	if s.timers != nil {
		// Deferred before the panic handler below, so it runs after it and
		// a panicking call is timed too.
		defer s.timers[m].since(monotonic())
	}
	if single && s.timeout > 0 {
		dc := withLazyDeadline(ctx, s.timeout)
		defer dc.release()
		ctx = dc
	}

	mark := len(dst)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("JSON-RPC method panicked", "method", m.name, "panic", p, "stack", string(debug.Stack()))
			out, status = appendError(dst[:mark], id, rpctypes.ErrInternal), http.StatusOK
		}
	}()
	res := m.invoke(ctx, req.params)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Past the deadline the request has timed out whatever the handler
		// made of it (Besu answers from a timer with a null id).
		return appendError(dst, nullID, rpctypes.ErrTimeout), http.StatusRequestTimeout
	}
	var e *rpctypes.Error
	switch {
	case res.paramErr != nil:
		e = res.paramErr
	case res.panicked != nil:
		s.log.Error("JSON-RPC method panicked", "method", m.name, "panic", res.panicked, "stack", res.stack)
		e = rpctypes.ErrInternal
	case res.err != nil:
		if e = m.wireError(res.err); e == nil {
			s.log.Error("JSON-RPC method failed", "method", m.name, "err", res.err)
			e = rpctypes.ErrInternal
		}
	default:
		var err error
		if out, err = appendResult(dst, id, m, &res); err == nil {
			return out, http.StatusOK
		}
		s.log.Error("JSON-RPC result cannot be encoded", "method", m.name, "err", err)
		e = rpctypes.ErrInternal
	}
	return appendError(dst, id, e), statusFor(e)
}

// wireError is the error answered for a handler's err: the group's mapping
// of it (Group.Errors), else the *Error in its chain; nil when neither
// gives one.
func (m *method) wireError(err error) *rpctypes.Error {
	if m.mapErr != nil {
		if e := m.mapErr(err); e != nil {
			return e
		}
	}
	return asError(err)
}

// asError returns the *Error in err's chain, or nil.
func asError(err error) *rpctypes.Error {
	var e *rpctypes.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// statusFor is the HTTP status of a single request answered with e, as in
// current Besu: 400 for parse errors and invalid requests, 401 for
// unauthorized, 200 for every other error.
func statusFor(e *rpctypes.Error) int {
	switch {
	case e.Is(rpctypes.ErrParse), e.Is(rpctypes.ErrInvalidRequest):
		return http.StatusBadRequest
	case e.Is(rpctypes.ErrUnauthorized):
		return http.StatusUnauthorized
	}
	return http.StatusOK
}

// span is the position of one batch element in the message.
type span struct{ start, end int }

// splitBatch validates the array starting at b[i] and appends the span of
// each element to spans. It returns the index after the array, or -1.
func splitBatch(b []byte, i int, spans []span) ([]span, int) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return spans, i + 1
	}
	for {
		end := skipValue(b, i, 1)
		if end < 0 {
			return spans, -1
		}
		spans = append(spans, span{i, end})
		i = skipSpace(b, end)
		if i >= len(b) {
			return spans, -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return spans, i + 1
		default:
			return spans, -1
		}
	}
}

// element answers one batch element. Work its handler deferred until the
// reply (rpctypes.DeferUntilReply) comes back as a pendingReply, nil when
// none. ctx carries d (withDeferred), which the calling worker reuses
// element after element.
func (s *Server) element(ctx context.Context, d *rpctypes.ReplyWork, b []byte, dst []byte) ([]byte, *pendingReply) {
	if b[0] != '{' {
		return appendError(dst, nullID, rpctypes.ErrInvalidRequest), nil
	}
	var req request
	if parseRequest(b, 0, &req) < 0 { // cannot happen: the batch was validated
		return appendError(dst, nullID, rpctypes.ErrInvalidRequest), nil
	}
	d.Reset()
	out, _ := s.dispatch(ctx, &req, dst, false)
	if len(d.Funcs()) == 0 {
		return out, nil
	}
	return out, &pendingReply{fns: append([]func() error(nil), d.Funcs()...), id: req.responseID(), m: s.enabled[string(req.method)]}
}

// runBatch answers the elements of a batch, concurrently when allowed, and
// appends the response array (notifications left out) to dst.
func (s *Server) runBatch(ctx context.Context, msg []byte, spans []span, dst []byte) ([]byte, int) {
	if s.timeout > 0 {
		dc := withLazyDeadline(ctx, s.timeout)
		defer dc.release()
		ctx = dc
	}
	start := len(dst)
	dst = append(dst, '[')
	workers := min(len(spans), s.batchWorkers)
	if workers <= 1 {
		var answers []span // each answered element's response in dst
		d, ectx := withDeferred(ctx)
		var pending []*pendingReply
		for _, sp := range spans {
			if ctx.Err() != nil {
				break
			}
			mark := len(dst)
			if dst[mark-1] != '[' {
				dst = append(dst, ',')
			}
			n := len(dst)
			var p *pendingReply
			if dst, p = s.element(ectx, d, msg[sp.start:sp.end], dst); len(dst) == n {
				dst = dst[:mark] // notification
				continue
			}
			answers = append(answers, span{n, len(dst)})
			pending = append(pending, p)
		}
		if failed := settle(pending); failed != nil {
			dst = rebuild(dst, start, answers, failed)
		}
	} else {
		dst = s.runBatchConcurrent(ctx, msg, spans, workers, dst)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return appendError(dst[:start], nullID, rpctypes.ErrTimeout), http.StatusRequestTimeout
	}
	return append(dst, ']'), http.StatusOK
}

// runBatchConcurrent answers the elements with up to workers goroutines: the
// calling one and helpers taken from the server-wide budget (so many batches
// at once cannot start unbounded goroutines; without a free helper the
// caller does the work itself). Each worker appends responses to its own
// buffer and records where each landed, and the responses are then copied
// out in request order.
func (s *Server) runBatchConcurrent(ctx context.Context, msg []byte, spans []span, workers int, dst []byte) []byte {
	type slot struct {
		w, start, end int
		pending       *pendingReply
	}
	slots := make([]slot, len(spans))
	bufs := make([]*[]byte, workers)
	var next atomic.Int64
	work := func(w int) {
		d, ectx := withDeferred(ctx)
		buf := (*bufs[w])[:0]
		for {
			i := int(next.Add(1) - 1)
			if i >= len(spans) {
				break
			}
			st := len(buf)
			var p *pendingReply
			if ctx.Err() == nil {
				buf, p = s.element(ectx, d, msg[spans[i].start:spans[i].end], buf)
			}
			slots[i] = slot{w, st, len(buf), p}
		}
		*bufs[w] = buf
	}
	for w := range bufs {
		bufs[w] = getBuffer()
	}
	var wg sync.WaitGroup
helpers:
	for w := 1; w < workers; w++ {
		select {
		case s.helpers <- struct{}{}:
			wg.Add(1)
			go func() {
				defer func() { <-s.helpers; wg.Done() }()
				work(w)
			}()
		default:
			break helpers
		}
	}
	work(0)
	wg.Wait()
	pending := make([]*pendingReply, len(slots))
	for i, sl := range slots {
		pending[i] = sl.pending
	}
	failed := settle(pending)
	for i, sl := range slots {
		if sl.end == sl.start {
			continue // notification, or skipped after the deadline
		}
		if dst[len(dst)-1] != '[' {
			dst = append(dst, ',')
		}
		if e, ok := failed[i]; ok {
			dst = append(dst, e...)
			continue
		}
		dst = append(dst, (*bufs[sl.w])[sl.start:sl.end]...)
	}
	for _, b := range bufs {
		putBuffer(b)
	}
	return dst
}

// Buffer pools. Buffers that grew very large are dropped rather than kept.
const maxPooledBuffer = 1 << 20

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) > maxPooledBuffer {
		return
	}
	*b = (*b)[:0]
	bufferPool.Put(b)
}

var spanPool = sync.Pool{New: func() any { s := make([]span, 0, 16); return &s }}

func getSpans() *[]span { return spanPool.Get().(*[]span) }

func putSpans(s *[]span) {
	if cap(*s) > 4096 {
		return
	}
	*s = (*s)[:0]
	spanPool.Put(s)
}
