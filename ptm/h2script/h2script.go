// Package h2script reads the SQL script H2's Script tool writes (java -cp h2.jar
// org.h2.tools.Script -url jdbc:h2:<db> -user <u> -script tessera.sql, or
// the SQL statement SCRIPT TO 'tessera.sql'), H2 1.4 and 2.x alike:
//
//	CREATE CACHED TABLE "PUBLIC"."ENCRYPTED_TRANSACTION"(
//	    "ENCODED_PAYLOAD" BINARY VARYING NOT NULL, "PAYLOAD_CODEC" ..., "HASH" ...);
//	-- 2 +/- SELECT COUNT(*) FROM "PUBLIC"."ENCRYPTED_TRANSACTION";
//	INSERT INTO "PUBLIC"."ENCRYPTED_TRANSACTION" VALUES
//	(X'0000...', 'CBOR', 1700000000000, X'6f...'),
//	(...);
//
// Statements end with ";" (H2 pads them with spaces to a block size); the
// INSERT lists its columns (H2 1.4, or 2.x's SCRIPT COLUMNS) or takes the
// order of the CREATE TABLE. Values are X'hex' binary, 'text' (” for a
// quote), numbers, NULL, CAST(<value> AS <type>) (H2 2.x's form for LOB
// values), and SYSTEM_COMBINE_BLOB(<id>) for a BLOB larger than the script's
// block size (a column Tessera's JPA schema generation made a BLOB), whose
// bytes come in earlier INSERT INTO SYSTEM_LOB_STREAM statements as hex
// text. Everything else is skipped.
//
// The reader streams: memory holds one value at a time, plus the LOB parts
// of rows not read yet.
package h2script

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a Value.
type Kind int

// Kinds of values.
const (
	Null   Kind = iota
	Bytes       // X'..', or a BLOB
	Text        // '...', TRUE, FALSE
	Number      // digits, as written
)

// Value is a value of a row: Bytes for binary, Text for text and numbers.
type Value struct {
	Kind  Kind
	Bytes []byte
	Text  string
}

// Tokens.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokQuoted // "quoted identifier"
	tokString
	tokHex
	tokNumber
	tokPunct
)

type token struct {
	kind tokKind
	s    string // identifiers upper-cased (quoted ones kept), text, digits, punctuation
	b    []byte // tokHex
	line int
}

type lexer struct {
	r    *bufio.Reader
	line int
	peek *token
}

func (l *lexer) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", l.line, fmt.Sprintf(format, args...))
}

func (l *lexer) readByte() (byte, bool) {
	c, err := l.r.ReadByte()
	if err != nil {
		return 0, false
	}
	if c == '\n' {
		l.line++
	}
	return c, true
}

func (l *lexer) unread(c byte) {
	l.r.UnreadByte()
	if c == '\n' {
		l.line--
	}
}

func (l *lexer) next() (token, error) {
	if l.peek != nil {
		t := *l.peek
		l.peek = nil
		return t, nil
	}
	return l.scan()
}

func (l *lexer) back(t token) { l.peek = &t }

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isNumberPart(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' }

// run reads a token that starts with c and goes on while part accepts the
// next byte, and returns its text.
func (l *lexer) run(c byte, part func(byte) bool) string {
	var sb strings.Builder
	sb.WriteByte(c)
	for {
		d, ok := l.readByte()
		if !ok {
			return sb.String()
		}
		if !part(d) {
			l.unread(d)
			return sb.String()
		}
		sb.WriteByte(d)
	}
}

func (l *lexer) scan() (token, error) {
	for {
		c, ok := l.readByte()
		if !ok {
			return token{kind: tokEOF, line: l.line}, nil
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c == '-':
			d, ok := l.readByte()
			if ok && d == '-' { // comment to the end of the line
				for {
					e, ok := l.readByte()
					if !ok || e == '\n' {
						break
					}
				}
				continue
			}
			if ok {
				l.unread(d)
			}
			return token{kind: tokPunct, s: "-", line: l.line}, nil
		case c == '/':
			d, ok := l.readByte()
			if ok && d == '*' {
				prev := byte(0)
				for {
					e, ok := l.readByte()
					if !ok {
						return token{}, l.errorf("unterminated comment")
					}
					if prev == '*' && e == '/' {
						break
					}
					prev = e
				}
				continue
			}
			if ok {
				l.unread(d)
			}
			return token{kind: tokPunct, s: "/", line: l.line}, nil
		case c == '\'':
			s, err := l.quoted('\'')
			return token{kind: tokString, s: s, line: l.line}, err
		case c == '"':
			s, err := l.quoted('"')
			return token{kind: tokQuoted, s: s, line: l.line}, err
		case c >= '0' && c <= '9':
			n := l.run(c, isNumberPart)
			return token{kind: tokNumber, s: n, line: l.line}, nil
		case isIdentStart(c):
			id := strings.ToUpper(l.run(c, isIdentPart))
			if id == "X" {
				if d, ok := l.readByte(); ok {
					if d == '\'' {
						s, err := l.quoted('\'')
						if err != nil {
							return token{}, err
						}
						b, err := hexBytes(s)
						if err != nil {
							return token{}, l.errorf("binary literal: %v", err)
						}
						return token{kind: tokHex, b: b, line: l.line}, nil
					}
					l.unread(d)
				}
			}
			return token{kind: tokIdent, s: id, line: l.line}, nil
		default:
			return token{kind: tokPunct, s: string(c), line: l.line}, nil
		}
	}
}

// quoted reads up to the closing quote q; a doubled quote is one quote.
func (l *lexer) quoted(q byte) (string, error) {
	var sb strings.Builder
	for {
		c, ok := l.readByte()
		if !ok {
			return "", l.errorf("unterminated %c-quoted text", q)
		}
		if c == q {
			d, ok := l.readByte()
			if ok && d == q {
				sb.WriteByte(q)
				continue
			}
			if ok {
				l.unread(d)
			}
			return sb.String(), nil
		}
		sb.WriteByte(c)
	}
}

// hexBytes decodes H2's hex text, which may hold spaces (H2 accepts them).
func hexBytes(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	return hex.DecodeString(s)
}

// Read reads an H2 script from r and calls emit with each row inserted into
// one of tables (upper-case names, any schema), as a map from upper-case
// column name to value, in script order.
func Read(ctx context.Context, r io.Reader, tables []string, emit func(table string, row map[string]Value) error) error {
	return newScriptParser(r, tables).run(ctx, emit)
}

func newScriptParser(r io.Reader, tables []string) *scriptParser {
	return &scriptParser{wanted: tables, lx: &lexer{r: bufio.NewReaderSize(r, 1<<16), line: 1}, columns: map[string][]string{}, lobs: map[int64][][]byte{}}
}

type scriptParser struct {
	wanted  []string
	lx      *lexer
	columns map[string][]string // table -> columns, from CREATE TABLE
	lobs    map[int64][][]byte  // SYSTEM_LOB_STREAM id -> parts in order
}

const lobTable = "SYSTEM_LOB_STREAM"

func (p *scriptParser) run(ctx context.Context, emit func(table string, row map[string]Value) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := p.lx.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tokEOF:
			return nil
		case t.kind == tokIdent && t.s == "CREATE":
			err = p.create()
		case t.kind == tokIdent && t.s == "INSERT":
			err = p.insert(emit)
		default:
			err = p.skipStatement()
		}
		if err != nil {
			return err
		}
	}
}

// nextInStatement reads the next token of the statement being read; end
// is true when that token ends it (its ";" or the end of the script), which
// every statement reader must stop at.
func (p *scriptParser) nextInStatement() (t token, end bool, err error) {
	t, err = p.lx.next()
	if err != nil {
		return t, false, err
	}
	return t, t.kind == tokEOF || t.kind == tokPunct && t.s == ";", nil
}

// skipStatement reads up to and including the next ";".
func (p *scriptParser) skipStatement() error {
	for {
		_, end, err := p.nextInStatement()
		if end || err != nil {
			return err
		}
	}
}

// name reads a possibly schema-qualified name and returns its last part,
// upper-cased (H2 upper-cases unquoted names; Tessera's are upper-case).
func (p *scriptParser) name() (string, error) {
	var last string
	for {
		t, err := p.lx.next()
		if err != nil {
			return "", err
		}
		if t.kind != tokIdent && t.kind != tokQuoted {
			return "", p.lx.errorf("expected a name, got %q", t.s)
		}
		last = strings.ToUpper(t.s)
		d, err := p.lx.next()
		if err != nil {
			return "", err
		}
		if d.kind == tokPunct && d.s == "." {
			continue
		}
		p.lx.back(d)
		return last, nil
	}
}

func (p *scriptParser) expect(s string) error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	if t.kind != tokPunct || t.s != s {
		return p.lx.errorf("expected %q, got %q", s, t.s)
	}
	return nil
}

// create reads CREATE [...] TABLE [IF NOT EXISTS] name (columns...) and
// records the column order of the tables read.
func (p *scriptParser) create() error {
	for {
		t, end, err := p.nextInStatement()
		if end || err != nil {
			return err // at the end: not a table
		}
		if t.kind == tokIdent && t.s == "TABLE" {
			break
		}
		if t.kind == tokIdent && (t.s == "INDEX" || t.s == "ALIAS" || t.s == "SEQUENCE" || t.s == "VIEW" || t.s == "SCHEMA" || t.s == "USER" || t.s == "PRIMARY" || t.s == "CONSTANT" || t.s == "DOMAIN") {
			return p.skipStatement()
		}
	}
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	if t.kind == tokIdent && t.s == "IF" { // IF NOT EXISTS
		for range 2 {
			if _, err := p.lx.next(); err != nil {
				return err
			}
		}
	} else {
		p.lx.back(t)
	}
	table, err := p.name()
	if err != nil {
		return err
	}
	if !slices.Contains(p.wanted, table) {
		return p.skipStatement()
	}
	if err := p.expect("("); err != nil {
		return err
	}
	var cols []string
	for {
		t, err := p.lx.next()
		if err != nil {
			return err
		}
		if t.kind != tokIdent && t.kind != tokQuoted {
			return p.lx.errorf("CREATE TABLE %s: expected a column name, got %q", table, t.s)
		}
		isConstraint := t.kind == tokIdent && slices.Contains([]string{"CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK"}, t.s)
		if !isConstraint {
			cols = append(cols, strings.ToUpper(t.s))
		}
		// Skip the definition up to "," or the closing ")".
		d, err := p.skipNested(true)
		if err != nil {
			return err
		}
		if d.kind == tokEOF {
			return p.lx.errorf("CREATE TABLE %s: unexpected end of script", table)
		}
		if d.s == ")" {
			break
		}
	}
	p.columns[table] = cols
	return p.skipStatement()
}

// skipNested reads up to the ")" that closes the parenthesis being read,
// skipping any nested in it, or, with atComma, up to a "," outside them (the
// end of a column definition). It returns the token it stopped at: that ")"
// or ",", or the end of the script when the parenthesis is never closed.
func (p *scriptParser) skipNested(atComma bool) (token, error) {
	depth := 0
	for {
		d, err := p.lx.next()
		if err != nil || d.kind == tokEOF {
			return d, err
		}
		if d.kind != tokPunct {
			continue
		}
		switch {
		case d.s == "(":
			depth++
		case d.s == ")" && depth == 0:
			return d, nil
		case d.s == ")":
			depth--
		case d.s == "," && depth == 0 && atComma:
			return d, nil
		}
	}
}

// insert reads INSERT INTO name [(columns)] VALUES (...), (...);
func (p *scriptParser) insert(emit func(string, map[string]Value) error) error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	if t.kind != tokIdent || t.s != "INTO" {
		return p.skipStatement()
	}
	table, err := p.name()
	if err != nil {
		return err
	}
	if !slices.Contains(p.wanted, table) && table != lobTable {
		return p.skipStatement()
	}
	cols := p.columns[table]
	t, err = p.lx.next()
	if err != nil {
		return err
	}
	if t.kind == tokPunct && t.s == "(" {
		cols = nil
		for closed := false; !closed; {
			c, err := p.lx.next()
			if err != nil {
				return err
			}
			if c.kind != tokIdent && c.kind != tokQuoted {
				return p.lx.errorf("INSERT INTO %s: expected a column name, got %q", table, c.s)
			}
			cols = append(cols, strings.ToUpper(c.s))
			if closed, err = p.closesList(table); err != nil {
				return err
			}
		}
		if t, err = p.lx.next(); err != nil {
			return err
		}
	}
	if t.kind != tokIdent || t.s != "VALUES" {
		return p.skipStatement() // INSERT ... SELECT: not what H2 writes
	}
	if table == lobTable {
		cols = []string{"ID", "PART", "CDATA", "BDATA"}
	}
	if cols == nil {
		return p.lx.errorf("INSERT INTO %s comes before its CREATE TABLE and names no columns", table)
	}
	for {
		if err := p.expect("("); err != nil {
			return err
		}
		row := make(map[string]Value, len(cols))
		for i, closed := 0, false; !closed; i++ {
			v, err := p.value()
			if err != nil {
				return fmt.Errorf("INSERT INTO %s: %w", table, err)
			}
			if i >= len(cols) {
				return p.lx.errorf("INSERT INTO %s: more values than the %d columns", table, len(cols))
			}
			row[cols[i]] = v
			if closed, err = p.closesList(table); err != nil {
				return err
			}
		}
		if table == lobTable {
			if err := p.lobPart(row); err != nil {
				return err
			}
		} else if err := emit(table, row); err != nil {
			return err
		}
		d, end, err := p.nextInStatement()
		if end || err != nil {
			return err
		}
		if d.kind != tokPunct || d.s != "," {
			return p.lx.errorf("INSERT INTO %s: expected \",\" or \";\" after a row, got %q", table, d.s)
		}
	}
}

// closesList reads what follows an item of a parenthesized list of INSERT
// INTO table (its column names or a row's values): true at the closing ")",
// false at a "," before the next item, an error at anything else.
func (p *scriptParser) closesList(table string) (bool, error) {
	d, err := p.lx.next()
	if err != nil {
		return false, err
	}
	if d.kind != tokPunct || d.s != ")" && d.s != "," {
		return false, p.lx.errorf("INSERT INTO %s: expected \",\" or \")\", got %q", table, d.s)
	}
	return d.s == ")", nil
}

// lobPart keeps a part of a LOB written to SYSTEM_LOB_STREAM: binary parts
// are hex text in BDATA.
func (p *scriptParser) lobPart(row map[string]Value) error {
	id, err := strconv.ParseInt(row["ID"].Text, 10, 64)
	if err != nil || row["ID"].Kind != Number {
		return p.lx.errorf("SYSTEM_LOB_STREAM: bad ID")
	}
	part, err := strconv.Atoi(row["PART"].Text)
	if err != nil || part != len(p.lobs[id]) {
		return p.lx.errorf("SYSTEM_LOB_STREAM: LOB %d part %q out of order", id, row["PART"].Text)
	}
	bd := row["BDATA"]
	var b []byte
	switch bd.Kind {
	case Text:
		if b, err = hexBytes(bd.Text); err != nil {
			return p.lx.errorf("SYSTEM_LOB_STREAM: BDATA: %v", err)
		}
	case Bytes:
		b = bd.Bytes
	default:
		return p.lx.errorf("SYSTEM_LOB_STREAM: LOB %d is not binary (a CLOB?)", id)
	}
	p.lobs[id] = append(p.lobs[id], b)
	return nil
}

// value reads one value of a VALUES row.
func (p *scriptParser) value() (Value, error) {
	t, err := p.lx.next()
	if err != nil {
		return Value{}, err
	}
	switch t.kind {
	case tokHex:
		return Value{Kind: Bytes, Bytes: t.b}, nil
	case tokString:
		return Value{Kind: Text, Text: t.s}, nil
	case tokNumber:
		return Value{Kind: Number, Text: t.s}, nil
	case tokPunct:
		if t.s == "-" {
			n, err := p.lx.next()
			if err != nil {
				return Value{}, err
			}
			if n.kind == tokNumber {
				return Value{Kind: Number, Text: "-" + n.s}, nil
			}
		}
	case tokIdent:
		switch t.s {
		case "NULL":
			return Value{Kind: Null}, nil
		case "TRUE", "FALSE":
			return Value{Kind: Text, Text: t.s}, nil
		case "CAST":
			// CAST(<value> AS <type>): the value; the type is skipped.
			v, err := p.firstArgument()
			if err != nil {
				return Value{}, err
			}
			d, err := p.skipNested(false)
			if err != nil {
				return Value{}, err
			}
			if d.kind == tokEOF {
				return Value{}, p.lx.errorf("unterminated CAST")
			}
			return v, nil
		case "SYSTEM_COMBINE_BLOB":
			n, err := p.firstArgument()
			if err != nil {
				return Value{}, err
			}
			if err := p.expect(")"); err != nil {
				return Value{}, err
			}
			id, err := strconv.ParseInt(n.Text, 10, 64)
			if err != nil || n.Kind != Number {
				return Value{}, p.lx.errorf("SYSTEM_COMBINE_BLOB: bad id")
			}
			parts, ok := p.lobs[id]
			if !ok {
				return Value{}, p.lx.errorf("SYSTEM_COMBINE_BLOB(%d): no such LOB in the script", id)
			}
			delete(p.lobs, id)
			return Value{Kind: Bytes, Bytes: joinParts(parts)}, nil
		}
	}
	return Value{}, p.lx.errorf("unsupported value %q", t.s)
}

// firstArgument reads the "(" that opens a function's arguments and the
// value after it.
func (p *scriptParser) firstArgument() (Value, error) {
	if err := p.expect("("); err != nil {
		return Value{}, err
	}
	return p.value()
}

func joinParts(parts [][]byte) []byte {
	n := 0
	for _, b := range parts {
		n += len(b)
	}
	out := make([]byte, 0, n)
	for _, b := range parts {
		out = append(out, b...)
	}
	return out
}
