package rpc

import (
	"context"

	"github.com/basaltchain/basalt/rpc/rpctypes"
)

// replyKey is the context key under which a batch element's handler finds
// where to leave work for before the reply (DeferUntilReply).
type replyKey struct{}

// deferred is the work one batch element's handler left for before the
// reply. An element's handler runs on one goroutine, so it needs no lock.
type deferred struct{ fns []func() error }

// withDeferred returns ctx carrying a fresh deferred for the batch elements
// one worker handles in turn.
func withDeferred(ctx context.Context) (*deferred, context.Context) {
	d := new(deferred)
	return d, context.WithValue(ctx, replyKey{}, d)
}

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
	d, ok := ctx.Value(replyKey{}).(*deferred)
	if !ok {
		return false
	}
	d.fns = append(d.fns, fn)
	return true
}

// pendingReply is a batch element whose answer waits for deferred work:
// the work, and what its error answer needs (the id and the method's
// error mapping).
type pendingReply struct {
	fns []func() error
	id  []byte
	m   *method
}

// settle runs the deferred work of a batch's elements (nil entries have
// none) in order and returns the error answers replacing the answers of
// the elements whose work failed, by index; nil when none failed.
func settle(pending []*pendingReply) map[int][]byte {
	var failed map[int][]byte
	for i, p := range pending {
		if p == nil {
			continue
		}
		for _, fn := range p.fns {
			err := fn()
			if err == nil {
				continue
			}
			e := p.m.wireError(err)
			if e == nil {
				e = rpctypes.ErrInternal
			}
			if failed == nil {
				failed = make(map[int][]byte)
			}
			failed[i] = appendError(nil, p.id, e)
			break
		}
	}
	return failed
}

// rebuild rewrites the batch response that starts at dst[start] (its '['
// and the answers at spans, in order) with the answers in failed put in
// place of the answers they replace, by their index among spans.
func rebuild(dst []byte, start int, answers []span, failed map[int][]byte) []byte {
	out := append([]byte(nil), '[')
	for i, a := range answers {
		if i > 0 {
			out = append(out, ',')
		}
		if e, ok := failed[i]; ok {
			out = append(out, e...)
		} else {
			out = append(out, dst[a.start:a.end]...)
		}
	}
	return append(dst[:start], out...)
}
