package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/basaltchain/basalt/internal/httpcall"
)

// maxAnswer bounds one answer read into memory: far above a batch of
// receipts or a block with all its transactions.
const maxAnswer = 256 << 20

// client is a minimal JSON-RPC 2.0 client over HTTP keep-alive
// connections, the load a typical library puts on a node: one request per
// round trip, no pipelining. It is safe for concurrent use.
type client struct {
	url  string
	http *http.Client
	id   atomic.Uint64
}

// newClient returns a client with at most conns connections to url, all
// kept alive (one per closed-loop worker, so no worker pays for a new
// connection).
func newClient(url string, conns int) *client {
	tr := httpcall.NewTransport(5 * time.Second)
	tr.MaxIdleConns = conns + 16
	tr.MaxIdleConnsPerHost = conns + 16
	// A hard cap: Go's transport otherwise dials a fresh connection when a
	// request comes before the last answer's connection is back in the
	// idle pool, and nodes that limit connections (Besu's and Basalt's
	// --rpc-http-max-active-connections, 80) reset the excess.
	tr.MaxConnsPerHost = conns
	tr.DisableCompression = true
	return &client{url: url, http: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// close drops the client's idle connections: nodes limit open connections
// (80 by default in Besu and Basalt), so a run must not leave its
// keep-alive connections behind for the next one to trip on.
func (c *client) close() { c.http.CloseIdleConnections() }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// request encodes one JSON-RPC request.
func request(id uint64, method string, params ...any) ([]byte, error) {
	if params == nil {
		params = []any{}
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// post sends body and returns the raw answer.
func (c *client) post(ctx context.Context, body []byte) ([]byte, error) {
	a, err := httpcall.Do(ctx, c.http, &httpcall.Request{
		Method: http.MethodPost, URL: c.url, Body: body, ContentType: "application/json",
	}, maxAnswer)
	if err != nil {
		return nil, err
	}
	if a.Status != http.StatusOK {
		return a.Body, &httpcall.StatusError{Status: a.Status, Text: a.Text()}
	}
	return a.Body, nil
}

// call runs method and decodes its result into v (if not nil).
func (c *client) call(ctx context.Context, v any, method string, params ...any) error {
	body, err := request(c.id.Add(1), method, params...)
	if err != nil {
		return err
	}
	out, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var r response
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("%s: bad answer %.200q: %w", method, out, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %w", method, r.Error)
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(r.Result, v)
}

// batch runs one JSON-RPC batch of requests (all the same method) and
// returns one error per element (nil, or the element's error) and the
// results.
func (c *client) batch(ctx context.Context, method string, params [][]any) ([]json.RawMessage, []error, error) {
	reqs := make([]map[string]any, len(params))
	for i, p := range params {
		reqs[i] = map[string]any{"jsonrpc": "2.0", "id": i, "method": method, "params": p}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return nil, nil, err
	}
	out, err := c.post(ctx, body)
	if err != nil {
		return nil, nil, err
	}
	var rs []struct {
		ID json.RawMessage `json:"id"`
		response
	}
	if err := json.Unmarshal(out, &rs); err != nil {
		return nil, nil, fmt.Errorf("%s batch: bad answer %.200q: %w", method, out, err)
	}
	results := make([]json.RawMessage, len(params))
	errs := make([]error, len(params))
	for i := range errs {
		errs[i] = errors.New("no answer in batch")
	}
	for _, r := range rs {
		i, err := strconv.Atoi(string(r.ID))
		if err != nil || i < 0 || i >= len(params) {
			continue
		}
		errs[i] = nil
		if r.Error != nil {
			errs[i] = r.Error
		}
		results[i] = r.Result
	}
	return results, errs, nil
}
