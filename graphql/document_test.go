package graphql

import (
	"strings"
	"testing"
)

func TestParseDocument(t *testing.T) {
	doc, err := parseDocument(`# a comment
query q($a: Address!, $n: [Long!] = [1, 2]) @dir {
  x: block(number: -1, hash: "0x\u0041\n") { ...F ... on Block @skip(if: true) { number } }
}
fragment F on Block { logs(filter: {topics: [[], ["0x01"]], addresses: []}) { index } }
mutation { sendRawTransaction(data: """raw
text""") }`)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.ops) != 2 || len(doc.frags) != 1 {
		t.Fatalf("ops %d frags %d", len(doc.ops), len(doc.frags))
	}
	q := doc.ops[0]
	if q.kind != "query" || q.name != "q" || len(q.vars) != 2 || q.vars[1].typ.String() != "[Long!]" || q.vars[1].def.kind != valList {
		t.Errorf("operation %+v", q)
	}
	f := q.sels[0].(*field)
	if f.alias != "x" || f.name != "block" || f.key() != "x" || len(f.args) != 2 || len(f.sels) != 2 {
		t.Errorf("field %+v", f)
	}
	if f.pos.line != 3 || f.pos.column != 3 {
		t.Errorf("field at %d:%d", f.pos.line, f.pos.column)
	}
	if a := f.args[0]; a.val.kind != valInt || a.val.text != "-1" {
		t.Errorf("int %+v", a.val)
	}
	if a := f.args[1]; a.val.kind != valString || a.val.text != "0xA\n" || a.pos.column != 24 {
		t.Errorf("string %+v at %d", a.val, a.pos.column)
	}
	if got := doc.ops[1].sels[0].(*field).args[0].val.text; got != "raw\ntext" {
		t.Errorf("block string %q", got)
	}
	if m := doc.ops[1].sels[0].(*field).args[0].val; m.pos.line != 6 {
		t.Errorf("block string at line %d", m.pos.line)
	}
	if got := doc.fieldPathAt(f.sels[1].(*inlineFragment).sels[0].(*field).pos.offset); strings.Join(got, "/") != "block/number" {
		t.Errorf("path %v", got)
	}
	if got := doc.fieldAt(q, []any{"x", "logs", 0, "index"}); got == nil || got.name != "index" {
		t.Errorf("fieldAt through a fragment: %+v", got)
	}
}

func TestValueString(t *testing.T) {
	doc, err := parseDocument(`{ f(a: {b: [1, 2.5, "s", true, null, E, $v]}) }`)
	if err != nil {
		t.Fatal(err)
	}
	got := doc.ops[0].sels[0].(*field).args[0].val.String()
	want := "ObjectValue{objectFields=[ObjectField{name='b', value=ArrayValue{values=[IntValue{value=1}, FloatValue{value=2.5}, " +
		"StringValue{value='s'}, BooleanValue{value=true}, NullValue{}, EnumValue{name='E'}, VariableReference{name='v'}]}}]}"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestParseErrors checks graphql-java's syntax error message: the
// offending token and its position.
func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "Invalid syntax with offending token '<EOF>' at line 1 column 1"},
		{"   ", "Invalid syntax with offending token '<EOF>' at line 1 column 4"},
		{"{ block ", "Invalid syntax with offending token '<EOF>' at line 1 column 9"},
		{"{ block(number: 1 { x } }", "Invalid syntax with offending token '{' at line 1 column 19"},
		{"{\n  a(b: 01) }", "Invalid syntax with offending token '01' at line 2 column 8"},
		{"{ a(b: 1.) }", "Invalid syntax with offending token '1.' at line 1 column 8"},
		{"{ a(b: \"x) }", "Invalid syntax with offending token '\"x) }' at line 1 column 8"},
		{"{ a(b: \"\\q\") }", "Invalid syntax with offending token '\"\\q' at line 1 column 8"},
		{"{ a(b: $) }", "Invalid syntax with offending token ')' at line 1 column 9"},
		{"{ a } }", "Invalid syntax with offending token '}' at line 1 column 7"},
		{"query ($a: ) { a }", "Invalid syntax with offending token ')' at line 1 column 12"},
		{"fragment on on X { a }", "Invalid syntax with offending token 'on' at line 1 column 13"},
		{"{ a(b: [1, 2) }", "Invalid syntax with offending token ')' at line 1 column 13"},
		{"{ a ? }", "Invalid syntax with offending token '?' at line 1 column 5"},
		{"{ a(b: \"\"\"x) }", "Invalid syntax with offending token '\"\"\"x) }' at line 1 column 8"},
		{"query q($v: Long = $w) { a }", "Invalid syntax with offending token '$' at line 1 column 20"},
		{strings.Repeat("{a", 200) + strings.Repeat("}", 200), "Invalid syntax: the document nests selections or values deeper than 128 levels, the most this server parses, at line 1 column 257"},
		{"{ a(b: " + strings.Repeat("[", 130) + strings.Repeat("]", 130) + ") }", "Invalid syntax: the document nests selections or values deeper than 128 levels, the most this server parses, at line 1 column 135"},
	}
	for _, tc := range tests {
		_, err := parseDocument(tc.src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// FuzzParseDocument: no document, however malformed, panics the parser or
// the lookups the service makes on its result.
func FuzzParseDocument(f *testing.F) {
	for _, s := range []string{
		`{ block { number } }`,
		`query q($a: [Long!]! = [1]) { blocks(from: $a) { ...F } } fragment F on Block { hash }`,
		`{ block(number: "0x1") { call(data: {from: "0x01", data: "0x"}) { data } } }`,
		`mutation { sendRawTransaction(data: """x""") }`,
		`{ a(b: -0.5e+10, c: [[]], d: {}) @skip(if: $x) }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := parseDocument(src)
		if err != nil {
			return
		}
		for i := 0; i <= len(src); i++ {
			doc.fieldPathAt(i)
		}
		for _, op := range doc.ops {
			doc.fieldAt(op, []any{"a", 0, "b"})
		}
	})
}
