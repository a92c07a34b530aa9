package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is one skipped test and its reason.
type skip struct {
	pkg, test, reason string
}

// scan copies the package result lines and the output of failed tests
// from in to out as they come, then lists the skipped tests.
func scan(in io.Reader, out io.Writer) (result, error) {
	var r result
	buf := map[string][]string{} // output of a running test, by package and test
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(out, string(line)) // build errors and the like come as plain text
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				if !strings.HasPrefix(e.Output, "=== ") && e.Output != "PASS\n" {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			buf[key] = append(buf[key], e.Output)
		case "fail":
			if e.Test != "" {
				fmt.Fprint(out, strings.Join(buf[key], ""))
			}
			r.failed = true
			delete(buf, key)
		case "skip":
			if e.Test != "" {
				r.skips = append(r.skips, skip{pkg: e.Package, test: e.Test, reason: reason(buf[key])})
			}
			delete(buf, key)
		case "pass":
			delete(buf, key)
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	sort.Slice(r.skips, func(i, j int) bool {
		if r.skips[i].pkg != r.skips[j].pkg {
			return r.skips[i].pkg < r.skips[j].pkg
		}
		return r.skips[i].test < r.skips[j].test
	})
	if len(r.skips) > 0 {
		fmt.Fprintf(out, "\n%d skipped tests (see docs/contributing/tests.md for the inputs each suite needs):\n", len(r.skips))
		for _, s := range r.skips {
			fmt.Fprintf(out, "SKIP %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	return r, nil
}

// reason is the message a skipped test logged: its output without the
// run and result lines, and without the file:line prefix of t.Skip.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " / ")
}
