package cliconf

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// FileError is what is wrong with a config file: it could not be read or
// parsed (Err), or some of its keys are unknown, may not be set in a file or
// have a value of the wrong type. Every problem of the file is listed, sorted
// by key. Error words it the Besu way, naming the file and the key; a
// program with other wording of its own reads the fields.
type FileError struct {
	// Path is the file as named.
	Path string
	// Option is the Spec's FileOption ("config-file"), "" when the
	// program named the file itself.
	Option string
	// Err is the read or TOML syntax error; when set the other fields are
	// empty.
	Err error
	// Unknown are the keys no option has.
	Unknown []string
	// Suggestions maps an unknown key to the known key it is probably a
	// misspelling of (see Suggest); keys without a close match are absent.
	Suggestions map[string]string
	// NotAllowed are keys of options the file cannot set (FileOption).
	NotAllowed []string
	// Invalid are the keys whose value has the wrong TOML type.
	Invalid []KeyError
}

// KeyError is a config-file value of the wrong type.
type KeyError struct {
	// Key is the key as written (dotted for a section's option).
	Key string
	// Reason says what was expected and what was found ("want an integer,
	// got \"x\"").
	Reason string
}

// Error lists every problem of the file, naming the file and keys.
func (e *FileError) Error() string {
	if e.Err != nil {
		if e.Option != "" {
			return fmt.Sprintf("--%s: %s: %v", e.Option, e.Path, e.Err)
		}
		return fmt.Sprintf("config file %s: %v", e.Path, e.Err)
	}
	var msgs []string
	for _, k := range e.Invalid {
		msgs = append(msgs, fmt.Sprintf("invalid value for %q in config file %s: %s", k.Key, e.Path, k.Reason))
	}
	for _, k := range e.NotAllowed {
		msgs = append(msgs, fmt.Sprintf("config file %s: %q cannot be set in a config file", e.Path, k))
	}
	quoted := make([]string, len(e.Unknown))
	for i, k := range e.Unknown {
		quoted[i] = strconv.Quote(k)
		if s, ok := e.Suggestions[k]; ok {
			quoted[i] += fmt.Sprintf(" (did you mean %q?)", s)
		}
	}
	switch len(e.Unknown) {
	case 0:
	case 1:
		msgs = append(msgs, fmt.Sprintf("unknown option %s in config file %s", quoted[0], e.Path))
	default:
		msgs = append(msgs, fmt.Sprintf("unknown options %s in config file %s", strings.Join(quoted, ", "), e.Path))
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the read or syntax error.
func (e *FileError) Unwrap() error { return e.Err }

// fileValue is one option's value from the config file.
type fileValue struct {
	text  string
	items []string // a List's elements when the file has an array
}

// readFile reads the config file at path into values by file key as
// written. Keys of a table named after a section are that section's keys.
// An error is a *FileError listing every problem of the file.
func (s *Spec) readFile(path string, byKey map[string]*Option) (map[string]fileValue, error) {
	fe := &FileError{Path: path, Option: s.FileOption}
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			err = pe.Err // the path is in the message already
		}
		fe.Err = err
		return nil, fe
	}
	sections := s.sections()
	out := make(map[string]fileValue, len(raw))
	var add func(key string, v any)
	add = func(key string, v any) {
		o, ok := byKey[key]
		switch {
		case !ok:
			fe.Unknown = append(fe.Unknown, key)
		case o.Section == "" && o.Name == s.FileOption:
			fe.NotAllowed = append(fe.NotAllowed, key)
		default:
			fv, reason := convert(o.Kind, v, s.StrictFileTypes)
			if reason != "" {
				fe.Invalid = append(fe.Invalid, KeyError{Key: key, Reason: reason})
				return
			}
			out[key] = fv
		}
	}
	for key, v := range raw {
		if table, ok := v.(map[string]any); ok && sections[key] {
			for k, v := range table {
				add(key+"."+k, v)
			}
			continue
		}
		add(key, v)
	}
	if len(fe.Unknown)+len(fe.NotAllowed)+len(fe.Invalid) > 0 {
		sort.Strings(fe.Unknown)
		fe.Suggestions = suggestKeys(fe.Unknown, byKey)
		sort.Strings(fe.NotAllowed)
		sort.Slice(fe.Invalid, func(i, j int) bool { return fe.Invalid[i].Key < fe.Invalid[j].Key })
		return nil, fe
	}
	return out, nil
}

// convert checks a decoded TOML value against kind and writes it as
// command-line text. reason is non-empty when the type is wrong.
func convert(kind Kind, v any, strict bool) (fv fileValue, reason string) {
	if strict {
		return convertStrict(kind, v)
	}
	if arr, ok := v.([]any); ok {
		if kind != List {
			return fv, "want a single value, got an array"
		}
		items := make([]string, len(arr))
		for i, e := range arr {
			s, ok := scalarText(e)
			if !ok {
				return fv, fmt.Sprintf("array element %d: want a string, number or boolean, got %s", i, describe(e))
			}
			items[i] = s
		}
		return fileValue{text: strings.Join(items, ","), items: items}, ""
	}
	s, ok := scalarText(v)
	if !ok {
		return fv, "want a string, number, boolean or list, got " + describe(v)
	}
	return fileValue{text: s}, ""
}

// convertStrict is convert for Spec.StrictFileTypes.
func convertStrict(kind Kind, v any) (fv fileValue, reason string) {
	switch kind {
	case Int:
		if n, ok := v.(int64); ok {
			return fileValue{text: strconv.FormatInt(n, 10)}, ""
		}
		return fv, "want an integer, got " + describe(v)
	case Bool:
		if b, ok := v.(bool); ok {
			return fileValue{text: strconv.FormatBool(b)}, ""
		}
		return fv, "want true or false, got " + describe(v)
	case List:
		arr, ok := v.([]any)
		if !ok {
			return fv, "want a list of strings, got " + describe(v)
		}
		items := make([]string, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				return fv, fmt.Sprintf("want a list of strings, got element %d: %s", i, describe(e))
			}
			items[i] = s
		}
		return fileValue{text: strings.Join(items, ","), items: items}, ""
	}
	if s, ok := v.(string); ok {
		return fileValue{text: s}, ""
	}
	return fv, "want a string, got " + describe(v)
}

// scalarText writes a TOML string, number or boolean as on the command line.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// describe names a decoded TOML value in an error.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date or time"
	}
	if s, ok := scalarText(v); ok {
		return s
	}
	return fmt.Sprintf("%v", v)
}

// suggestKeys finds for each unknown key the known file key it is probably
// a misspelling of: among the keys of its section for a dotted key, among
// the top-level keys otherwise.
func suggestKeys(unknown []string, byKey map[string]*Option) map[string]string {
	var out map[string]string
	for _, k := range unknown {
		section, name, dotted := strings.Cut(k, ".")
		if !dotted {
			section, name = "", k
		}
		var candidates []string
		for key, o := range byKey {
			if o.Section == section {
				candidates = append(candidates, strings.TrimPrefix(key, section+"."))
			}
		}
		if s := Suggest(name, candidates); s != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = FileKey(section, s)
		}
	}
	return out
}
