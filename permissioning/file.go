package permissioning

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The file's keys: current Besu's, and the 1.3-era names, accepted too. A
// list is written back under the key it was read from.
const (
	KeyAccounts       = "accounts-allowlist"
	KeyAccountsLegacy = "accounts-whitelist"
	KeyNodes          = "nodes-allowlist"
	KeyNodesLegacy    = "nodes-whitelist"
)

// DefaultFile is the permissions file's name in the data path, the default
// of --permissions-accounts-config-file and --permissions-nodes-config-file.
const DefaultFile = "permissions_config.toml"

// listKeys are the keys of one list, the current name first.
type listKeys [2]string

var (
	accountKeys = listKeys{KeyAccounts, KeyAccountsLegacy}
	nodeKeys    = listKeys{KeyNodes, KeyNodesLegacy}
)

// isListKey reports whether k is one of the four list keys.
func isListKey(k string) bool {
	return slices.Contains(accountKeys[:], k) || slices.Contains(nodeKeys[:], k)
}

// document is a decoded permissions file.
type document struct {
	path string
	data []byte
	vals map[string]any
}

// decodeFile parses a permissions file; a syntax error names the file and
// the line.
func decodeFile(path string, data []byte) (*document, error) {
	vals := map[string]any{}
	if _, err := toml.Decode(string(data), &vals); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("permissions config file %s line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("permissions config file %s: %w", path, err)
	}
	return &document{path: path, data: data, vals: vals}, nil
}

// list returns the strings under whichever of keys the file has and that
// key. Both keys at once, or a value that is not an array of strings, is an
// error; missing is reported by ok == false.
func (d *document) list(keys listKeys) (values []string, key string, ok bool, err error) {
	var found []string
	for _, k := range keys {
		if _, has := d.vals[k]; has {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return nil, "", false, nil
	case 2:
		return nil, "", false, fmt.Errorf("permissions config file %s line %d: both %s and %s are given; keep one",
			d.path, d.line(found[1]+" "), found[0], found[1])
	}
	key = found[0]
	arr, isArr := d.vals[key].([]any)
	if !isArr {
		return nil, "", false, fmt.Errorf("permissions config file %s line %d: %s must be an array of strings", d.path, d.keyLine(key), key)
	}
	values = make([]string, len(arr))
	for i, v := range arr {
		s, isStr := v.(string)
		if !isStr {
			return nil, "", false, fmt.Errorf("permissions config file %s line %d: %s must be an array of strings", d.path, d.keyLine(key), key)
		}
		values[i] = s
	}
	return values, key, true, nil
}

// missing is Besu's start-up error for an enabled list without its key.
func (d *document) missing(keys listKeys) error {
	return fmt.Errorf("%s config option missing in TOML config file %s (the 1.3-era key %s is accepted too)", keys[0], d.path, keys[1])
}

// accounts reads and checks the accounts list.
func (d *document) accounts() (*accountList, string, error) {
	vals, key, ok, err := d.list(accountKeys)
	switch {
	case err != nil:
		return nil, "", err
	case !ok:
		return nil, "", d.missing(accountKeys)
	}
	entries := make([]string, 0, len(vals))
	seen := make(map[string]bool, len(vals))
	for _, s := range vals {
		_, norm, valid := parseAccount(s)
		if !valid {
			return nil, "", fmt.Errorf("permissions config file %s line %d: Invalid account %s", d.path, d.valueLine(s), s)
		}
		if !seen[norm] { // Besu keeps a list; a repeated entry counts once
			seen[norm] = true
			entries = append(entries, norm)
		}
	}
	return newAccountList(entries), key, nil
}

// nodes reads and checks the nodes list.
func (d *document) nodes(dns *DNS) (*nodeList, string, error) {
	vals, key, ok, err := d.list(nodeKeys)
	switch {
	case err != nil:
		return nil, "", err
	case !ok:
		return nil, "", d.missing(nodeKeys)
	}
	nodes := make([]listedNode, 0, len(vals))
	seen := make(map[endpoint]bool, len(vals))
	for _, s := range vals {
		n, err := parseNode(s, dns)
		if err != nil {
			return nil, "", fmt.Errorf("permissions config file %s line %d: %v", d.path, d.valueLine(s), err)
		}
		if e := endpointOf(n.Node); !seen[e] {
			seen[e] = true
			nodes = append(nodes, n)
		}
	}
	return newNodeList(nodes, dns), key, nil
}

// valueLine is the line of the first occurrence of the quoted string s,
// for messages; 0 if not found.
func (d *document) valueLine(s string) int {
	if l := d.line(strconv.Quote(s)); l > 0 {
		return l
	}
	return d.line("'" + s + "'")
}

func (d *document) keyLine(key string) int {
	for i, ln := range bytes.Split(d.data, []byte("\n")) {
		t := strings.TrimSpace(string(ln))
		if strings.HasPrefix(t, key) || strings.HasPrefix(t, `"`+key+`"`) {
			return i + 1
		}
	}
	return 0
}

func (d *document) line(needle string) int {
	i := bytes.Index(d.data, []byte(needle))
	if i < 0 {
		return 0
	}
	return bytes.Count(d.data[:i], []byte("\n")) + 1
}

// encode writes the file with the list under key replaced by values: the
// list keys first, as Besu writes them (key=["v1","v2"]), then every other
// key of the file. Comments are not kept (Besu loses them too).
func (d *document) encode(key string, values []string) ([]byte, error) {
	var buf bytes.Buffer
	rest := map[string]any{}
	lists := map[string][]string{key: values}
	for k, v := range d.vals {
		if k == key {
			continue
		}
		if !isListKey(k) {
			rest[k] = v
			continue
		}
		arr, _ := v.([]any)
		ss := make([]string, 0, len(arr))
		for _, x := range arr {
			if s, ok := x.(string); ok {
				ss = append(ss, s)
			}
		}
		lists[k] = ss
	}
	for _, k := range []string{KeyAccounts, KeyAccountsLegacy, KeyNodes, KeyNodesLegacy} {
		vs, ok := lists[k]
		if !ok {
			continue
		}
		buf.WriteString(k)
		buf.WriteString("=[")
		for i, v := range vs {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(quoteTOML(v))
		}
		buf.WriteString("]\n")
	}
	if len(rest) > 0 {
		if err := toml.NewEncoder(&buf).Encode(rest); err != nil {
			return nil, fmt.Errorf("encode permissions config file %s: %w", d.path, err)
		}
	}
	return buf.Bytes(), nil
}

// quoteTOML quotes s as a TOML basic string. List entries are checked
// before they are written, so in practice they are plain ASCII; the
// escaping keeps a file that held anything else parseable.
func quoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
