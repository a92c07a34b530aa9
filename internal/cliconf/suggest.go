package cliconf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Suggest returns the candidate closest to name, for a "did you mean"
// after a misspelled option, or "" when none is close enough to be what
// the user meant. Names compare case-insensitively with '_' read as '-'
// (so "rpc_http_port" finds "rpc-http-port"); a swap of two neighbouring
// letters counts as one edit ("metrics-enabeld"). Up to one edit per six
// letters, at least one and at most three, is close: further than that a
// suggestion is more often wrong than helpful.
func Suggest(name string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	n := norm(strings.TrimLeft(name, "-"))
	if n == "" {
		return ""
	}
	limit := min(3, 1+len(n)/6)
	best, bestD := "", limit+1
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted) // ties go to the first name in order, whatever the caller's order
	for _, c := range sorted {
		cn := norm(c)
		if cn == n {
			return c // differs only in case or separators
		}
		if d := editDistance(n, cn, bestD); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours), or a
// value of at least bound when it is bound or more: callers only need the
// distance of close names, and long names far apart are cut short.
func editDistance(a, b string, bound int) int {
	if d := len(a) - len(b); d >= bound || -d >= bound {
		return bound
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Names returns every name of the options, aliases included (not the
// sections' options), for Suggest.
func (s *Spec) Names() []string {
	var out []string
	for _, o := range s.Options {
		if o.Section == "" {
			out = append(out, o.names()...)
		}
	}
	return out
}

// FlagError adds a "did you mean" to pflag's error for an unknown flag of
// fs ("unknown flag: --rpc-http-prot"), naming the closest visible flag of
// fs, or a hidden one when no visible flag is close (Besu's --X options are
// hidden but real). Other errors are returned as they are.
func FlagError(fs *pflag.FlagSet, err error) error {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	name := strings.TrimPrefix(msg, prefix)
	var visible, hidden []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			hidden = append(hidden, f.Name)
		} else {
			visible = append(visible, f.Name)
		}
	})
	s := Suggest(name, visible)
	if s == "" {
		s = Suggest(name, hidden)
	}
	if s == "" {
		return err
	}
	return &suggestError{err: err, msg: fmt.Sprintf("%s (did you mean --%s?)", msg, s)}
}

// suggestError is an error with a suggestion appended to its message.
type suggestError struct {
	err error
	msg string
}

func (e *suggestError) Error() string { return e.msg }
func (e *suggestError) Unwrap() error { return e.err }

// UnknownEnv returns the variables of environ (os.Environ's "NAME=value"
// form) that start with one of the Spec's environment prefixes but name no
// option, each with a "did you mean" when one is close, sorted:
//
//	BASALT_RPC_HTTP_PROT (did you mean BASALT_RPC_HTTP_PORT?)
//
// Besu ignores such variables; a program logs them, so that a misspelled
// variable is not silently without effect. ignore lists variables that
// belong to the program in another way (a launcher's own settings).
func (s *Spec) UnknownEnv(environ []string, ignore ...string) []string {
	known := map[string]bool{}
	for _, n := range ignore {
		known[n] = true
	}
	var names []string
	for _, prefix := range s.EnvPrefixes {
		for _, o := range s.Options {
			for _, n := range o.names() {
				e := EnvName(prefix, o.Section, n)
				known[e] = true
				names = append(names, e)
			}
		}
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if known[name] || !s.hasEnvPrefix(name) {
			continue
		}
		known[name] = true // once, however often environ repeats it
		if sug := Suggest(name, names); sug != "" {
			name += " (did you mean " + sug + "?)"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func (s *Spec) hasEnvPrefix(name string) bool {
	for _, p := range s.EnvPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}
