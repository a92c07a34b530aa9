package rpc

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime/debug"

	"github.com/basaltchain/basalt/rpctypes"
)

// maxInlineArgs is how many arguments fit the stack array used to build the
// argument list; methods with more still work, with one allocation.
const maxInlineArgs = 8

// decodeArgs decodes the raw params array into the method's arguments,
// appending them to in. It returns the parameter error to answer with, if any.
func (m *method) decodeArgs(params []byte, in []reflect.Value) ([]reflect.Value, *rpctypes.Error) {
	var it arrayIter
	if params != nil {
		it = newArrayIter(params)
	}
	if m.exactCount || m.order != nil || m.defaults != nil {
		return m.decodeCollected(it, in)
	}
	for i := range m.args {
		raw, ok := it.next()
		v, perr := m.decodeArg(i, raw, ok)
		if perr != nil {
			return in, perr
		}
		in = append(in, v)
	}
	if !m.allowExtra {
		if _, more := it.next(); more {
			return in, rpctypes.ErrInvalidParamCount
		}
	}
	return in, nil
}

// decodeCollected gathers the raw params first, for methods that check the
// count before decoding, decode out of order or have parameter defaults.
func (m *method) decodeCollected(it arrayIter, in []reflect.Value) ([]reflect.Value, *rpctypes.Error) {
	var buf [maxInlineArgs][]byte
	raws := buf[:0]
	for range m.args {
		raw, ok := it.next()
		if !ok {
			break
		}
		raws = append(raws, raw)
	}
	_, more := it.next()
	if m.exactCount && (more || len(raws) != len(m.args)) {
		return in, rpctypes.ErrInvalidParamCount
	}
	var vbuf [maxInlineArgs]reflect.Value
	vals := vbuf[:0]
	if len(m.args) > maxInlineArgs {
		vals = make([]reflect.Value, 0, len(m.args))
	}
	vals = vals[:len(m.args)]
	order := m.order
	if order == nil {
		order = make([]int, len(m.args))
		for i := range order {
			order[i] = i
		}
	}
	defaulted := -1 // the first parameter, in decoding order, that took its default
	for _, i := range order {
		var raw []byte
		present := i < len(raws)
		if present {
			raw = raws[i]
		}
		if i < len(m.defaults) && m.defaults[i] != nil && (!present || isNull(raw)) {
			raw, present = m.defaults[i], true
			if defaulted < 0 {
				defaulted = i
			}
		}
		v, perr := m.decodeArg(i, raw, present)
		if perr != nil {
			if defaulted >= 0 {
				// A server requiring the parameter would have stopped
				// there (see Method.ParamDefaults).
				return in, m.paramError(defaulted, nil, rpctypes.ErrInvalidParamCount)
			}
			return in, perr
		}
		vals[i] = v
	}
	if more && !m.allowExtra {
		return in, rpctypes.ErrInvalidParamCount
	}
	return append(in, vals...), nil
}

// decodeArg decodes argument i from raw; present is false when the params
// array has no element at i.
func (m *method) decodeArg(i int, raw []byte, present bool) (reflect.Value, *rpctypes.Error) {
	a := &m.args[i]
	if !present {
		if i < m.required {
			return reflect.Value{}, m.paramError(i, nil, rpctypes.ErrInvalidParamCount)
		}
		return reflect.Zero(a.typ), nil
	}
	if isNull(raw) {
		if !a.nullable {
			return reflect.Value{}, m.paramError(i, nil, rpctypes.ErrInvalidParams)
		}
		return reflect.Zero(a.typ), nil
	}
	pv := reflect.New(a.elem)
	var err error
	if a.unmarshaler {
		err = pv.Interface().(json.Unmarshaler).UnmarshalJSON(raw)
	} else {
		err = json.Unmarshal(raw, pv.Interface())
	}
	if err != nil {
		return reflect.Value{}, m.paramError(i, err, rpctypes.ErrInvalidParams)
	}
	if a.ptr {
		return pv, nil
	}
	return pv.Elem(), nil
}

// isNull reports whether raw, a params array element, is JSON null.
func isNull(raw []byte) bool { return len(raw) == 4 && string(raw) == "null" }

// paramError picks the error for parameter i: one the decoder returned, else
// the method's declared one, else def.
func (m *method) paramError(i int, err error, def *rpctypes.Error) *rpctypes.Error {
	if err != nil {
		if re := asError(err); re != nil {
			return re
		}
	}
	if i < len(m.paramErrs) && m.paramErrs[i] != nil {
		return m.paramErrs[i]
	}
	return def
}

// callResult is the outcome of invoking a method.
type callResult struct {
	value    reflect.Value // R, when the method has one and succeeded
	hasValue bool
	err      error  // the handler's error, or nil
	panicked any    // recovered panic value, or nil
	stack    string // stack of the panic
	paramErr *rpctypes.Error
}

// invoke decodes the arguments and calls the handler, recovering a panic.
func (m *method) invoke(ctx context.Context, params []byte) (res callResult) {
	var argv [maxInlineArgs]reflect.Value
	in := argv[:0]
	if m.hasCtx {
		in = append(in, reflect.ValueOf(ctx))
	}
	in, perr := m.decodeArgs(params, in)
	if perr != nil {
		res.paramErr = perr
		return res
	}
	defer func() {
		if p := recover(); p != nil {
			res = callResult{panicked: p, stack: string(debug.Stack())}
		}
	}()
	out := m.fn.Call(in)
	if m.errIdx >= 0 {
		if e := out[m.errIdx]; !e.IsNil() {
			res.err = e.Interface().(error)
			return res
		}
	}
	if m.resultIdx >= 0 {
		res.value, res.hasValue = out[m.resultIdx], true
	}
	return res
}
