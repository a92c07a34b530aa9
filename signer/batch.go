package signer

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/downstream"
)

// EthSigner does not take batches. Basalt's signer does:
//
//   - A batch with no method the signer answers goes to the node unchanged,
//     and the node's answer (status, headers, body) comes back unchanged.
//   - A batch that holds such methods is taken apart. The other elements go
//     to the node first, as one batch in their original order; if the node
//     refuses that batch as a whole (an answer that is not a JSON array, or
//     not HTTP 200) its answer is the answer and nothing is signed. Then
//     the signer's own elements run one after the other, in order (so two
//     sends from one account get consecutive nonces in batch order), and
//     the responses are merged in request order. Notifications sent on to
//     the node get no response, as usual; a signer method is always
//     answered, with id null if the request had none (as EthSigner answers
//     single requests).

// batchItem is one element of a batch taken apart.
type batchItem struct {
	raw   json.RawMessage
	env   envelope
	local methodHandler
	// answered: a forwarded element the node answers (not a notification
	// by the node's rules).
	answered bool
}

func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil {
		s.relay(w, r, body, nil)
		return
	}
	items := make([]batchItem, len(elems))
	local := 0
	for i, el := range elems {
		it := &items[i]
		it.raw = el
		t := bytes.TrimSpace(el)
		if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &it.env) != nil {
			it.answered = true // the node answers a malformed element with an error
			continue
		}
		if h := s.handlerFor(it.env.method()); h != nil {
			it.local = h
			local++
			continue
		}
		it.answered = it.env.ID != nil || !wellFormed(&it.env)
	}
	if local == 0 {
		s.relay(w, r, body, nil)
		return
	}
	if len(elems) > s.maxBatch {
		writeReply(w, errorReplyStatus(nullID, rpctypes.ErrExceedsBatchLimit, http.StatusOK))
		return
	}

	forwarded, rp := s.forwardRest(r, items, local)
	if rp != nil {
		writeReply(w, rp)
		return
	}
	out := make([]byte, 0, 256*len(items))
	out = append(out, '[')
	first := true
	add := func(obj []byte) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, obj...)
	}
	for i := range items {
		it := &items[i]
		if it.local == nil {
			if resp, ok := forwarded[i]; ok {
				add(resp)
			}
			continue
		}
		if !it.env.idValid() {
			add(errorReply(nullID, rpctypes.ErrInvalidRequest).body)
			continue
		}
		rp := it.local(s, r.Context(), r, &it.env)
		body := bytes.TrimSpace(rp.body)
		if len(body) == 0 || body[0] != '{' || !json.Valid(body) {
			body = errorReply(it.env.responseID(), rpctypes.ErrInternal).body
		}
		add(body)
	}
	out = append(out, ']')
	writeReply(w, &reply{status: http.StatusOK, body: out})
}

// wellFormed reports whether a request object would be run by the node (a
// string method, params an array or absent): such an object without an id
// is a notification and gets no response.
func wellFormed(e *envelope) bool {
	if e.method() == "" || !e.idValid() {
		return false
	}
	p := bytes.TrimSpace(e.Params)
	return absent(p) || p[0] == '['
}

// forwardRest sends the elements the signer does not answer to the node as
// one batch and returns their responses by element index. A non-nil reply
// is the answer to the whole batch: the node could not be reached or
// refused the batch.
func (s *Server) forwardRest(r *http.Request, items []batchItem, local int) (map[int][]byte, *reply) {
	if local == len(items) {
		return nil, nil
	}
	sub := make([]byte, 0, 1024)
	sub = append(sub, '[')
	var idx []int
	for i := range items {
		if items[i].local != nil {
			continue
		}
		if len(idx) > 0 {
			sub = append(sub, ',')
		}
		sub = append(sub, items[i].raw...)
		idx = append(idx, i)
	}
	sub = append(sub, ']')
	resp, err := s.ds.Do(r.Context(), &downstream.Request{Method: http.MethodPost, Path: "/", Header: callHeader(r), Body: sub})
	if err != nil {
		elems := make([]json.RawMessage, len(items))
		for i := range items {
			elems[i] = items[i].raw
		}
		return nil, batchErrors(elems, err)
	}
	var arr []json.RawMessage
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &arr) != nil {
		return nil, relayed(resp)
	}
	out := make(map[int][]byte, len(arr))
	answered := 0
	for _, i := range idx {
		if items[i].answered {
			answered++
		}
	}
	if answered == len(arr) {
		k := 0
		for _, i := range idx {
			if items[i].answered {
				out[i] = arr[k]
				k++
			}
		}
		return out, nil
	}
	// The node answered a different set of elements than expected: match
	// the responses by id instead.
	used := make([]bool, len(arr))
	for _, i := range idx {
		want := compactJSON(items[i].env.ID)
		if want == nil {
			continue
		}
		for k, resp := range arr {
			if used[k] {
				continue
			}
			var got struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(resp, &got) == nil && bytes.Equal(compactJSON(got.ID), want) {
				used[k] = true
				out[i] = resp
				break
			}
		}
		if _, ok := out[i]; !ok {
			out[i] = errorReply(items[i].env.ID, rpctypes.ErrInternal.WithReason("the node's batch answer has no response for this request")).body
		}
	}
	return out, nil
}

func compactJSON(b json.RawMessage) []byte {
	if b == nil {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return nil
	}
	return buf.Bytes()
}

// batchFailure answers a batch body the node could not answer: one error
// per element that expects a response, with its id (see batchErrors); nil
// when body is not a JSON array.
func batchFailure(body []byte, err error) *reply {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		return nil
	}
	var elems []json.RawMessage
	if json.Unmarshal(t, &elems) != nil {
		return nil
	}
	return batchErrors(elems, err)
}

// batchErrors is the answer to a batch of elems when the node could not be
// reached or its answer was lost: the transport error of err for each
// element with an id (and, with id null, for each malformed one), none for
// notifications, with the status the error has for a single request.
func batchErrors(elems []json.RawMessage, err error) *reply {
	rpcErr, status := transportError(err)
	if rpcErr == ErrDownstreamTimeout || rpcErr == ErrDownstreamLost {
		rpcErr = rpcErr.WithData(outcomeUnknown{RequestSent: true})
	}
	out := []byte{'['}
	for _, el := range elems {
		var env envelope
		id := nullID
		t := bytes.TrimSpace(el)
		if len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &env) == nil {
			if env.ID == nil && wellFormed(&env) {
				continue // a notification: no response
			}
			if env.idValid() {
				id = env.responseID()
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, errorReplyStatus(id, rpcErr, status).body...)
	}
	out = append(out, ']')
	return &reply{status: status, body: out}
}
