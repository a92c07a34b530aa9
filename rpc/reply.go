package rpc

import (
	"context"

	"github.com/basaltchain/basalt/rpctypes"
)

// withDeferred returns ctx carrying a fresh rpctypes.ReplyWork for the
// batch elements one worker handles in turn.
func withDeferred(ctx context.Context) (*rpctypes.ReplyWork, context.Context) {
	d := new(rpctypes.ReplyWork)
	return d, rpctypes.WithReplyWork(ctx, d)
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
