package graphql

import (
	"github.com/graph-gophers/graphql-go/ast"
)

// complexity is the cost of running op as Besu counts it (graphql-java's
// MaxQueryComplexityInstrumentation with GraphQLProvider's field cost):
// every selected field costs 1 plus the cost of its sub-selection, except
// Transaction.block and __Type.fields, which cost 100 plus their
// sub-selection, because they multiply the work (a block per transaction,
// fields per type). Fragments are expanded and @skip/@include honoured.
//
// The walk stops counting after maxComplexityWork fields, which any query
// reaches only far above the limit (each field costs at least 1), so a
// document of nested fragments cannot make the count itself expensive.
func (s *Service) complexity(doc *document, op *operation, vars map[string]any) int {
	t := s.rootType(op.kind)
	if t == nil {
		return 0 // graphql-go refuses the operation
	}
	c := &costCounter{s: s, doc: doc, vars: vars}
	return c.selections(op.sels, t, 0)
}

const maxComplexityWork = 100_000

type costCounter struct {
	s      *Service
	doc    *document
	vars   map[string]any
	fields int
}

func (c *costCounter) selections(sels []selection, parent ast.NamedType, depth int) int {
	total := 0
	if parent == nil || depth > maxDocumentDepth {
		return 0
	}
	for _, sel := range sels {
		if c.fields > maxComplexityWork {
			return total
		}
		switch sel := sel.(type) {
		case *field:
			if c.skipped(sel.directives) {
				continue
			}
			c.fields++
			child := 0
			if len(sel.sels) > 0 {
				child = c.selections(sel.sels, c.fieldType(parent, sel.name), depth+1)
			}
			total += fieldCost(parent.TypeName(), sel.name, child)
		case *inlineFragment:
			if c.skipped(sel.directives) {
				continue
			}
			t := parent
			if sel.typeCond != "" {
				t = c.s.types.Types[sel.typeCond]
			}
			total += c.selections(sel.sels, t, depth+1)
		case *fragmentSpread:
			if c.skipped(sel.directives) {
				continue
			}
			if fd := c.doc.frags[sel.name]; fd != nil {
				total += c.selections(fd.sels, c.s.types.Types[fd.typeCond], depth+1)
			}
		}
	}
	return total
}

// fieldCost is Besu's GraphQLProvider.calculateFieldCost.
func fieldCost(parent, field string, child int) int {
	if (parent == "Transaction" && field == "block") || (parent == "__Type" && field == "fields") {
		return child + 100
	}
	return child + 1
}

// fieldType is the named type of parent's field (the introspection entry
// points included), nil when unknown.
func (c *costCounter) fieldType(parent ast.NamedType, name string) ast.NamedType {
	switch name {
	case "__schema":
		return c.s.types.Types["__Schema"]
	case "__type":
		return c.s.types.Types["__Type"]
	}
	var fields ast.FieldsDefinition
	switch t := parent.(type) {
	case *ast.ObjectTypeDefinition:
		fields = t.Fields
	case *ast.InterfaceTypeDefinition:
		fields = t.Fields
	default:
		return nil
	}
	f := fields.Get(name)
	if f == nil {
		return nil
	}
	nt, _ := namedType(f.Type).(ast.NamedType)
	return nt
}

// skipped evaluates @skip(if:) and @include(if:).
func (c *costCounter) skipped(ds []*directive) bool {
	for _, d := range ds {
		if d.name != "skip" && d.name != "include" {
			continue
		}
		cond := false
		for _, a := range d.args {
			if a.name != "if" {
				continue
			}
			switch a.val.kind {
			case valBoolean:
				cond = a.val.text == "true"
			case valVariable:
				cond, _ = c.vars[a.val.text].(bool)
			}
		}
		if (d.name == "skip") == cond {
			return true
		}
	}
	return false
}
