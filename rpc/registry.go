package rpc

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/basaltchain/basalt/rpctypes"
)

// RegisterGroups registers each group's methods with RegisterGroup, in
// order; a group may appear more than once (the filter methods join ETH).
// It stops at the first error; the groups before it stay registered.
func (r *Registry) RegisterGroups(groups []rpctypes.Group) error {
	for _, g := range groups {
		if err := r.register(g.Name, g.Methods, g.Errors); err != nil {
			return err
		}
	}
	return nil
}

// Registry is the table of all methods the node implements, by API group.
// Register every method before building a Server from it: a Server takes a
// snapshot of the registry when it is created. Registration is safe for
// concurrent use.
type Registry struct {
	mu      sync.Mutex
	methods map[string]*method
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{methods: make(map[string]*method)}
}

// Register adds the method name, implemented by fn (see Method.Fn), to API
// group (case-insensitive, e.g. "eth" or "ETH"; "" derives the group from the
// name's prefix with GroupOf).
func (r *Registry) Register(group, name string, fn any) error {
	return r.RegisterGroup(group, []rpctypes.Method{{Name: name, Fn: fn}})
}

// MustRegister is Register that panics on error; for start-up code whose
// method table is fixed at compile time.
func (r *Registry) MustRegister(group, name string, fn any) {
	if err := r.Register(group, name, fn); err != nil {
		panic(err)
	}
}

// RegisterGroup adds the methods of one API group's table. Either all are
// added or, on error, none.
func (r *Registry) RegisterGroup(group string, methods []rpctypes.Method) error {
	return r.register(group, methods, nil)
}

// register is RegisterGroup with the group's error mapping (Group.Errors).
func (r *Registry) register(group string, methods []rpctypes.Method, mapErr func(error) *rpctypes.Error) error {
	built := make([]*method, 0, len(methods))
	for _, m := range methods {
		g := group
		if g == "" {
			g = rpctypes.GroupOf(m.Name)
		}
		g = strings.ToUpper(g)
		if !validGroupName(g) {
			return fmt.Errorf("rpc: register %s: invalid API group %q", m.Name, group)
		}
		bm, err := newMethod(g, m)
		if err != nil {
			return err
		}
		bm.mapErr = mapErr
		built = append(built, bm)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(built))
	for _, m := range built {
		if _, dup := r.methods[m.name]; dup || seen[m.name] {
			return fmt.Errorf("rpc: method %s registered twice", m.name)
		}
		seen[m.name] = true
	}
	for _, m := range built {
		r.methods[m.name] = m
	}
	return nil
}

// Groups returns the API groups that have at least one method, sorted.
func (r *Registry) Groups() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := make(map[string]bool)
	for _, m := range r.methods {
		set[m.group] = true
	}
	out := make([]string, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// MethodInfo names a registered method and its API group.
type MethodInfo struct {
	Name  string
	Group string
}

// Methods returns every registered method with its group, sorted by name
// (the generated JSON-RPC reference is written from it).
func (r *Registry) Methods() []MethodInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]MethodInfo, 0, len(r.methods))
	for _, m := range r.methods {
		out = append(out, MethodInfo{Name: m.name, Group: m.group})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (r *Registry) snapshot() map[string]*method {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]*method, len(r.methods))
	for k, v := range r.methods {
		out[k] = v
	}
	return out
}

func validGroupName(g string) bool {
	if g == "" {
		return false
	}
	for _, c := range g {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// method is a registered method with everything dispatch needs about its
// function precomputed, so a call costs the decoding of its arguments and
// one reflect.Value.Call.
type method struct {
	name        string
	group       string
	fn          reflect.Value
	hasCtx      bool
	args        []argInfo
	required    int // number of leading arguments that must be present
	paramErrs   []*rpctypes.Error
	defaults    []json.RawMessage // by position; nil entries have none
	allowExtra  bool
	exactCount  bool
	order       []int // decoding order of the arguments, nil for positional
	resultIdx   int   // index of R in the results, -1 if none
	errIdx      int   // index of the error in the results, -1 if none
	resultNil   bool
	resultText  bool // R implements encoding.TextMarshaler and not json.Marshaler
	resultIsAny bool
	mapErr      func(error) *rpctypes.Error // Group.Errors of the group it came in
}

// argInfo describes one decoded argument.
type argInfo struct {
	typ         reflect.Type // declared type
	elem        reflect.Type // type decoded into: typ, or typ.Elem() for a pointer
	ptr         bool         // typ is a pointer: pass the decoded *elem
	nullable    bool         // JSON null is accepted and gives the zero value
	unmarshaler bool         // *elem implements json.Unmarshaler
}

var (
	ctxType           = reflect.TypeFor[context.Context]()
	errorType         = reflect.TypeFor[error]()
	jsonUnmarshalerT  = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerT    = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func newMethod(group string, m rpctypes.Method) (*method, error) {
	if m.Name == "" {
		return nil, fmt.Errorf("rpc: register: empty method name")
	}
	fv := reflect.ValueOf(m.Fn)
	if fv.Kind() != reflect.Func || fv.IsNil() {
		return nil, fmt.Errorf("rpc: register %s: handler is %T, not a function", m.Name, m.Fn)
	}
	ft := fv.Type()
	if ft.IsVariadic() {
		return nil, fmt.Errorf("rpc: register %s: variadic handlers are not supported", m.Name)
	}
	bm := &method{
		name:       m.Name,
		group:      group,
		fn:         fv,
		paramErrs:  m.ParamErrors,
		allowExtra: m.AllowExtraParams,
		exactCount: m.ExactParamCount,
		resultIdx:  -1,
		errIdx:     -1,
	}
	first := 0
	if ft.NumIn() > 0 && ft.In(0) == ctxType {
		bm.hasCtx = true
		first = 1
	}
	for i := first; i < ft.NumIn(); i++ {
		t := ft.In(i)
		if t == ctxType {
			return nil, fmt.Errorf("rpc: register %s: context.Context must be the first parameter", m.Name)
		}
		if t.Kind() == reflect.Func || t.Kind() == reflect.Chan || t.Kind() == reflect.UnsafePointer {
			return nil, fmt.Errorf("rpc: register %s: parameter %d of type %s cannot be decoded from JSON", m.Name, i-first, t)
		}
		a := argInfo{typ: t, elem: t}
		switch t.Kind() {
		case reflect.Pointer:
			a.ptr, a.elem, a.nullable = true, t.Elem(), true
		case reflect.Interface, reflect.Slice, reflect.Map:
			a.nullable = true
		}
		a.unmarshaler = reflect.PointerTo(a.elem).Implements(jsonUnmarshalerT)
		bm.args = append(bm.args, a)
	}
	// Trailing pointer arguments are optional.
	bm.required = len(bm.args)
	for bm.required > 0 && bm.args[bm.required-1].ptr {
		bm.required--
	}
	if err := bm.setDefaults(m.ParamDefaults); err != nil {
		return nil, fmt.Errorf("rpc: register %s: %w", m.Name, err)
	}
	if m.ParamOrder != nil {
		order, err := decodeOrder(m.ParamOrder, len(bm.args))
		if err != nil {
			return nil, fmt.Errorf("rpc: register %s: %w", m.Name, err)
		}
		bm.order = order
	}
	switch ft.NumOut() {
	case 0:
	case 1:
		if ft.Out(0) == errorType {
			bm.errIdx = 0
		} else {
			bm.resultIdx = 0
		}
	case 2:
		if ft.Out(1) != errorType {
			return nil, fmt.Errorf("rpc: register %s: second result must be error, not %s", m.Name, ft.Out(1))
		}
		bm.resultIdx, bm.errIdx = 0, 1
	default:
		return nil, fmt.Errorf("rpc: register %s: handler has %d results, want at most (R, error)", m.Name, ft.NumOut())
	}
	if bm.resultIdx >= 0 {
		rt := ft.Out(bm.resultIdx)
		switch rt.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			bm.resultNil = true
		case reflect.Func, reflect.Chan, reflect.UnsafePointer:
			return nil, fmt.Errorf("rpc: register %s: result type %s cannot be encoded as JSON", m.Name, rt)
		}
		bm.resultIsAny = rt.Kind() == reflect.Interface
		bm.resultText = !bm.resultIsAny && rt.Implements(textMarshalerType) && !rt.Implements(jsonMarshalerT)
	}
	return bm, nil
}

// setDefaults checks and keeps the method's parameter defaults, which make
// the parameters that have them optional.
func (m *method) setDefaults(defaults []json.RawMessage) error {
	if len(defaults) == 0 {
		return nil
	}
	if len(defaults) > len(m.args) {
		return fmt.Errorf("ParamDefaults has %d entries for %d parameters", len(defaults), len(m.args))
	}
	if m.exactCount {
		return fmt.Errorf("ParamDefaults and ExactParamCount exclude each other")
	}
	first := -1
	for i, d := range defaults {
		if d == nil {
			continue
		}
		if !json.Valid(d) {
			return fmt.Errorf("ParamDefaults[%d] is not JSON: %q", i, d)
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	for i := first; i < len(m.args); i++ {
		if (i >= len(defaults) || defaults[i] == nil) && !m.args[i].ptr {
			return fmt.Errorf("parameter %d has a default but parameter %d after it is required", first, i)
		}
	}
	m.defaults = slices.Clone(defaults) // the caller's table may be shared
	m.required = min(m.required, first)
	return nil
}

// decodeOrder completes a ParamOrder with the positions it leaves out.
func decodeOrder(order []int, n int) ([]int, error) {
	seen := make([]bool, n)
	out := make([]int, 0, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			return nil, fmt.Errorf("ParamOrder %v: bad or repeated position %d", order, i)
		}
		seen[i] = true
		out = append(out, i)
	}
	for i := range n {
		if !seen[i] {
			out = append(out, i)
		}
	}
	return out, nil
}
