package rpc

// A minimal JSON scanner for the request envelope. It validates exactly the
// grammar of RFC 8259 (as encoding/json's Valid does: strings are not checked
// for valid UTF-8) and hands out the raw bytes of the members the dispatcher
// needs, so that a request is validated and split in one pass without
// building a generic tree. Parameters are later decoded from their raw bytes
// with encoding/json into the handler's typed arguments.

// maxDepth bounds nesting, like encoding/json, so hostile input cannot grow
// the stack without limit.
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue validates the JSON value starting at b[i] and returns the index
// just after it, or -1 if b[i:] does not start with a valid value.
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := skipString(b, i)
		return end
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	}
	return -1
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipString validates the string starting at the quote b[i]. It returns the
// index after the closing quote (-1 if invalid) and whether the string has no
// escape sequences, so its raw contents are its value.
func skipString(b []byte, i int) (int, bool) {
	plain := true
	j := i + 1
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, plain
		case c == '\\':
			plain = false
			if j+1 >= len(b) {
				return -1, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return -1, false
				}
				for _, h := range b[j+2 : j+6] {
					if !isHex(h) {
						return -1, false
					}
				}
				j += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default:
			j++
		}
	}
	return -1, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i
}

func skipObject(b []byte, i, depth int) int { return skipContainer(b, i, depth, '}', skipMember) }

func skipArray(b []byte, i, depth int) int { return skipContainer(b, i, depth, ']', skipValue) }

// skipMember skips an object member, "name": value.
func skipMember(b []byte, i, depth int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i, _ = skipString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipValue(b, skipSpace(b, i+1), depth)
}

// skipContainer skips the object or array that opens at b[i]: items, each
// skipped by item, separated by commas, up to end.
func skipContainer(b []byte, i, depth int, end byte, item func(b []byte, i, depth int) int) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == end {
		return i + 1
	}
	for {
		if i = item(b, i, depth); i < 0 {
			return -1
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case end:
			return i + 1
		default:
			return -1
		}
	}
}

// validJSON reports whether b is exactly one JSON value, optionally
// surrounded by white space.
func validJSON(b []byte) bool {
	i := skipValue(b, skipSpace(b, 0), 0)
	return i >= 0 && skipSpace(b, i) == len(b)
}

// arrayIter walks the elements of a JSON array that is already known to be
// valid, handing out each element's raw bytes.
type arrayIter struct {
	b []byte
	i int // index of the next element, or len(b) when done
}

// newArrayIter returns an iterator over the valid array b (which must start
// with '[').
func newArrayIter(b []byte) arrayIter {
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		i = len(b)
	}
	return arrayIter{b: b, i: i}
}

// next returns the next element, or false after the last one.
func (it *arrayIter) next() ([]byte, bool) {
	if it.i >= len(it.b) {
		return nil, false
	}
	start := it.i
	end := skipValue(it.b, start, 0)
	if end < 0 {
		it.i = len(it.b)
		return nil, false
	}
	j := skipSpace(it.b, end)
	if j < len(it.b) && it.b[j] == ',' {
		it.i = skipSpace(it.b, j+1)
	} else {
		it.i = len(it.b)
	}
	return it.b[start:end], true
}
