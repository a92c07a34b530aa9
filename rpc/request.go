package rpc

import (
	"encoding/json"

	"github.com/basaltchain/basalt/rpctypes"
)

// request is one JSON-RPC request object, as raw slices of the message. The
// slices alias the message buffer and are only valid while it is.
type request struct {
	id    []byte // raw id as sent; nil when absent or invalid
	hasID bool   // the object has an "id" member (so it is not a notification)
	// method is the method name (unescaped); valid when err is nil. It
	// aliases the message when the name has no escapes, so looking it up in a
	// map costs no allocation.
	method []byte
	params []byte // raw params array; nil when absent or null
	// err is the envelope error (-32600) to answer with, if any.
	err *rpctypes.Error
}

// notification reports whether the request gets no response: it is a valid
// request object without an "id" member.
func (r *request) notification() bool { return !r.hasID && r.err == nil }

// responseID is the id to echo: the raw id, or null.
func (r *request) responseID() []byte {
	if r.id == nil {
		return nullID
	}
	return r.id
}

var nullID = []byte("null")

// parseRequest validates the object starting at b[i] and fills r from its
// members. It returns the index after the object, or -1 if the bytes are not
// valid JSON (a parse error, not an envelope error). Envelope errors (bad id
// type, missing method, params not an array) are left in r.err; as in Besu
// the "jsonrpc" member is not checked. For a duplicated member the last one
// counts, as in encoding/json.
func parseRequest(b []byte, i int, r *request) int {
	*r = request{}
	var (
		methodRaw   []byte
		methodPlain bool
		hasMethod   bool
		idBad       bool
		paramsBad   bool
	)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			ks := i
			ke, kplain := skipString(b, i)
			if ke < 0 {
				return -1
			}
			i = skipSpace(b, ke)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			vs := skipSpace(b, i+1)
			ve := skipValue(b, vs, 1)
			if ve < 0 {
				return -1
			}
			val := b[vs:ve]
			switch memberName(b[ks:ke], kplain) {
			case "id":
				r.hasID = true
				switch c := val[0]; {
				case c == '"' || c == '-' || isDigit(c) || c == 'n':
					r.id, idBad = val, false
				default: // object, array or boolean
					r.id, idBad = nil, true
				}
			case "method":
				hasMethod = val[0] == '"'
				if hasMethod {
					methodRaw = val
					_, methodPlain = skipString(val, 0)
				} else {
					methodRaw = nil
				}
			case "params":
				switch val[0] {
				case '[':
					r.params, paramsBad = val, false
				case 'n':
					r.params, paramsBad = nil, false
				default:
					r.params, paramsBad = nil, true
				}
			}
			i = skipSpace(b, ve)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	}
	switch {
	case idBad:
		r.err = rpctypes.ErrInvalidRequest
	case !hasMethod || paramsBad:
		r.err = rpctypes.ErrInvalidRequest
	case methodPlain:
		r.method = methodRaw[1 : len(methodRaw)-1]
	default:
		var name string
		if json.Unmarshal(methodRaw, &name) != nil {
			r.err = rpctypes.ErrInvalidRequest
		}
		r.method = []byte(name)
	}
	return i
}

// memberName returns the name of an object member from its raw quoted key.
// Only the four envelope names matter, so an escaped key is decoded only to
// compare it.
func memberName(raw []byte, plain bool) string {
	if plain {
		switch string(raw[1 : len(raw)-1]) {
		case "id":
			return "id"
		case "method":
			return "method"
		case "params":
			return "params"
		}
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
