package rpc

import (
	"context"
	"sync"
)

// Notifier pushes server-initiated messages (subscription notifications) to
// the client of a connection that supports them: a WebSocket connection
// puts one in the context of every request it dispatches. HTTP requests have
// none, which is how eth_subscribe knows it cannot be served there.
type Notifier interface {
	// Notify queues msg, a complete JSON-RPC message, without blocking.
	// It returns false when the connection is closed, or is being closed
	// because its client does not read fast enough; the message is lost
	// then and the caller should forget the connection.
	Notify(msg []byte) bool
	// NotifySubscription queues a subscription notification without
	// blocking, like Notify. Its Result is shared, not copied: one
	// encoding of a block serves every subscription it goes to. A
	// notification marked Latest may replace one of the same subscription
	// that is still waiting, when the connection's client reads slower
	// than notifications come (see WSConfig.SendQueueBytes).
	NotifySubscription(n Notification) bool
	// OnClose registers fn to run once when the connection ends (at once
	// if it already has).
	OnClose(fn func())
}

// Notification is a subscription notification:
// {"jsonrpc":"2.0","method":Method,"params":{"subscription":ID,"result":Result}}.
type Notification struct {
	Method string // e.g. "eth_subscription"
	ID     string // the subscription id
	// Result is the result's JSON, shared by every notification of the
	// same event: it must not be changed once handed over.
	Result []byte
	// Latest marks a notification the next one of its subscription makes
	// obsolete (newHeads: a client that learns of block n+1 has no use
	// for a waiting block n), so a slow client may be sent only the
	// newest.
	Latest bool
}

// Len is the length of the complete message.
func (n *Notification) Len() int {
	return len(notePrefix) + len(n.Method) + len(noteParams) + len(n.ID) + len(noteResult) + len(n.Result) + len(noteEnd)
}

// AppendHeader appends the message up to the result.
func (n *Notification) AppendHeader(dst []byte) []byte {
	dst = append(dst, notePrefix...)
	dst = append(dst, n.Method...)
	dst = append(dst, noteParams...)
	dst = append(dst, n.ID...)
	return append(dst, noteResult...)
}

const (
	notePrefix = `{"jsonrpc":"2.0","method":"`
	noteParams = `","params":{"subscription":"`
	noteResult = `","result":`
	noteEnd    = `}}`
)

type notifierKey struct{}

// WithNotifier returns a context carrying n, for transports.
func WithNotifier(ctx context.Context, n Notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

// NotifierFrom returns the connection's Notifier, or nil.
func NotifierFrom(ctx context.Context) Notifier {
	n, _ := ctx.Value(notifierKey{}).(Notifier)
	return n
}

// afterResponse collects the functions to run once a message's response has
// been queued.
type afterResponse struct {
	mu  sync.Mutex
	fns []func()
}

type afterKey struct{}

// withAfterResponse returns a context in which AfterResponse defers to the
// returned collector.
func withAfterResponse(ctx context.Context) (context.Context, *afterResponse) {
	a := new(afterResponse)
	return context.WithValue(ctx, afterKey{}, a), a
}

// run calls the collected functions in order.
func (a *afterResponse) run() {
	a.mu.Lock()
	fns := a.fns
	a.fns = nil
	a.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// AfterResponse arranges for fn to run right after the response to the
// current request has been queued on its connection (for a batch, after
// the whole batch's response). eth_subscribe uses it so that no
// notification overtakes the response that tells the client the
// subscription id. Without a transport that supports it, fn runs at once.
func AfterResponse(ctx context.Context, fn func()) {
	a, _ := ctx.Value(afterKey{}).(*afterResponse)
	if a == nil {
		fn()
		return
	}
	a.mu.Lock()
	a.fns = append(a.fns, fn)
	a.mu.Unlock()
}
