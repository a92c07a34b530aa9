package rpc

import (
	"encoding"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/basaltchain/basalt/rpctypes"
)

// Responses are written by appending to a byte slice, member by member, so
// the member order is always jsonrpc, id, result/error and the id is echoed
// byte for byte as the client sent it.

const (
	respPrefix    = `{"jsonrpc":"2.0","id":`
	resultInfix   = `,"result":`
	errorInfix    = `,"error":{"code":`
	messageInfix  = `,"message":`
	dataInfix     = `,"data":`
	successResult = `"Success"`
)

// appendError appends a complete error response.
func appendError(dst, id []byte, e *rpctypes.Error) []byte {
	dst = append(dst, respPrefix...)
	dst = append(dst, id...)
	dst = append(dst, errorInfix...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, messageInfix...)
	dst = appendJSONString(dst, e.Message)
	if e.Data != nil {
		mark := len(dst)
		var err error
		dst = append(dst, dataInfix...)
		if dst, err = appendJSONValue(dst, e.Data); err != nil {
			dst = dst[:mark] // drop data that cannot be encoded
		}
	}
	return append(dst, "}}"...)
}

// appendResult appends a complete success response for the call's result, or
// returns an error (and dst unchanged) if the result cannot be encoded.
func appendResult(dst, id []byte, m *method, res *callResult) ([]byte, error) {
	mark := len(dst)
	dst = append(dst, respPrefix...)
	dst = append(dst, id...)
	dst = append(dst, resultInfix...)
	var err error
	switch {
	case !res.hasValue:
		dst = append(dst, successResult...)
	case m.resultNil && res.value.IsNil():
		dst = append(dst, "null"...)
	case m.resultText:
		var text []byte
		if text, err = res.value.Interface().(encoding.TextMarshaler).MarshalText(); err == nil {
			dst = appendJSONString(dst, text)
		}
	default:
		if a, ok := res.value.Interface().(JSONAppender); ok {
			dst = a.AppendJSON(dst)
			break
		}
		dst, err = appendJSONValue(dst, res.value.Interface())
	}
	if err != nil {
		return dst[:mark], err
	}
	return append(dst, '}'), nil
}

// JSONAppender is a result that appends its own JSON encoding to the
// response. A large result built in pieces (a debug trace) then reaches
// the response in one copy, without encoding/json's intermediate copy and
// validation; the method vouches for the encoding.
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// jsonEncoder is an encoding/json Encoder that appends to a byte slice; it is
// pooled because json.NewEncoder allocates.
type jsonEncoder struct {
	buf []byte
	enc *json.Encoder
}

func (e *jsonEncoder) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	return len(p), nil
}

var encoderPool = sync.Pool{New: func() any {
	e := new(jsonEncoder)
	e.enc = json.NewEncoder(e)
	// Like Besu (Jackson), do not escape <, > and & in strings.
	e.enc.SetEscapeHTML(false)
	return e
}}

// appendJSONValue appends v encoded by encoding/json.
func appendJSONValue(dst []byte, v any) ([]byte, error) {
	e := encoderPool.Get().(*jsonEncoder)
	e.buf = dst
	err := e.enc.Encode(v)
	out := e.buf
	e.buf = nil
	encoderPool.Put(e)
	if err != nil {
		return dst, err
	}
	// Encode terminates the value with a newline.
	if n := len(out); n > len(dst) && out[n-1] == '\n' {
		out = out[:n-1]
	}
	return out, nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaping like encoding/json
// with HTML escaping off: quotes, backslashes, control characters, invalid
// UTF-8 (as U+FFFD) and U+2028/U+2029.
func appendJSONString[S string | []byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func decodeRune[S string | []byte](s S) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	return utf8.RuneError, 1
}
