package graphql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gqlerrors "github.com/graph-gophers/graphql-go/errors"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/txpool"
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

// fetchError is a field's failure as Besu shows it. With a code it is one
// of Besu's GraphQLError values (extensions carry errorCode and
// errorMessage); without, an exception whose message Besu shows as is.
type fetchError struct {
	code int
	msg  string
}

// Error implements error.
func (e *fetchError) Error() string { return e.msg }

// Besu's GraphQLError values.
var (
	errInvalidParams      = &fetchError{code: -32602, msg: "Invalid params"}
	errInternal           = &fetchError{code: -32603, msg: "Internal error"}
	errTimeout            = &fetchError{code: -32603, msg: "Timeout expired"}
	errWorldStateNotReady = &fetchError{code: -32008, msg: "Initial sync is still in progress"}
	errRangeTooLarge      = &fetchError{code: -32005, msg: "Requested range exceeds maximum RPC range limit"}
	errTooManyLogs        = &fetchError{code: -32005, msg: "Too many logs in the requested range"}
)

// errBlocksRangeTooLarge is a blocks query over Config.MaxBlocksRange.
var errBlocksRangeTooLarge = errors.New("blocks range exceeds the maximum")

// errPanicked is a resolver that panicked (panicHandler).
var errPanicked = errors.New("resolver panicked")

// reasonErrors are the errors for Besu's transaction-invalid reasons, for
// a refused submission (sendRawTransaction) or call: the same codes and
// messages as Besu's JSON-RPC answers, which clients of either front end
// match on.
var reasonErrors = map[txpool.Reason]fetchError{
	txpool.NonceTooLow:                                {-32001, "Nonce too low"},
	backend.ReasonNonceTooHigh:                        {-32006, "Nonce too high"},
	txpool.NonceTooFarInFutureForSender:               {-32000, "Transaction nonce is too distant from current sender nonce"},
	txpool.InvalidSignature:                           {-32002, "Invalid signature"},
	txpool.IntrinsicGasExceedsGasLimit:                {-32003, "Intrinsic gas exceeds gas limit"},
	txpool.UpfrontCostExceedsBalance:                  {-32004, "Upfront cost exceeds account balance"},
	txpool.ExceedsBlockGasLimit:                       {-32005, "Transaction gas limit exceeds block gas limit"},
	txpool.GasPriceTooLow:                             {-32009, "Gas price below configured minimum gas price"},
	backend.ReasonGasPriceBelowCurrentBaseFee:         {-32009, "Gas price below current base fee"},
	backend.ReasonBlobGasPriceBelowCurrentBlobBaseFee: {-32009, "blob gas price below current blob base fee"},
	txpool.TxSenderNotAuthorized:                      {-32007, "Sender account not authorized to send transactions"},
	txpool.TransactionAlreadyKnown:                    {-32000, "Known transaction"},
	txpool.TransactionReplacementUnderpriced:          {-32000, "Replacement transaction underpriced"},
	txpool.TxPoolFull:                                 {-32000, "Transaction pool is full"},
	txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas:    {-32000, "Max priority fee per gas exceeds max fee per gas"},
	txpool.WrongChainID:                               {-32000, "Wrong chainId"},
	txpool.ReplayProtectedSignaturesNotSupported:      {-32000, "ChainId not supported"},
	txpool.TxFeecapExceeded:                           {-32000, "Transaction fee cap exceeded"},
	txpool.InvalidTransactionFormat:                   {-32602, "Invalid transaction type"},
	backend.ReasonInvalidBlobs:                        {-32603, "blobs failed kzg validation"},
	backend.ReasonTotalBlobGasTooHigh:                 {-32000, "Total blob gas too high"},
}

// failure is the GraphQL front end's one mapping of an error a resolver
// returns — a service's domain error or a resolver's own — to the error
// Besu's GraphQL service shows.
func failure(err error) *fetchError {
	var (
		pool    *txpool.Error
		invalid *backend.InvalidTransactionError
		params  *backend.InvalidParamsError
		missing *backend.BlockNotFoundError
		fe      *fetchError
	)
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.As(err, &pool):
		if e, ok := reasonErrors[pool.Reason]; ok {
			return &e
		}
		// A refusal Besu has no code for, with the pool's detail.
		e := *errInvalidParams
		if pool.Detail != "" {
			e.msg += " (" + pool.Detail + ")"
		}
		return &e
	case errors.As(err, &invalid):
		e, ok := reasonErrors[invalid.Reason]
		switch {
		case invalid.Reason == backend.ReasonExecutionRefused:
			return &fetchError{code: -32000, msg: invalid.Detail}
		case !ok:
			e = *errInternal
		}
		if invalid.Detail != "" {
			e.msg += " (" + invalid.Detail + ")"
		}
		return &e
	case errors.As(err, &params):
		return errInvalidParams
	case errors.As(err, &missing):
		// Besu's exceptions for a block the query names.
		if missing.Hash != nil {
			return &fetchError{msg: fmt.Sprintf("Block hash %s was not found", missing.Hash.Hex())}
		}
		return &fetchError{msg: fmt.Sprintf("Block number %d was not found", missing.Number)}
	case errors.Is(err, backend.ErrWorldStateUnavailable):
		return errWorldStateNotReady
	case errors.Is(err, filters.ErrRangeTooLarge), errors.Is(err, errBlocksRangeTooLarge):
		return errRangeTooLarge
	case errors.Is(err, filters.ErrTooManyResults):
		return errTooManyLogs
	case errors.Is(err, errPanicked):
		return errInternal
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return errTimeout
	}
	return &fetchError{msg: err.Error()}
}

// executionError reshapes an error of the execution into Besu's form:
// "Exception while fetching data (/block/account) : <message>".
func executionError(qe *gqlerrors.QueryError, doc *document, op *operation) *gqlError {
	out := &gqlError{Path: qe.Path, Extensions: classified(classDataFetching)}
	msg := qe.Message
	if qe.ResolverError != nil {
		fe := failure(qe.ResolverError)
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
