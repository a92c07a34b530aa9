package signer

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/downstream"
)

// The signer's own errors (EthSigner's JsonRpcError catalogue); the other
// codes come from package rpc.
var (
	// ErrNoUnlockedAccount answers a from or eth_sign address the signer has
	// no key for.
	ErrNoUnlockedAccount = rpctypes.NewError(-32000, "No unlocked account matches the Sender")
	// ErrDownstreamConnect answers (HTTP 504) when the request never
	// reached the node: no connection could be made, or it failed before
	// the request was written. Nothing was sent, so the client may simply
	// try again.
	ErrDownstreamConnect = rpctypes.NewError(-32000, "Failed to connect to downstream node")
	// ErrDownstreamTimeout answers (HTTP 504) when the node received the
	// request but did not answer within --downstream-http-request-timeout.
	// The outcome is unknown: a transaction may be in the node's pool.
	ErrDownstreamTimeout = rpctypes.NewError(-32000, "Connection to downstream node timed out")
	// ErrDownstreamLost answers (HTTP 502) when the connection to the node
	// broke after the request was sent. The outcome is unknown: a
	// transaction may be in the node's pool, so check its hash (the error's
	// data) before sending again. EthSigner answers "Failed to connect" here,
	// which invites a resend that may spend the nonce twice; the code is
	// Basalt's own.
	ErrDownstreamLost = rpctypes.NewError(-32050, "Connection to downstream node lost after the request was sent")
)

// outcomeUnknown is the data of ErrDownstreamTimeout and ErrDownstreamLost:
// the request reached the node, and, for a transaction the signer sent, the
// hash to look up (eth_getTransactionByHash) before sending again.
type outcomeUnknown struct {
	RequestSent     bool         `json:"requestSent"`
	TransactionHash *common.Hash `json:"transactionHash,omitempty"`
}

// envelope is a JSON-RPC request object, its members kept raw.
type envelope struct {
	// ID is nil when the member is absent (a notification), "null" when
	// null.
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
}

// method returns the method name, or "" when it is missing or not a string.
func (e *envelope) method() string {
	if len(e.Method) == 0 || e.Method[0] != '"' {
		return ""
	}
	var m string
	if json.Unmarshal(e.Method, &m) != nil {
		return ""
	}
	return m
}

// idValid reports whether the id is absent, a string, a number or null.
func (e *envelope) idValid() bool {
	if e.ID == nil {
		return true
	}
	switch c := e.ID[0]; {
	case c == '"' || c == '-' || c == 'n' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// responseID is the id to answer with: the request's as sent, or null.
func (e *envelope) responseID() json.RawMessage {
	if e.ID == nil {
		return nullID
	}
	return e.ID
}

var nullID = json.RawMessage("null")

// reply is the answer to one request: a JSON-RPC response object, and, for
// a single request, the HTTP status and the headers to send with it.
type reply struct {
	status int
	header http.Header // headers of a relayed node answer; nil otherwise
	body   []byte
}

// resultReply answers id with result.
func resultReply(id json.RawMessage, result any) *reply {
	res, err := json.Marshal(result)
	if err != nil {
		return errorReply(id, rpctypes.ErrInternal)
	}
	b := make([]byte, 0, 48+len(id)+len(res))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, res...)
	b = append(b, '}')
	return &reply{status: http.StatusOK, body: b}
}

// errorReply answers id with e, with EthSigner's HTTP status for its code.
func errorReply(id json.RawMessage, e *rpctypes.Error) *reply {
	return errorReplyStatus(id, e, statusFor(e))
}

// errorReplyStatus answers id with e and the given HTTP status.
func errorReplyStatus(id json.RawMessage, e *rpctypes.Error, status int) *reply {
	obj := struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{e.Code, e.Message, e.Data}
	eb, err := json.Marshal(obj)
	if err != nil {
		eb = []byte(`{"code":` + strconv.Itoa(e.Code) + `,"message":"Internal error"}`)
	}
	b := make([]byte, 0, 48+len(id)+len(eb))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	b = append(b, '}')
	return &reply{status: status, body: b}
}

// statusFor is EthSigner's HTTP status for an error it answers itself:
// 400 for the request errors (parse error, invalid request, invalid
// params), 200 for the others. Send-transaction calls add one exception:
// an unknown sender is 400.
func statusFor(e *rpctypes.Error) int {
	switch e.Code {
	case rpctypes.CodeParseError, rpctypes.CodeInvalidRequest, rpctypes.CodeInvalidParams:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// asRPCError returns err as an *rpctypes.Error, or Internal error.
func asRPCError(err error) *rpctypes.Error {
	var e *rpctypes.Error
	if errors.As(err, &e) {
		return e
	}
	return rpctypes.ErrInternal
}

// transportReply answers a request whose downstream call got no response,
// with the request's id.
func transportReply(id json.RawMessage, err error) *reply { return transportReplyTx(id, err, nil) }

// transportReplyTx is transportReply for a call that sent the transaction
// whose hash is txHash (nil for other calls): when the outcome is unknown
// the hash is in the error's data.
func transportReplyTx(id json.RawMessage, err error, txHash *common.Hash) *reply {
	rpcErr, status := transportError(err)
	if rpcErr == ErrDownstreamTimeout || rpcErr == ErrDownstreamLost {
		rpcErr = rpcErr.WithData(outcomeUnknown{RequestSent: true, TransactionHash: txHash})
	}
	return errorReplyStatus(id, rpcErr, status)
}

// transportError is the error and HTTP status for a downstream call that
// got no response: connect (nothing sent), timed out or lost (outcome
// unknown).
func transportError(err error) (*rpctypes.Error, int) {
	var de *downstream.Error
	if errors.As(err, &de) {
		switch {
		case de.Kind == downstream.Connect || !de.Sent:
			return ErrDownstreamConnect, http.StatusGatewayTimeout
		case de.Kind == downstream.Timeout:
			return ErrDownstreamTimeout, http.StatusGatewayTimeout
		case de.Kind == downstream.Broken:
			return ErrDownstreamLost, http.StatusBadGateway
		}
	}
	return rpctypes.ErrInternal, http.StatusInternalServerError
}

// rpcResponse is a JSON-RPC response from the node.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error"`
}

// parseResponse decodes a node's JSON-RPC response object; ok is false
// when the body is not one.
func parseResponse(body []byte) (r rpcResponse, ok bool) {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return r, false
	}
	if json.Unmarshal(b, &r) != nil {
		return r, false
	}
	if r.Error == nil && r.Result == nil {
		return r, false
	}
	return r, true
}

// rpcError turns a node's error object into an *rpctypes.Error.
func (r *rpcResponse) rpcError() *rpctypes.Error {
	e := rpctypes.NewError(r.Error.Code, r.Error.Message)
	if len(r.Error.Data) > 0 {
		e.Data = r.Error.Data
	}
	return e
}

// writeReply writes a single request's reply.
func writeReply(w http.ResponseWriter, rp *reply) {
	h := w.Header()
	if rp.header != nil {
		downstream.CopyResponseHeader(h, rp.header)
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Length", strconv.Itoa(len(rp.body)))
	w.WriteHeader(rp.status)
	_, _ = w.Write(rp.body)
}
