package rpctypes

import "encoding/json"

// Method describes one JSON-RPC method: its name, the Go function that
// serves it and how its parameters are decoded (rpc.Registry.RegisterGroup).
type Method struct {
	// Name is the full method name, e.g. "eth_getBalance".
	Name string

	// Fn is a plain Go function:
	//
	//	func([ctx context.Context,] a A, b B, c *C) (R, error)
	//
	// The context argument is optional. Parameters are decoded positionally
	// from the request's params array with encoding/json (a type implementing
	// json.Unmarshaler decodes itself). Trailing pointer parameters are
	// optional: absent or null gives nil; see ParamDefaults for optional
	// parameters with a default value. A JSON null for any other pointer,
	// slice, map or interface parameter gives its zero value; for other types
	// it is a parameter error. The results may be (R, error), R alone, error
	// alone, or nothing; a method without an R result answers "Success", like
	// Besu's JsonRpcSuccessResponse without a result.
	//
	// Returning an *Error (or an error wrapping one) answers with it; any
	// other error answers -32603 "Internal error", as does a panic.
	Fn any

	// ParamErrors optionally gives, by parameter position (not counting the
	// context), the error answered when that parameter is missing or cannot
	// be decoded, e.g. ErrInvalidAddressParams. A decoder that returns an
	// *Error itself wins over this; without either a missing parameter
	// answers ErrInvalidParamCount and an undecodable one ErrInvalidParams.
	ParamErrors []*Error

	// AllowExtraParams makes the method ignore params beyond its arguments
	// instead of answering ErrInvalidParamCount.
	AllowExtraParams bool

	// ExactParamCount makes a params array whose length differs from the
	// number of arguments (optional ones included) answer
	// ErrInvalidParamCount before anything is decoded, like the Besu methods
	// that check the parameter count first (eth_sendRawTransaction).
	ExactParamCount bool

	// ParamOrder optionally gives the order, by parameter position, in which
	// the parameters are decoded, so that the first one reported as missing
	// or invalid is the one Besu reports: its block-parameter methods read
	// the block first (eth_getBalance: []int{1, 0}). Positions left out are
	// decoded afterwards, in order.
	ParamOrder []int

	// ParamDefaults optionally gives, by parameter position, the JSON value
	// a parameter takes when the params array ends before it or holds null
	// there (e.g. `"latest"` for a block parameter the spec makes optional).
	// Only trailing parameters may have one: every parameter after one with
	// a default has a default too or is a pointer. When another parameter
	// then fails to decode, the answer is the error of the first defaulted
	// parameter in decoding order, if it comes before the failing one: the
	// error a server that requires the parameter (Besu, reading its block
	// parameter first) gives, so a default only turns requests that fail
	// for want of that parameter alone into answers.
	ParamDefaults []json.RawMessage
}
