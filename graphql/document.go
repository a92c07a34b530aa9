package graphql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file parses GraphQL executable documents into a small syntax tree.
// graphql-go keeps its parser internal, and Besu's behaviour needs the
// tree before execution: its query complexity, its argument checks
// (graphql-java validates custom scalar literals, graphql-go does not) and
// the field paths its error messages name.

// pos is a position in the document: a byte offset and the 1-based line
// and column (in characters) graphql-java reports.
type pos struct {
	offset, line, column int
}

// document is a parsed executable document.
type document struct {
	src   string
	ops   []*operation
	frags map[string]*fragmentDef
}

// operation is a query, mutation or subscription.
type operation struct {
	kind string // "query", "mutation" or "subscription"
	name string
	vars []*varDef
	sels []selection
	pos  pos
}

// varDef declares a variable.
type varDef struct {
	name string
	typ  *typeRef
	def  *value
	pos  pos
}

// typeRef is a type reference: a named type, or a list of one, either of
// them possibly non-null.
type typeRef struct {
	name    string   // for a named type
	elem    *typeRef // for a list
	nonNull bool
}

// String renders the type in SDL notation, e.g. [Hash!]!.
func (t *typeRef) String() string {
	s := t.name
	if t.elem != nil {
		s = "[" + t.elem.String() + "]"
	}
	if t.nonNull {
		s += "!"
	}
	return s
}

// selection is a *field, *fragmentSpread or *inlineFragment.
type selection interface{ position() pos }

type field struct {
	alias, name string
	args        []*argument
	directives  []*directive
	sels        []selection
	pos         pos
	end         int // offset just past the field (its arguments or selection set)
}

func (f *field) position() pos { return f.pos }

// key is the field's response key.
func (f *field) key() string {
	if f.alias != "" {
		return f.alias
	}
	return f.name
}

type fragmentSpread struct {
	name       string
	directives []*directive
	pos        pos
}

func (f *fragmentSpread) position() pos { return f.pos }

type inlineFragment struct {
	typeCond   string
	directives []*directive
	sels       []selection
	pos        pos
}

func (f *inlineFragment) position() pos { return f.pos }

type fragmentDef struct {
	name, typeCond string
	sels           []selection
	pos            pos
}

type directive struct {
	name string
	args []*argument
}

type argument struct {
	name string
	val  *value
	pos  pos
}

// valueKind is the syntactic kind of a value.
type valueKind int

const (
	valVariable valueKind = iota
	valInt
	valFloat
	valString
	valBoolean
	valNull
	valEnum
	valList
	valObject
)

type value struct {
	kind   valueKind
	text   string // the variable or enum name, the number's text, the string's contents, "true"/"false"
	list   []*value
	fields []*objectField
	pos    pos
}

type objectField struct {
	name string
	val  *value
	pos  pos
}

// String renders the value the way graphql-java's AST toString does, which
// Besu's validation messages quote (StringValue{value='0x12'}).
func (v *value) String() string {
	switch v.kind {
	case valVariable:
		return "VariableReference{name='" + v.text + "'}"
	case valInt:
		return "IntValue{value=" + v.text + "}"
	case valFloat:
		return "FloatValue{value=" + v.text + "}"
	case valString:
		return "StringValue{value='" + v.text + "'}"
	case valBoolean:
		return "BooleanValue{value=" + v.text + "}"
	case valNull:
		return "NullValue{}"
	case valEnum:
		return "EnumValue{name='" + v.text + "'}"
	case valList:
		parts := make([]string, len(v.list))
		for i, e := range v.list {
			parts[i] = e.String()
		}
		return "ArrayValue{values=[" + strings.Join(parts, ", ") + "]}"
	default:
		parts := make([]string, len(v.fields))
		for i, f := range v.fields {
			parts[i] = "ObjectField{name='" + f.name + "', value=" + f.val.String() + "}"
		}
		return "ObjectValue{objectFields=[" + strings.Join(parts, ", ") + "]}"
	}
}

// syntaxError is a parse failure at a token, reported as graphql-java does.
type syntaxError struct {
	token string
	pos   pos
}

// Error is graphql-java's message for a syntax error.
func (e *syntaxError) Error() string {
	return fmt.Sprintf("Invalid syntax with offending token '%s' at line %d column %d", e.token, e.pos.line, e.pos.column)
}

// maxDocumentDepth bounds the nesting of selections and values the parser
// follows, so that a hostile document cannot exhaust the stack.
const maxDocumentDepth = 128

// tokenKind is a lexical token kind.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokPunct
	tokName
	tokInt
	tokFloat
	tokString
)

type token struct {
	kind tokenKind
	text string // the punctuator, name or number; a string's decoded contents
	raw  string // the source text
	pos  pos
}

// parser is a recursive-descent parser over a one-token lookahead lexer.
type parser struct {
	src   string
	off   int // next byte to lex
	line  int
	col   int
	tok   token
	depth int
}

// parseDocument parses an executable document.
func parseDocument(src string) (doc *document, err error) {
	p := &parser{src: src, line: 1, col: 1}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			doc, err = nil, se
		}
	}()
	p.next()
	doc = &document{src: src, frags: make(map[string]*fragmentDef)}
	if p.tok.kind == tokEOF {
		p.fail()
	}
	for p.tok.kind != tokEOF {
		switch {
		case p.isPunct("{"):
			doc.ops = append(doc.ops, &operation{kind: "query", pos: p.tok.pos, sels: p.selectionSet()})
		case p.tok.kind == tokName && (p.tok.text == "query" || p.tok.text == "mutation" || p.tok.text == "subscription"):
			doc.ops = append(doc.ops, p.operation())
		case p.tok.kind == tokName && p.tok.text == "fragment":
			f := p.fragment()
			if _, dup := doc.frags[f.name]; !dup {
				doc.frags[f.name] = f
			}
		default:
			p.fail()
		}
	}
	return doc, nil
}

func (p *parser) fail() {
	t := p.tok.raw
	if p.tok.kind == tokEOF {
		t = "<EOF>"
	}
	panic(&syntaxError{token: t, pos: p.tok.pos})
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

func (p *parser) expectPunct(s string) {
	if !p.isPunct(s) {
		p.fail()
	}
	p.next()
}

func (p *parser) name() string {
	if p.tok.kind != tokName {
		p.fail()
	}
	n := p.tok.text
	p.next()
	return n
}

func (p *parser) enter() {
	if p.depth++; p.depth > maxDocumentDepth {
		p.fail()
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) operation() *operation {
	op := &operation{kind: p.tok.text, pos: p.tok.pos}
	p.next()
	if p.tok.kind == tokName {
		op.name = p.name()
	}
	if p.isPunct("(") {
		p.next()
		for !p.isPunct(")") {
			v := &varDef{pos: p.tok.pos}
			p.expectPunct("$")
			v.name = p.name()
			p.expectPunct(":")
			v.typ = p.typeRef()
			if p.isPunct("=") {
				p.next()
				v.def = p.value(true)
			}
			p.directives()
			op.vars = append(op.vars, v)
		}
		p.next()
	}
	p.directives()
	op.sels = p.selectionSet()
	return op
}

func (p *parser) fragment() *fragmentDef {
	f := &fragmentDef{pos: p.tok.pos}
	p.next()
	f.name = p.name()
	if f.name == "on" {
		p.fail()
	}
	if p.tok.kind != tokName || p.tok.text != "on" {
		p.fail()
	}
	p.next()
	f.typeCond = p.name()
	p.directives()
	f.sels = p.selectionSet()
	return f
}

func (p *parser) typeRef() *typeRef {
	p.enter()
	defer p.leave()
	var t *typeRef
	if p.isPunct("[") {
		p.next()
		t = &typeRef{elem: p.typeRef()}
		p.expectPunct("]")
	} else {
		t = &typeRef{name: p.name()}
	}
	if p.isPunct("!") {
		p.next()
		t.nonNull = true
	}
	return t
}

func (p *parser) selectionSet() []selection {
	p.enter()
	defer p.leave()
	p.expectPunct("{")
	var sels []selection
	for !p.isPunct("}") {
		sels = append(sels, p.selection())
	}
	p.next()
	return sels
}

func (p *parser) selection() selection {
	if p.isPunct("...") {
		start := p.tok.pos
		p.next()
		if p.tok.kind == tokName && p.tok.text != "on" {
			fs := &fragmentSpread{name: p.name(), pos: start}
			fs.directives = p.directives()
			return fs
		}
		in := &inlineFragment{pos: start}
		if p.tok.kind == tokName {
			p.next() // "on"
			in.typeCond = p.name()
		}
		in.directives = p.directives()
		in.sels = p.selectionSet()
		return in
	}
	f := &field{pos: p.tok.pos}
	f.name = p.name()
	if p.isPunct(":") {
		p.next()
		f.alias, f.name = f.name, p.name()
	}
	f.args = p.arguments()
	f.directives = p.directives()
	if p.isPunct("{") {
		f.sels = p.selectionSet()
	}
	f.end = p.tok.pos.offset
	return f
}

func (p *parser) arguments() []*argument {
	if !p.isPunct("(") {
		return nil
	}
	p.next()
	var args []*argument
	for !p.isPunct(")") {
		a := &argument{pos: p.tok.pos}
		a.name = p.name()
		p.expectPunct(":")
		a.val = p.value(false)
		args = append(args, a)
	}
	p.next()
	return args
}

func (p *parser) directives() []*directive {
	var ds []*directive
	for p.isPunct("@") {
		p.next()
		d := &directive{name: p.name()}
		d.args = p.arguments()
		ds = append(ds, d)
	}
	return ds
}

func (p *parser) value(constant bool) *value {
	p.enter()
	defer p.leave()
	t := p.tok
	v := &value{pos: t.pos}
	switch {
	case t.kind == tokPunct && t.text == "$" && !constant:
		p.next()
		v.kind, v.text = valVariable, p.name()
		return v
	case t.kind == tokInt:
		v.kind, v.text = valInt, t.text
	case t.kind == tokFloat:
		v.kind, v.text = valFloat, t.text
	case t.kind == tokString:
		v.kind, v.text = valString, t.text
	case t.kind == tokName && (t.text == "true" || t.text == "false"):
		v.kind, v.text = valBoolean, t.text
	case t.kind == tokName && t.text == "null":
		v.kind = valNull
	case t.kind == tokName:
		v.kind, v.text = valEnum, t.text
	case t.kind == tokPunct && t.text == "[":
		p.next()
		v.kind = valList
		for !p.isPunct("]") {
			v.list = append(v.list, p.value(constant))
		}
	case t.kind == tokPunct && t.text == "{":
		p.next()
		v.kind = valObject
		for !p.isPunct("}") {
			f := &objectField{pos: p.tok.pos}
			f.name = p.name()
			p.expectPunct(":")
			f.val = p.value(constant)
			v.fields = append(v.fields, f)
		}
	default:
		p.fail()
	}
	p.next()
	return v
}

// next reads the next token into p.tok.
func (p *parser) next() {
	p.skipIgnored()
	start := pos{offset: p.off, line: p.line, column: p.col}
	if p.off >= len(p.src) {
		p.tok = token{kind: tokEOF, pos: start}
		return
	}
	c := p.src[p.off]
	switch {
	case c == '.':
		if strings.HasPrefix(p.src[p.off:], "...") {
			p.advance(3)
			p.tok = token{kind: tokPunct, text: "...", raw: "...", pos: start}
			return
		}
		p.advance(1)
		p.tok = token{kind: tokPunct, text: ".", raw: ".", pos: start}
		p.fail()
	case strings.IndexByte("!$&():=@[]{}|", c) >= 0:
		p.advance(1)
		p.tok = token{kind: tokPunct, text: string(c), raw: string(c), pos: start}
	case c == '_' || isLetter(c):
		end := p.off + 1
		for end < len(p.src) && (p.src[end] == '_' || isLetter(p.src[end]) || isDigit(p.src[end])) {
			end++
		}
		text := p.src[p.off:end]
		p.advance(end - p.off)
		p.tok = token{kind: tokName, text: text, raw: text, pos: start}
	case c == '-' || isDigit(c):
		p.number(start)
	case c == '"':
		p.string(start)
	default:
		_, size := utf8.DecodeRuneInString(p.src[p.off:])
		raw := p.src[p.off : p.off+size]
		p.tok = token{kind: tokPunct, text: raw, raw: raw, pos: start}
		p.fail()
	}
}

// advance moves over n bytes that contain no line terminator.
func (p *parser) advance(n int) {
	p.col += utf8.RuneCountInString(p.src[p.off : p.off+n])
	p.off += n
}

func (p *parser) skipIgnored() {
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == ' ' || c == '\t' || c == ',':
			p.off++
			p.col++
		case c == '\n':
			p.off++
			p.line++
			p.col = 1
		case c == '\r':
			p.off++
			if p.off < len(p.src) && p.src[p.off] == '\n' {
				p.off++
			}
			p.line++
			p.col = 1
		case c == '#':
			for p.off < len(p.src) && p.src[p.off] != '\n' && p.src[p.off] != '\r' {
				p.off++
			}
		case strings.HasPrefix(p.src[p.off:], "\uFEFF"):
			p.off += 3
		default:
			return
		}
	}
}

func (p *parser) number(start pos) {
	s := p.src
	i := p.off
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			n++
		}
		return n
	}
	intStart := i
	if digits() == 0 || (s[intStart] == '0' && i-intStart > 1) {
		p.tok = token{kind: tokPunct, raw: s[p.off:max(i, p.off+1)], pos: start}
		p.fail()
	}
	kind := tokInt
	if i < len(s) && s[i] == '.' {
		i++
		kind = tokFloat
		if digits() == 0 {
			p.tok = token{kind: tokPunct, raw: s[p.off:i], pos: start}
			p.fail()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		kind = tokFloat
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.tok = token{kind: tokPunct, raw: s[p.off:i], pos: start}
			p.fail()
		}
	}
	if i < len(s) && (s[i] == '_' || s[i] == '.' || isLetter(s[i])) {
		p.tok = token{kind: tokPunct, raw: s[p.off : i+1], pos: start}
		p.fail()
	}
	text := s[p.off:i]
	p.advance(i - p.off)
	p.tok = token{kind: kind, text: text, raw: text, pos: start}
}

func (p *parser) string(start pos) {
	s := p.src
	if strings.HasPrefix(s[p.off:], `"""`) {
		p.blockString(start)
		return
	}
	i := p.off + 1
	var b strings.Builder
	for {
		if i >= len(s) || s[i] == '\n' || s[i] == '\r' {
			p.tok = token{kind: tokPunct, raw: s[p.off:min(i, len(s))], pos: start}
			p.fail()
		}
		c := s[i]
		if c == '"' {
			i++
			break
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			p.tok = token{kind: tokPunct, raw: s[p.off:], pos: start}
			p.fail()
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+6 > len(s) {
				p.tok = token{kind: tokPunct, raw: s[p.off:], pos: start}
				p.fail()
			}
			n, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
			if err != nil {
				p.tok = token{kind: tokPunct, raw: s[p.off : i+6], pos: start}
				p.fail()
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			p.tok = token{kind: tokPunct, raw: s[p.off : i+2], pos: start}
			p.fail()
		}
		i += 2
	}
	raw := s[p.off:i]
	p.advance(i - p.off)
	p.tok = token{kind: tokString, text: b.String(), raw: raw, pos: start}
}

// blockString reads a """block string""" (its contents kept as written:
// nothing in Besu's schema takes a multi-line value).
func (p *parser) blockString(start pos) {
	s := p.src
	i := p.off + 3
	var b strings.Builder
	for {
		if i >= len(s) {
			p.tok = token{kind: tokPunct, raw: s[p.off:], pos: start}
			p.fail()
		}
		if strings.HasPrefix(s[i:], `\"""`) {
			b.WriteString(`"""`)
			i += 4
			continue
		}
		if strings.HasPrefix(s[i:], `"""`) {
			i += 3
			break
		}
		b.WriteByte(s[i])
		i++
	}
	raw := s[p.off:i]
	// Block strings may span lines: count them.
	for j := p.off; j < i; {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if r == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
	}
	p.off = i
	p.tok = token{kind: tokString, text: b.String(), raw: raw, pos: start}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// operation picks the operation to run: the named one, or the only one.
func (d *document) operation(name string) *operation {
	if name == "" {
		if len(d.ops) == 1 {
			return d.ops[0]
		}
		return nil
	}
	for _, op := range d.ops {
		if op.name == name {
			return op
		}
	}
	return nil
}

// fieldPathAt returns the names of the fields from the operation's root to
// the innermost field whose text contains the offset (inclusive of the
// field itself), the path graphql-java's validation messages show.
func (d *document) fieldPathAt(offset int) []string {
	var best []string
	var walk func(sels []selection, path []string)
	walk = func(sels []selection, path []string) {
		for _, s := range sels {
			switch s := s.(type) {
			case *field:
				if offset < s.pos.offset || offset >= s.end {
					continue
				}
				p := append(append([]string(nil), path...), s.name)
				if len(p) > len(best) {
					best = p
				}
				walk(s.sels, p)
			case *inlineFragment:
				walk(s.sels, path)
			}
		}
	}
	for _, op := range d.ops {
		walk(op.sels, nil)
	}
	for _, f := range d.frags {
		walk(f.sels, nil)
	}
	return best
}

// fieldAt finds the field a response path (response keys and list
// indices) leads to in op, following fragments; nil when none does.
func (d *document) fieldAt(op *operation, path []any) *field {
	sels := op.sels
	var found *field
	for _, seg := range path {
		key, ok := seg.(string)
		if !ok {
			continue // a list index stays on the same field
		}
		found = d.findField(sels, key, 0)
		if found == nil {
			return nil
		}
		sels = found.sels
	}
	return found
}

func (d *document) findField(sels []selection, key string, depth int) *field {
	if depth > maxDocumentDepth {
		return nil
	}
	for _, s := range sels {
		switch s := s.(type) {
		case *field:
			if s.key() == key {
				return s
			}
		case *inlineFragment:
			if f := d.findField(s.sels, key, depth+1); f != nil {
				return f
			}
		case *fragmentSpread:
			if fd := d.frags[s.name]; fd != nil {
				if f := d.findField(fd.sels, key, depth+1); f != nil {
					return f
				}
			}
		}
	}
	return nil
}
