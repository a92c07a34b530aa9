package graphql

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"time"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/ast"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/internal/defaults"
)

//go:embed schema.graphql
var schemaSDL string

// Schema returns the schema the service serves, in GraphQL SDL.
func Schema() string { return schemaSDL }

// Besu's limits.
const (
	// DefaultMaxComplexity is Besu's GraphQLProvider.MAX_COMPLEXITY.
	DefaultMaxComplexity = 200
	// DefaultMaxBlocksRange bounds the blocks query, which Besu does not.
	DefaultMaxBlocksRange = 1000
	// DefaultTimeout is Besu's --graphql-http-timeout-seconds default.
	DefaultTimeout = 30 * time.Second
)

// Config configures a Service. Zero values mean the defaults.
type Config struct {
	// MaxComplexity is the most a query may cost, counted as Besu counts
	// it (each field 1 plus its children; Transaction.block and
	// __Type.fields 100).
	MaxComplexity int
	// MaxBlocksRange is the most blocks one blocks query returns.
	MaxBlocksRange int
	// Timeout bounds the execution of one request.
	Timeout time.Duration
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// Service answers GraphQL requests with the node's backend — the same
// services JSON-RPC calls (state reads, calls, submissions, gas prices,
// logs, the pool's pending transactions, sync progress) — and its chain
// for blocks, transactions and receipts.
type Service struct {
	backend *backend.Backend
	chain   *chain.Chain
	cfg     Config
	log     *slog.Logger
	schema  *graphql.Schema
	types   *ast.Schema
}

// New builds the service on the node's backend, whose Chain must be set
// (and, for the logs fields, Filters; for the pending state, Pool). The
// backend is shared with the other front ends: it is only read.
func New(b *backend.Backend, cfg Config) (*Service, error) {
	if b == nil || b.Chain == nil {
		return nil, errors.New("graphql: the backend needs a chain")
	}
	cfg.MaxComplexity = defaults.Positive(cfg.MaxComplexity, DefaultMaxComplexity)
	cfg.MaxBlocksRange = defaults.Positive(cfg.MaxBlocksRange, DefaultMaxBlocksRange)
	cfg.Timeout = defaults.Positive(cfg.Timeout, DefaultTimeout)
	s := &Service{backend: b, chain: b.Chain, cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	schema, err := graphql.ParseSchema(schemaSDL, &root{s: s},
		graphql.UseStringDescriptions(),
		// Account.address and Transaction.hash are struct fields, read
		// without a reflective call (the hot fields of list queries).
		graphql.UseFieldResolvers(),
		graphql.DisableFieldSelections(), // no resolver reads its selections
		// One resolver at a time per request: graphql-go starts a goroutine
		// per field of every list element as soon as one field takes
		// arguments (Transaction.from does), and running them in parallel
		// costs more CPU than it saves; requests still run in parallel.
		graphql.MaxParallelism(1),
		graphql.PanicHandler(panicHandler{s.log}),
	)
	if err != nil {
		return nil, fmt.Errorf("graphql: schema: %w", err)
	}
	s.schema, s.types = schema, schema.AST()
	return s, nil
}

// panicHandler turns a resolver's panic into an internal error of that
// field; the panic is logged.
type panicHandler struct{ log *slog.Logger }

// MakePanicError implements graphql-go's PanicHandler.
func (h panicHandler) MakePanicError(_ context.Context, value any) *gqlerrors.QueryError {
	h.log.Error("GraphQL resolver panicked", "panic", value)
	return &gqlerrors.QueryError{Message: "Internal error", ResolverError: errPanicked}
}

// Request is one GraphQL request.
type Request struct {
	Query         string
	OperationName string
	// Variables are the decoded JSON variables; numbers should be
	// json.Number (decode with UseNumber) so that Long and BigInt keep
	// their precision.
	Variables map[string]any
}

// response is the body of an answer, in graphql-java's member order.
type response struct {
	Errors []*gqlError      `json:"errors,omitempty"`
	Data   *json.RawMessage `json:"data,omitempty"`

	internal bool // the execution failed (Besu: 500 {"errors":[{"message":…}]})
}

// Execute answers a request: the JSON body and Besu's HTTP status (200,
// 400 as soon as the answer carries an error, 500 when the execution
// itself failed).
func (s *Service) Execute(ctx context.Context, req Request) (status int, body []byte) {
	resp := s.execute(ctx, req)
	switch {
	case resp.internal:
		status = http.StatusInternalServerError
	case len(resp.Errors) > 0:
		status = http.StatusBadRequest
	default:
		status = http.StatusOK
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "204 > 200", as Besu writes it
	if err := enc.Encode(resp); err != nil {
		s.log.Error("GraphQL response encoding failed", "err", err)
		return http.StatusInternalServerError, []byte(`{"errors":[{"message":"Internal error"}]}`)
	}
	return status, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func (s *Service) execute(ctx context.Context, req Request) *response {
	doc, err := parseDocument(req.Query)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return &response{Errors: []*gqlError{{
				Message:    se.Error(),
				Locations:  []gqlerrors.Location{{Line: se.pos.line, Column: se.pos.column}},
				Extensions: classified(classInvalidSyntax),
			}}}
		}
		return &response{Errors: []*gqlError{{Message: err.Error(), Extensions: classified(classInvalidSyntax)}}}
	}
	if errs := s.validate(req.Query, doc, req.Variables); len(errs) > 0 {
		return &response{Errors: errs}
	}
	op := doc.operation(req.OperationName)
	if op == nil {
		msg := fmt.Sprintf("Unknown operation named '%s'.", req.OperationName)
		if req.OperationName == "" {
			msg = "Must provide operation name if query contains multiple operations."
		}
		return &response{Errors: []*gqlError{{Message: msg, Extensions: classified(classValidation)}}}
	}
	if s.rootType(op.kind) == nil {
		// graphql-java's MissingRootTypeException (there are no subscriptions).
		return &response{Errors: []*gqlError{{
			Message:    fmt.Sprintf("Schema is not configured for %ss.", op.kind),
			Extensions: classified("OperationNotSupported"),
		}}}
	}
	if cost := s.complexity(doc, op, req.Variables); cost > s.cfg.MaxComplexity {
		return &response{Errors: []*gqlError{{
			Message:    fmt.Sprintf("maximum query complexity exceeded %d > %d", cost, s.cfg.MaxComplexity),
			Extensions: classified(classAborted),
		}}}
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	result, err := s.exec(ctx, req)
	if err != nil {
		return &response{Errors: []*gqlError{{Message: err.Error()}}, internal: true}
	}
	out := &response{}
	if result.Data != nil {
		data := result.Data
		out.Data = &data
	} else if len(result.Errors) > 0 {
		null := json.RawMessage("null")
		out.Data = &null
	}
	for _, qe := range result.Errors {
		out.Errors = append(out.Errors, executionError(qe, doc, op))
	}
	sort.SliceStable(out.Errors, func(i, j int) bool { return pathLess(out.Errors[i].Path, out.Errors[j].Path) })
	return out
}

// exec runs graphql-go, which no panic may escape.
func (s *Service) exec(ctx context.Context, req Request) (resp *graphql.Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("GraphQL execution panicked", "panic", r)
			resp, err = nil, errors.New("Internal error")
		}
	}()
	return s.schema.Exec(ctx, req.Query, req.OperationName, req.Variables), nil
}

// pathLess orders errors by their path, as the fields appear in the answer
// (graphql-go collects them in completion order).
func pathLess(a, b []any) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		as, aok := a[i].(string)
		bs, bok := b[i].(string)
		if aok && bok {
			if as != bs {
				return false // keep the order of distinct fields
			}
			continue
		}
		ai, aok := a[i].(int)
		bi, bok := b[i].(int)
		if aok && bok && ai != bi {
			return ai < bi
		}
	}
	return len(a) < len(b)
}
