package config

import (
	"sort"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// Markers around the generated table in docs/reference/configuration.md.
const (
	tableStart = "<!-- options table: generated from the option tables (flags.go, besu.go); regenerate with the command in docs/README.md -->"
	tableEnd   = "<!-- end of the options table -->"
)

// TestReferenceBesuOptions keeps docs/reference/configuration.md's table of
// every Besu option equal to the option tables it is written from, so the
// page cannot drift from the code; -update rewrites it.
func TestReferenceBesuOptions(t *testing.T) {
	docgen.CheckSection(t, "docs/reference/configuration.md", tableStart, tableEnd, optionTable())
}

// TestReferenceOptions writes docs/reference/options-basalt.md: every
// option of basalt from its option table, with its variables, config-file
// key, default and how it compares with Besu's.
func TestReferenceOptions(t *testing.T) {
	var rows []docgen.OptionRow
	for _, o := range options() {
		var origin string
		switch o.status {
		case acts:
			origin = "Besu's"
			if o.basalt != "" {
				origin += " (" + o.basalt + ")"
			}
		case own:
			origin = "Basalt's own"
		case differs:
			origin = "Besu's, accepted; " + o.basalt
		case pending:
			origin = "Besu's, accepted; " + o.basalt
		case refused:
			origin = "Besu's, " + o.basalt
		}
		rows = append(rows, docgen.OptionRow{Option: o.Option, Flags: true, Origin: origin})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return strings.ToLower(rows[i].Option.Name) < strings.ToLower(rows[j].Option.Name)
	})
	page := docgen.Header("Options of basalt", "config/flags.go and config/besu.go (the option table)") +
		"Every option of the node, in three forms: the flag, the environment variable (`BASALT_` or Besu's\n" +
		"`BESU_`; `BASALT_` wins) and the key of the TOML file given by `--config-file`. The command line\n" +
		"wins over the environment, which wins over the file ([how options are given](options.md)).\n" +
		"Aliases are older Besu spellings. Hidden options are left out of `basalt --help` (Besu's `--X`\n" +
		"options, and Besu options Basalt accepts without acting on them as Besu does: the last column says\n" +
		"what it does instead). Options of subcommands are in `basalt <subcommand> --help`.\n\n" +
		docgen.OptionsTable(rows, []string{EnvPrefix, BesuEnvPrefix})
	docgen.Check(t, "docs/reference/options-basalt.md", page)
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
