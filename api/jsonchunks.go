package api

import "slices"

// JSONChunks is a JSON value held in pieces, in order: a debug trace is
// written as it runs into chunks of bounded size, so a large one never
// needs a buffer grown (and copied) to its full size before the response
// takes it in one copy (rpc.JSONAppender).
type JSONChunks [][]byte

// chunkSize is the size a chunk is closed at.
const chunkSize = 1 << 20

// Len is the encoding's length in bytes.
func (c JSONChunks) Len() int {
	n := 0
	for _, b := range c {
		n += len(b)
	}
	return n
}

// AppendJSON implements rpc.JSONAppender.
func (c JSONChunks) AppendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, c.Len())
	for _, b := range c {
		dst = append(dst, b...)
	}
	return dst
}

// MarshalJSON implements json.Marshaler, for front ends that encode with
// encoding/json.
func (c JSONChunks) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return c.AppendJSON(nil), nil
}

// chunkWriter appends to JSONChunks, closing a chunk once it passes
// chunkSize.
type chunkWriter struct {
	done JSONChunks
	cur  []byte
}

// buf returns the open chunk to append to.
func (w *chunkWriter) buf() []byte {
	if w.cur == nil {
		w.cur = make([]byte, 0, chunkSize+chunkSize/16)
	}
	return w.cur
}

// set stores the open chunk after an append, closing it when full.
func (w *chunkWriter) set(b []byte) {
	w.cur = b
	if len(b) >= chunkSize {
		w.done = append(w.done, b)
		w.cur = nil
	}
}

// write appends p.
func (w *chunkWriter) write(p []byte) { w.set(append(w.buf(), p...)) }

// chunks closes the writer and returns what it holds.
func (w *chunkWriter) chunks() JSONChunks {
	out := w.done
	if len(w.cur) > 0 {
		out = append(out, w.cur)
	}
	w.done, w.cur = nil, nil
	if out == nil {
		out = JSONChunks{}
	}
	return out
}
