package tesserastore

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// An H2 script is what H2's Script tool writes (java -cp h2.jar
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
// order of the CREATE TABLE. Values are X'hex' binary, 'text' ('' for a
// quote), numbers, NULL, CAST(<value> AS <type>) (H2 2.x's form for LOB
// values), and SYSTEM_COMBINE_BLOB(<id>) for a BLOB larger than the script's
// block size (a column Tessera's JPA schema generation made a BLOB), whose
// bytes come in earlier INSERT INTO SYSTEM_LOB_STREAM statements as hex
// text. Everything else is skipped.
//
// The reader streams: memory holds one value at a time, plus the LOB parts
// of rows not read yet.

// H2Script is a Source reading an H2 script file.
type H2Script struct {
	path        string
	f           *os.File
	raw, groups int64
	done        bool
}

// OpenH2Script opens an H2 script.
func OpenH2Script(path string) (*H2Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &H2Script{path: path, f: f}, nil
}

// String implements Source.
func (s *H2Script) String() string { return "H2 script " + s.path }

// Close implements Source.
func (s *H2Script) Close() error { return s.f.Close() }

// NotImported implements Source; it is known after Transactions.
func (s *H2Script) NotImported(context.Context) (int64, int64, error) {
	if !s.done {
		return 0, 0, errors.New("H2 script: the counts are known once the whole script is read")
	}
	return s.raw, s.groups, nil
}

// Transactions implements Source. It reads the script once.
func (s *H2Script) Transactions(ctx context.Context, fn func(Row) error) error {
	if s.done {
		return errors.New("H2 script: already read")
	}
	p := &scriptParser{lx: &lexer{r: bufio.NewReaderSize(s.f, 1<<16), line: 1}, columns: map[string][]string{}, lobs: map[int64][][]byte{}}
	err := p.run(ctx, func(table string, row map[string]value) error {
		switch table {
		case tableRaw:
			s.raw++
		case tableGroups:
			s.groups++
		case tableTx:
			r, err := txRow(row)
			if err != nil {
				return err
			}
			return fn(r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	s.done = true
	return nil
}

// txRow maps a row of ENCRYPTED_TRANSACTION.
func txRow(row map[string]value) (Row, error) {
	var r Row
	h, ok := row[colHash]
	if !ok || h.kind != valBytes {
		return r, errors.New("ENCRYPTED_TRANSACTION row without a binary HASH")
	}
	p, ok := row[colPayload]
	if !ok || p.kind != valBytes {
		return r, errors.New("ENCRYPTED_TRANSACTION row without a binary ENCODED_PAYLOAD")
	}
	r.Hash, r.Encoded = h.b, p.b
	if c, ok := row[colCodec]; ok && c.kind != valNull {
		if c.kind != valText {
			return r, errors.New("PAYLOAD_CODEC is not text")
		}
		r.Codec = c.s
	}
	if ts, ok := row[colTime]; ok && ts.kind == valNumber {
		r.Timestamp, _ = strconv.ParseInt(ts.s, 10, 64)
	}
	return r, nil
}

type valKind int

const (
	valNull valKind = iota
	valBytes
	valText
	valNumber
)

type value struct {
	kind valKind
	b    []byte
	s    string
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
			var sb strings.Builder
			sb.WriteByte(c)
			for {
				d, ok := l.readByte()
				if !ok {
					break
				}
				if d >= '0' && d <= '9' || d == '.' || d == 'e' || d == 'E' {
					sb.WriteByte(d)
					continue
				}
				l.unread(d)
				break
			}
			return token{kind: tokNumber, s: sb.String(), line: l.line}, nil
		case isIdentStart(c):
			var sb strings.Builder
			sb.WriteByte(c)
			for {
				d, ok := l.readByte()
				if !ok {
					break
				}
				if isIdentPart(d) {
					sb.WriteByte(d)
					continue
				}
				l.unread(d)
				break
			}
			id := strings.ToUpper(sb.String())
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

type scriptParser struct {
	lx      *lexer
	columns map[string][]string // table -> columns, from CREATE TABLE
	lobs    map[int64][][]byte  // SYSTEM_LOB_STREAM id -> parts in order
}

// tables whose rows are read (or counted).
var wanted = []string{tableTx, tableRaw, tableGroups}

const lobTable = "SYSTEM_LOB_STREAM"

func (p *scriptParser) run(ctx context.Context, emit func(table string, row map[string]value) error) error {
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

// skipStatement reads up to and including the next ";".
func (p *scriptParser) skipStatement() error {
	for {
		t, err := p.lx.next()
		if err != nil {
			return err
		}
		if t.kind == tokEOF || t.kind == tokPunct && t.s == ";" {
			return nil
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
		t, err := p.lx.next()
		if err != nil {
			return err
		}
		if t.kind == tokEOF || t.kind == tokPunct && t.s == ";" {
			return nil // not a table
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
	if !slices.Contains(wanted, table) {
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
		depth := 0
		end := false
		for {
			d, err := p.lx.next()
			if err != nil {
				return err
			}
			if d.kind == tokEOF {
				return p.lx.errorf("CREATE TABLE %s: unexpected end of script", table)
			}
			if d.kind != tokPunct {
				continue
			}
			if d.s == "(" {
				depth++
			} else if d.s == ")" {
				if depth == 0 {
					end = true
					break
				}
				depth--
			} else if d.s == "," && depth == 0 {
				break
			}
		}
		if end {
			break
		}
	}
	p.columns[table] = cols
	return p.skipStatement()
}

// insert reads INSERT INTO name [(columns)] VALUES (...), (...);
func (p *scriptParser) insert(emit func(string, map[string]value) error) error {
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
	if !slices.Contains(wanted, table) && table != lobTable {
		return p.skipStatement()
	}
	cols := p.columns[table]
	t, err = p.lx.next()
	if err != nil {
		return err
	}
	if t.kind == tokPunct && t.s == "(" {
		cols = nil
		for {
			c, err := p.lx.next()
			if err != nil {
				return err
			}
			if c.kind != tokIdent && c.kind != tokQuoted {
				return p.lx.errorf("INSERT INTO %s: expected a column name, got %q", table, c.s)
			}
			cols = append(cols, strings.ToUpper(c.s))
			d, err := p.lx.next()
			if err != nil {
				return err
			}
			if d.kind == tokPunct && d.s == ")" {
				break
			}
			if d.kind != tokPunct || d.s != "," {
				return p.lx.errorf("INSERT INTO %s: bad column list", table)
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
		row := make(map[string]value, len(cols))
		for i := 0; ; i++ {
			v, err := p.value()
			if err != nil {
				return fmt.Errorf("INSERT INTO %s: %w", table, err)
			}
			if i >= len(cols) {
				return p.lx.errorf("INSERT INTO %s: more values than the %d columns", table, len(cols))
			}
			row[cols[i]] = v
			d, err := p.lx.next()
			if err != nil {
				return err
			}
			if d.kind == tokPunct && d.s == ")" {
				break
			}
			if d.kind != tokPunct || d.s != "," {
				return p.lx.errorf("INSERT INTO %s: expected \",\" or \")\", got %q", table, d.s)
			}
		}
		if table == lobTable {
			if err := p.lobPart(row); err != nil {
				return err
			}
		} else if err := emit(table, row); err != nil {
			return err
		}
		d, err := p.lx.next()
		if err != nil {
			return err
		}
		if d.kind == tokEOF || d.kind == tokPunct && d.s == ";" {
			return nil
		}
		if d.kind != tokPunct || d.s != "," {
			return p.lx.errorf("INSERT INTO %s: expected \",\" or \";\" after a row, got %q", table, d.s)
		}
	}
}

// lobPart keeps a part of a LOB written to SYSTEM_LOB_STREAM: binary parts
// are hex text in BDATA.
func (p *scriptParser) lobPart(row map[string]value) error {
	id, err := strconv.ParseInt(row["ID"].s, 10, 64)
	if err != nil || row["ID"].kind != valNumber {
		return p.lx.errorf("SYSTEM_LOB_STREAM: bad ID")
	}
	part, err := strconv.Atoi(row["PART"].s)
	if err != nil || part != len(p.lobs[id]) {
		return p.lx.errorf("SYSTEM_LOB_STREAM: LOB %d part %q out of order", id, row["PART"].s)
	}
	bd := row["BDATA"]
	var b []byte
	switch bd.kind {
	case valText:
		if b, err = hexBytes(bd.s); err != nil {
			return p.lx.errorf("SYSTEM_LOB_STREAM: BDATA: %v", err)
		}
	case valBytes:
		b = bd.b
	default:
		return p.lx.errorf("SYSTEM_LOB_STREAM: LOB %d is not binary (a CLOB?)", id)
	}
	p.lobs[id] = append(p.lobs[id], b)
	return nil
}

// value reads one value of a VALUES row.
func (p *scriptParser) value() (value, error) {
	t, err := p.lx.next()
	if err != nil {
		return value{}, err
	}
	switch t.kind {
	case tokHex:
		return value{kind: valBytes, b: t.b}, nil
	case tokString:
		return value{kind: valText, s: t.s}, nil
	case tokNumber:
		return value{kind: valNumber, s: t.s}, nil
	case tokPunct:
		if t.s == "-" {
			n, err := p.lx.next()
			if err != nil {
				return value{}, err
			}
			if n.kind == tokNumber {
				return value{kind: valNumber, s: "-" + n.s}, nil
			}
		}
	case tokIdent:
		switch t.s {
		case "NULL":
			return value{kind: valNull}, nil
		case "TRUE", "FALSE":
			return value{kind: valText, s: t.s}, nil
		case "CAST":
			// CAST(<value> AS <type>): the value; the type is skipped.
			if err := p.expect("("); err != nil {
				return value{}, err
			}
			v, err := p.value()
			if err != nil {
				return value{}, err
			}
			depth := 0
			for {
				d, err := p.lx.next()
				if err != nil {
					return value{}, err
				}
				if d.kind == tokEOF {
					return value{}, p.lx.errorf("unterminated CAST")
				}
				if d.kind == tokPunct && d.s == "(" {
					depth++
				} else if d.kind == tokPunct && d.s == ")" {
					if depth == 0 {
						return v, nil
					}
					depth--
				}
			}
		case "SYSTEM_COMBINE_BLOB":
			if err := p.expect("("); err != nil {
				return value{}, err
			}
			n, err := p.value()
			if err != nil {
				return value{}, err
			}
			if err := p.expect(")"); err != nil {
				return value{}, err
			}
			id, err := strconv.ParseInt(n.s, 10, 64)
			if err != nil || n.kind != valNumber {
				return value{}, p.lx.errorf("SYSTEM_COMBINE_BLOB: bad id")
			}
			parts, ok := p.lobs[id]
			if !ok {
				return value{}, p.lx.errorf("SYSTEM_COMBINE_BLOB(%d): no such LOB in the script", id)
			}
			delete(p.lobs, id)
			return value{kind: valBytes, b: joinParts(parts)}, nil
		}
	}
	return value{}, p.lx.errorf("unsupported value %q", t.s)
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
