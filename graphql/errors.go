package graphql

import (
	"errors"
	"fmt"
	"strings"

	gqlerrors "github.com/graph-gophers/graphql-go/errors"

	"github.com/basaltchain/basalt/rpc"
)

// The error objects of Besu's GraphQL service are graphql-java's:
//
//	{"message": "...", "locations": [{"line":1,"column":2}], "path": ["block"],
//	 "extensions": {"errorCode": -32602, "errorMessage": "Invalid params",
//	                "classification": "DataFetchingException"}}
//
// A query that fails validation answers {"errors": [...]} without "data";
// a query that ran answers "data" (with null where a field failed) and its
// errors. Either way the HTTP status is 400 as soon as there is an error.

// Error classifications (graphql-java's ErrorType and Besu's additions).
const (
	classValidation    = "ValidationError"
	classInvalidSyntax = "InvalidSyntax"
	classDataFetching  = "DataFetchingException"
	classAborted       = "ExecutionAborted"
)

// gqlError is one entry of a response's "errors", in graphql-java's member
// order.
type gqlError struct {
	Message    string               `json:"message"`
	Locations  []gqlerrors.Location `json:"locations,omitempty"`
	Path       []any                `json:"path,omitempty"`
	Extensions *errorExtensions     `json:"extensions,omitempty"`
}

type errorExtensions struct {
	ErrorCode      *int   `json:"errorCode,omitempty"`
	ErrorMessage   string `json:"errorMessage,omitempty"`
	Classification string `json:"classification"`
}

func classified(class string) *errorExtensions { return &errorExtensions{Classification: class} }

// fetchError is a resolver's failure. With a code it is one of Besu's
// GraphQLError values (extensions carry errorCode and errorMessage);
// without, an exception whose message Besu shows as is.
type fetchError struct {
	code int
	msg  string
}

func (e *fetchError) Error() string { return e.msg }

// Besu's GraphQLError values the resolvers answer.
var (
	errInvalidParams      = &fetchError{code: rpc.CodeInvalidParams, msg: "Invalid params"}
	errWorldStateNotReady = &fetchError{code: -32008, msg: "Initial sync is still in progress"}
	errRangeTooLarge      = &fetchError{code: rpc.ErrExceedsMaxBlockRange.Code, msg: rpc.ErrExceedsMaxBlockRange.Message}
	errTooManyLogs        = &fetchError{code: -32005, msg: "Too many logs in the requested range"}
)

// exception is a failure without a code, e.g. "Block number 5 was not found".
func exception(format string, args ...any) error {
	return &fetchError{msg: fmt.Sprintf(format, args...)}
}

// rpcFailure turns an error of the JSON-RPC backend into a fetchError that
// keeps its code and message.
func rpcFailure(err error) error {
	var re *rpc.Error
	if errors.As(err, &re) {
		return &fetchError{code: re.Code, msg: re.Message}
	}
	return &fetchError{msg: err.Error()}
}

// executionError reshapes an error of the execution into Besu's form:
// "Exception while fetching data (/block/account) : <message>".
func executionError(qe *gqlerrors.QueryError, doc *document, op *operation) *gqlError {
	out := &gqlError{Path: qe.Path, Extensions: classified(classDataFetching)}
	msg := qe.Message
	var fe *fetchError
	if errors.As(qe.ResolverError, &fe) {
		msg = fe.msg
		if fe.code != 0 {
			code := fe.code
			out.Extensions.ErrorCode, out.Extensions.ErrorMessage = &code, fe.msg
		}
	}
	out.Message = fmt.Sprintf("Exception while fetching data (%s) : %s", pathString(qe.Path), msg)
	if f := doc.fieldAt(op, qe.Path); f != nil {
		out.Locations = []gqlerrors.Location{{Line: f.pos.line, Column: f.pos.column}}
	}
	return out
}

// pathString renders a response path as graphql-java's ResultPath does:
// /block/transactions[0]/from.
func pathString(path []any) string {
	var b strings.Builder
	for _, seg := range path {
		switch s := seg.(type) {
		case string:
			b.WriteByte('/')
			b.WriteString(s)
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// validationError is graphql-java's validation error: "Validation error
// (<type>@[<path>]) : <detail>" at loc.
func validationError(typ string, path []string, loc pos, detail string) *gqlError {
	where := typ
	if len(path) > 0 {
		where += "@[" + strings.Join(path, "/") + "]"
	}
	e := &gqlError{
		Message:    "Validation error (" + where + ") : " + detail,
		Extensions: classified(classValidation),
	}
	if loc.line > 0 {
		e.Locations = []gqlerrors.Location{{Line: loc.line, Column: loc.column}}
	}
	return e
}
