package rpctypes

import "context"

// replyKey is the context key under which a batch element's handler finds
// where to leave work for before the reply (DeferUntilReply).
type replyKey struct{}

// ReplyWork is the work the handlers of a batch's elements left for before
// the reply, one element at a time: the server gives each worker one
// (WithReplyWork), empties it before each element (Reset) and takes what
// the element's handler registered (Funcs). An element's handler runs on
// one goroutine, so it needs no lock. It lives here rather than in the
// server so that a service deferring work (the node's journaled pool)
// needs only this package.
type ReplyWork struct{ fns []func() error }

// WithReplyWork returns ctx carrying w, for DeferUntilReply.
func WithReplyWork(ctx context.Context, w *ReplyWork) context.Context {
	return context.WithValue(ctx, replyKey{}, w)
}

// Reset forgets the work registered so far, keeping the storage.
func (w *ReplyWork) Reset() { w.fns = w.fns[:0] }

// Funcs is the work registered since the last Reset, in order. The slice
// is reused after the next Reset: copy it to keep it.
func (w *ReplyWork) Funcs() []func() error { return w.fns }

// DeferUntilReply registers fn to run once every element of the batch
// being answered has been handled, before the batch's response is written.
// The work of all elements runs in request order on one goroutine, so work
// that batches well runs once for the whole batch (the first transaction's
// journal write makes every later one's durable too). An error from fn
// replaces its element's answer with that error, mapped as the handler's
// own errors are. Outside a batch — a single request, an in-process call —
// it returns false and the caller does the work itself, before answering.
// The handler must call it from the goroutine it was called on.
func DeferUntilReply(ctx context.Context, fn func() error) bool {
	w, ok := ctx.Value(replyKey{}).(*ReplyWork)
	if !ok {
		return false
	}
	w.fns = append(w.fns, fn)
	return true
}
