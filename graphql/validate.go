package graphql

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/graph-gophers/graphql-go/ast"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"
)

// validate checks a parsed request before it runs: graphql-go's validation
// (its errors reworded as graphql-java words them, since Besu's users and
// fixtures see graphql-java's) and the check graphql-go leaves out, that
// literals and variables of the custom scalars are well-formed.
func (s *Service) validate(query string, doc *document, vars map[string]any) []*gqlError {
	var errs []*gqlError
	for _, qe := range s.schema.ValidateWithVariables(query, vars) {
		errs = append(errs, reword(qe, doc))
	}
	errs = append(errs, s.checkArguments(doc)...)
	errs = append(errs, s.checkVariables(doc, vars)...)
	sort.SliceStable(errs, func(i, j int) bool { return locLess(errs[i], errs[j]) })
	return errs
}

func locLess(a, b *gqlError) bool {
	if len(a.Locations) == 0 || len(b.Locations) == 0 {
		return len(a.Locations) > len(b.Locations)
	}
	return a.Locations[0].Before(b.Locations[0])
}

// graphql-go's messages that graphql-java words differently.
var (
	reFieldUndefined  = regexp.MustCompile(`^Cannot query field "([^"]+)" on type "([^"]+)"`)
	reUnknownArgument = regexp.MustCompile(`^Unknown argument "([^"]+)"`)
	reMissingArgument = regexp.MustCompile(`argument "([^"]+)" of type "[^"]+" is required`)
	reSubselectionReq = regexp.MustCompile(`^Field "([^"]+)" of type "([^"]+)" must have a selection`)
	reSubselectionNo  = regexp.MustCompile(`^Field "([^"]+)" must not have a selection since type "([^"]+)"`)
	reNullVariable    = regexp.MustCompile(`^Variable "([^"]+)" has invalid value null\.\nExpected type "([^"]+)"`)
)

// ruleTypes maps graphql-go's rule names to graphql-java's
// ValidationErrorType names.
var ruleTypes = map[string]string{
	"FieldsOnCorrectTypeRule":          "FieldUndefined",
	"KnownArgumentNamesRule":           "UnknownArgument",
	"ProvidedRequiredArgumentsRule":    "MissingFieldArgument",
	"ValuesOfCorrectTypeRule":          "WrongType",
	"VariablesOfCorrectType":           "WrongType",
	"DefaultValuesOfCorrectType":       "BadValueForDefaultArg",
	"NoUnusedVariablesRule":            "UnusedVariable",
	"NoUndefinedVariablesRule":         "UndefinedVariable",
	"VariablesInAllowedPositionRule":   "VariableTypeMismatch",
	"VariablesAreInputTypesRule":       "NonInputTypeOnVariable",
	"KnownTypeNamesRule":               "UnknownType",
	"KnownFragmentNamesRule":           "UndefinedFragment",
	"NoUnusedFragmentsRule":            "UnusedFragment",
	"NoFragmentCyclesRule":             "FragmentCycle",
	"PossibleFragmentSpreadsRule":      "InvalidFragmentType",
	"FragmentsOnCompositeTypesRule":    "InlineFragmentTypeConditionInvalid",
	"KnownDirectivesRule":              "UnknownDirective",
	"UniqueArgumentNamesRule":          "DuplicateArgumentNames",
	"UniqueOperationNamesRule":         "DuplicateOperationName",
	"UniqueFragmentNamesRule":          "DuplicateFragmentName",
	"UniqueVariableNamesRule":          "DuplicateVariableName",
	"UniqueInputFieldNamesRule":        "DuplicateInputField",
	"OverlappingFieldsCanBeMergedRule": "FieldsConflict",
	"LoneAnonymousOperationRule":       "LoneAnonymousOperationViolation",
	"ScalarLeafsRule":                  "SubselectionRequired",
}

// reword turns one of graphql-go's validation errors into graphql-java's
// "Validation error (<type>@[<path>]) : <detail>".
func reword(qe *gqlerrors.QueryError, doc *document) *gqlError {
	var loc pos
	if len(qe.Locations) > 0 {
		l := qe.Locations[0]
		loc = pos{line: l.Line, column: l.Column, offset: doc.offsetOf(l.Line, l.Column)}
	}
	typ, ok := ruleTypes[qe.Rule]
	if !ok {
		typ = strings.TrimSuffix(qe.Rule, "Rule")
		if typ == "" {
			typ = "ValidationError"
		}
	}
	detail := qe.Message
	switch {
	case reFieldUndefined.MatchString(qe.Message):
		m := reFieldUndefined.FindStringSubmatch(qe.Message)
		detail = fmt.Sprintf("Field '%s' in type '%s' is undefined", m[1], m[2])
	case qe.Rule == "KnownArgumentNamesRule" && reUnknownArgument.MatchString(qe.Message):
		detail = fmt.Sprintf("Unknown field argument '%s'", reUnknownArgument.FindStringSubmatch(qe.Message)[1])
	case qe.Rule == "ProvidedRequiredArgumentsRule" && reMissingArgument.MatchString(qe.Message):
		detail = fmt.Sprintf("Missing field argument '%s'", reMissingArgument.FindStringSubmatch(qe.Message)[1])
	case reSubselectionReq.MatchString(qe.Message):
		m := reSubselectionReq.FindStringSubmatch(qe.Message)
		detail = fmt.Sprintf("Subselection required for type '%s' of field '%s'", m[2], m[1])
	case reSubselectionNo.MatchString(qe.Message):
		m := reSubselectionNo.FindStringSubmatch(qe.Message)
		typ = "SubselectionNotAllowed"
		detail = fmt.Sprintf("Subselection not allowed on leaf type '%s' of field '%s'", m[2], m[1])
	}
	if m := reNullVariable.FindStringSubmatch(qe.Message); m != nil {
		// graphql-java's NonNullableValueCoercedAsNullException.
		e := &gqlError{
			Message:    fmt.Sprintf("Variable '%s' has coerced Null value for NonNull type '%s'", m[1], m[2]),
			Extensions: classified(classValidation),
		}
		if loc.line > 0 {
			e.Locations = []gqlerrors.Location{{Line: loc.line, Column: loc.column}}
		}
		return e
	}
	var path []string
	if loc.line > 0 {
		path = doc.fieldPathAt(loc.offset)
	}
	return validationError(typ, path, loc, detail)
}

// offsetOf converts a line and column back to a byte offset of the
// document (for locations graphql-go reports).
func (d *document) offsetOf(line, column int) int {
	if d.src == "" {
		return 0
	}
	l, c := 1, 1
	for i, r := range d.src {
		if l == line && c == column {
			return i
		}
		if r == '\n' {
			l, c = l+1, 1
		} else {
			c++
		}
	}
	return len(d.src)
}

// checkArguments checks every argument literal of the custom scalars (and
// the input objects and lists around them) against the schema, the way
// graphql-java's coercing rejects them.
func (s *Service) checkArguments(doc *document) []*gqlError {
	c := &argChecker{s: s, doc: doc, seen: make(map[*fragmentDef]bool)}
	for _, op := range doc.ops {
		if t := s.rootType(op.kind); t != nil {
			c.selections(op.sels, t, nil, 0)
		}
	}
	return c.errs
}

type argChecker struct {
	s    *Service
	doc  *document
	seen map[*fragmentDef]bool
	errs []*gqlError
}

func (c *argChecker) selections(sels []selection, parent *ast.ObjectTypeDefinition, path []string, depth int) {
	if depth > maxDocumentDepth {
		return
	}
	for _, sel := range sels {
		switch sel := sel.(type) {
		case *field:
			def := parent.Fields.Get(sel.name)
			if def == nil {
				continue // graphql-go reports unknown fields
			}
			p := append(append([]string(nil), path...), sel.name)
			for _, a := range sel.args {
				if ad := def.Arguments.Get(a.name); ad != nil {
					c.value(a.val, ad.Type, a.name, a, p)
				}
			}
			if obj, ok := namedType(def.Type).(*ast.ObjectTypeDefinition); ok {
				c.selections(sel.sels, obj, p, depth+1)
			}
		case *inlineFragment:
			t := parent
			if sel.typeCond != "" {
				if obj, ok := c.s.types.Types[sel.typeCond].(*ast.ObjectTypeDefinition); ok {
					t = obj
				}
			}
			c.selections(sel.sels, t, path, depth+1)
		case *fragmentSpread:
			fd := c.doc.frags[sel.name]
			if fd == nil || c.seen[fd] {
				continue
			}
			c.seen[fd] = true
			if obj, ok := c.s.types.Types[fd.typeCond].(*ast.ObjectTypeDefinition); ok {
				c.selections(fd.sels, obj, path, depth+1)
			}
		}
	}
}

// value checks a literal against type t; name is the argument's dotted
// path (data.from) for the message, which graphql-java places at the
// top-level argument.
func (c *argChecker) value(v *value, t ast.Type, name string, arg *argument, path []string) {
	if v.kind == valVariable || v.kind == valNull {
		return // variables are checked with their values; null by graphql-go
	}
	if nn, ok := t.(*ast.NonNull); ok {
		t = nn.OfType
	}
	switch t := t.(type) {
	case *ast.List:
		if v.kind != valList {
			c.value(v, t.OfType, name, arg, path)
			return
		}
		for i, e := range v.list {
			c.value(e, t.OfType, name+"["+strconv.Itoa(i)+"]", arg, path)
		}
	case *ast.InputObject:
		if v.kind != valObject {
			return // graphql-go reports the wrong kind
		}
		for _, f := range v.fields {
			if fd := t.Values.Get(f.name); fd != nil {
				c.value(f.val, fd.Type, name+"."+f.name, arg, path)
			}
		}
	case *ast.ScalarTypeDefinition:
		if !isCustomScalar(t.Name) {
			return
		}
		in, ok := literalInput(v)
		if !ok {
			c.wrongType(t.Name, name, v, arg, path, errBadScalar)
			return
		}
		if _, err := parseScalar(t.Name, in); err != nil {
			c.wrongType(t.Name, name, v, arg, path, err)
		}
	}
}

func (c *argChecker) wrongType(scalar, name string, v *value, arg *argument, path []string, err error) {
	reason := fmt.Sprintf("Value is not any %s : '%s'", scalar, v)
	if errors.Is(err, errNoHexPrefix) {
		reason = fmt.Sprintf("%s value '%s' is not prefixed with 0x", scalar, v.text)
	}
	detail := fmt.Sprintf("argument '%s' with value '%s' is not a valid '%s' - %s", name, v, scalar, reason)
	c.errs = append(c.errs, validationError("WrongType", path, arg.pos, detail))
}

// literalInput is the Go value graphql-go hands a scalar for a literal: a
// string, or an int32/int64 for an Int literal. Other kinds no custom
// scalar accepts.
func literalInput(v *value) (any, bool) {
	switch v.kind {
	case valString:
		return v.text, true
	case valInt:
		n, err := strconv.ParseInt(v.text, 10, 64)
		if err != nil {
			return nil, false
		}
		return n, true
	}
	return nil, false
}

// checkVariables checks the values (and defaults) of variables of the
// custom scalars.
func (s *Service) checkVariables(doc *document, vars map[string]any) []*gqlError {
	var errs []*gqlError
	for _, op := range doc.ops {
		for _, vd := range op.vars {
			in, given := vars[vd.name]
			if !given {
				continue // defaults are literals: graphql-go and checkDefault
			}
			if reason := s.variableProblem(in, vd.typ, 0); reason != "" {
				e := &gqlError{
					Message:    fmt.Sprintf("Variable '%s' has an invalid value: %s", vd.name, reason),
					Locations:  []gqlerrors.Location{{Line: vd.pos.line, Column: vd.pos.column}},
					Extensions: classified(classValidation),
				}
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// variableProblem describes what is wrong with a variable's JSON value for
// type t ("" when nothing is).
func (s *Service) variableProblem(in any, t *typeRef, depth int) string {
	if in == nil || depth > maxDocumentDepth {
		return "" // null-ness is graphql-go's check
	}
	if t.elem != nil {
		list, ok := in.([]any)
		if !ok {
			return s.variableProblem(in, t.elem, depth+1)
		}
		for _, e := range list {
			if p := s.variableProblem(e, t.elem, depth+1); p != "" {
				return p
			}
		}
		return ""
	}
	switch nt := s.types.Types[t.name].(type) {
	case *ast.ScalarTypeDefinition:
		if !isCustomScalar(nt.Name) {
			return ""
		}
		if _, err := parseScalar(nt.Name, in); err != nil {
			article := "a"
			if strings.ContainsRune("AEIOU", rune(nt.Name[0])) {
				article = "an"
			}
			return fmt.Sprintf("Unable to parse variable value %v as %s %s", jsonText(in), article, nt.Name)
		}
	case *ast.InputObject:
		obj, ok := in.(map[string]any)
		if !ok {
			return ""
		}
		for _, fd := range nt.Values {
			if v, ok := obj[fd.Name.Name]; ok {
				if p := s.variableProblem(v, typeRefOf(fd.Type), depth+1); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// jsonText renders a decoded JSON value for a message.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// typeRefOf converts a schema type to a type reference.
func typeRefOf(t ast.Type) *typeRef {
	switch t := t.(type) {
	case *ast.NonNull:
		r := typeRefOf(t.OfType)
		r.nonNull = true
		return r
	case *ast.List:
		return &typeRef{elem: typeRefOf(t.OfType)}
	case ast.NamedType:
		return &typeRef{name: t.TypeName()}
	}
	return &typeRef{}
}

// namedType strips lists and non-null wrappers.
func namedType(t ast.Type) ast.Type {
	for {
		switch w := t.(type) {
		case *ast.NonNull:
			t = w.OfType
		case *ast.List:
			t = w.OfType
		default:
			return t
		}
	}
}

// rootType is the object type of an operation kind.
func (s *Service) rootType(kind string) *ast.ObjectTypeDefinition {
	t, _ := s.types.RootOperationTypes[kind].(*ast.ObjectTypeDefinition)
	return t
}
