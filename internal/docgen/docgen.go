// Package docgen keeps the generated pages of docs/reference equal to the
// code they are written from. Each page has a test in the package that
// holds its source (the option tables, the JSON-RPC registry, the metrics
// registries, the error values); the test builds the page's text and calls
// Check, which fails when the file differs and, with -update, rewrites it.
//
// It is imported by tests only.
package docgen

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/cliconf"
)

// Command regenerates every generated page.
const Command = "go test ./config ./ptm/config ./cmd/basalt-signer ./node ./metrics/grafana ./rpctypes -run TestReference -update"

var update = flag.Bool("update", false, "rewrite the generated documentation pages (docs/reference) from the code")

// Root returns the module root: the nearest directory above the working
// directory holding go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Header is the first lines of a generated page: its title and the note
// that says where it comes from and how to regenerate it.
func Header(title, source string) string {
	return fmt.Sprintf("# %s\n\n<!-- Generated from %s by `%s`; do not edit. -->\n\n", title, source, Command)
}

// Check compares the page at path (relative to the module root) with
// want, and rewrites it under -update.
func Check(t testing.TB, path, want string) {
	t.Helper()
	check(t, filepath.Join(Root(t), path), path, want, *update)
}

// check is Check on the file at file, shown as path.
func check(t testing.TB, file, path, want string, update bool) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err == nil && string(got) == want {
		return
	}
	if update {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale (or missing): regenerate the reference pages with\n  %s", path, Command)
}

// CheckSection is Check for the part of a hand-written page between the
// lines start and end.
func CheckSection(t testing.TB, path, start, end, body string) {
	t.Helper()
	file := filepath.Join(Root(t), path)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", path, start, end)
	}
	Check(t, path, s[:i+len(start)]+"\n"+body+s[j:])
}

// Cell escapes s for a markdown table cell.
func Cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// Code is s in backquotes, or "" for "".
func Code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// OptionRow is how a program's table presents one option: the columns an
// OptionsTable shares, and Origin, the column that compares it with the
// program Basalt replaces.
type OptionRow struct {
	Option cliconf.Option
	// Flags are the option's flags, "" for a program without flags
	// (basalt-privacy's configuration is a file and variables).
	Flags bool
	// Origin says where the option comes from and how it compares.
	Origin string
}

// OptionsTable writes a markdown table of options for a program whose
// environment variables start with prefixes.
func OptionsTable(rows []OptionRow, prefixes []string) string {
	var b strings.Builder
	b.WriteString("| option | environment | config-file key | default | what it does |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		o := r.Option
		var names []string
		if r.Flags {
			names = append(names, "`--"+o.Name+"`")
			if o.Shorthand != "" {
				names = append(names, "`-"+o.Shorthand+"`")
			}
			for _, a := range o.Aliases {
				names = append(names, "`--"+a+"`")
			}
		} else {
			names = append(names, "`"+o.Name+"`")
		}
		if o.Section != "" {
			names[0] = "`" + o.Section + "` " + names[0]
		}
		var envs []string
		for _, p := range prefixes {
			envs = append(envs, "`"+cliconf.EnvName(p, o.Section, o.Name)+"`")
		}
		key := cliconf.FileKey(o.Section, o.Name)
		def := Code(o.Default)
		if o.Hidden {
			names[0] += " (hidden)"
		}
		origin := r.Origin
		if o.Usage != "" {
			if origin != "" {
				origin += ": "
			}
			origin += o.Usage
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s |\n", strings.Join(names, ", "), strings.Join(envs, ", "), key, Cell(def), Cell(origin))
	}
	return b.String()
}
