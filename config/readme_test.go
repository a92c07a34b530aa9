package config

import (
	"flag"
	"os"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite config/README.md's option table")

// Markers around the generated table in README.md.
const (
	tableStart = "<!-- options table: generated from the option tables (flags.go, besu.go) by `go test ./config -run TestReadmeOptionTable -update` -->"
	tableEnd   = "<!-- end of the options table -->"
)

// TestReadmeOptionTable keeps config/README.md's table of every option
// equal to the option tables it is written from, so the README cannot
// drift from the code; -update rewrites it.
func TestReadmeOptionTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q ... %q", tableStart, tableEnd)
	}
	want := s[:i+len(tableStart)] + "\n" + optionTable() + s[j:]
	if want == s {
		return
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("config/README.md's option table is out of date: run go test ./config -run TestReadmeOptionTable -update")
}

// optionTable writes the table: every option with Besu's default and what
// Basalt does, then Besu's unstable options in one paragraph.
func optionTable() string {
	type row struct{ name, line string }
	var rows []row
	var unstable []string
	for _, o := range options() {
		if o.Hidden && o.status == differs && strings.HasPrefix(o.Name, "X") {
			unstable = append(unstable, "`--"+o.Name+"`")
			continue
		}
		name := "`--" + o.Name + "`"
		for _, a := range o.Aliases {
			name += ", `--" + a + "`"
		}
		def := ""
		if o.Default != "" {
			def = "`" + o.Default + "`"
		}
		var what string
		switch o.status {
		case acts:
			what = "✅ " + o.Usage
			if o.basalt != "" {
				what += "; " + o.basalt
			}
		case own:
			what = "➕ Basalt's own: " + o.Usage
		case differs:
			what = "≈ " + o.basalt
		case pending:
			what = "⏳ " + o.basalt
		case refused:
			what = "⛔ " + o.basalt
		}
		rows = append(rows, row{o.Name, "| " + name + " | " + def + " | " + strings.ReplaceAll(what, "|", "\\|") + " |"})
	}
	rows = append(rows,
		row{"help", "| `--help`, `-h` |  | ✅ Print the options and exit |"},
		row{"version", "| `--version`, `-V` |  | ✅ Print the version (`basalt/<version>/<os>-<arch>/<go version>`) and exit |"},
		row{"Xhelp", "| `--Xhelp`, `-X` |  | ✅ Print the hidden options Basalt acts on and exit |"})
	sort.Slice(rows, func(i, j int) bool { return strings.ToLower(rows[i].name) < strings.ToLower(rows[j].name) })
	var b strings.Builder
	b.WriteString("| option | default | in Basalt |\n|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r.line + "\n")
	}
	sort.Slice(unstable, func(i, j int) bool { return strings.ToLower(unstable[i]) < strings.ToLower(unstable[j]) })
	b.WriteString("\nBesu's unstable options, accepted (hidden) with a start-up line and no effect: " +
		strings.Join(unstable, ", ") + ".\n")
	return b.String()
}
