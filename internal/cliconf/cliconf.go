// Package cliconf is the one configuration loader of Basalt's programs
// (basalt, basalt-signer, basalt-privacy). Each program describes its options
// once, in a Spec, and gets every option's value from, in order of
// precedence, the command line, the environment, a TOML config file and the
// option's default, as Besu does:
//
//	flag        --rpc-http-port=8545     (AddFlags registers it; aliases are hidden flags)
//	environment BASALT_RPC_HTTP_PORT     (a prefix of the Spec + the name upper-cased, dashes as underscores)
//	file        rpc-http-port = 8545     (unknown keys and values of the wrong TOML type are an error naming the file)
//	default     Option.Default
//
// Load reads the config file (named by the Spec's FileOption, like Besu's
// --config-file, or given by the program, like Orion's positional argument)
// and returns Values; Values.Get resolves one option and says where its
// value came from, so that the program's own checks can name the flag and the
// source in one line (Value.Invalid). Values are kept as the text a user would
// type on the command line (lists comma-separated), so a program checks every
// option the same way whatever its source.
//
// Each program declares its options in one shape, a Table of Bindings: an
// Option beside the Set that checks a value and puts it in the program's
// configuration. The Option's Default is the only place a default is
// written: help prints it, Values.Get falls back to it, and Table.Defaults
// runs it through Set to make the program's Defaults().
//
// What differs between the programs is data in the Spec, not code: the
// environment prefixes (BASALT_; ETHSIGNER_; BASALT_PRIVACY_ then ORION_),
// whether an empty environment variable counts (Orion) or not (Besu,
// EthSigner), whether file values must have their option's TOML type (Orion's
// schema) or may be any scalar written as on the command line (Besu,
// EthSigner), and options that belong to a subcommand (EthSigner's key
// stores: flag on the subcommand, ETHSIGNER_<SUBCOMMAND>_<NAME>, file key
// <subcommand>.<name> or a [subcommand] table).
//
// Unknown config-file keys are found in one place (Spec.readFile) and
// reported together in a *FileError, each with the closest known key when
// one is close ("did you mean", see Suggest); FlagError adds the same to
// pflag's unknown-flag error, and Spec.UnknownEnv lists the variables with
// the Spec's prefixes that name no option. A renamed option is an Option
// alias, accepted everywhere and hidden in help; an option a program accepts
// without acting on it is an ordinary Option (the program says at start-up
// what it does instead), so it too works from every source.
package cliconf

import (
	"fmt"
	"strings"
)

// Kind is how an option's value is written.
type Kind int

const (
	// String is one value. In a lenient file (see Spec.StrictFileTypes)
	// any TOML string, number or boolean is accepted.
	String Kind = iota
	// Bool is true or false; the flag alone (--miner-enabled) means true.
	Bool
	// Int is an integer; it differs from String only in a strict file,
	// where the TOML value must be an integer.
	Int
	// List is comma-separated on the command line and in the environment, a
	// TOML array (or, in a lenient file, a comma-separated string) in the
	// file. A repeated list flag accumulates.
	List
)

// Option describes one option: its flag, environment variables and
// config-file key at once.
type Option struct {
	// Name is the flag without its dashes and the config-file key
	// ("rpc-http-port"); upper-cased with underscores it ends the
	// environment variable.
	Name string
	// Section is the subcommand the option belongs to, "" for a program-wide
	// option. A section's option is a flag of the subcommand, the variable
	// <PREFIX><SECTION>_<NAME> and the file key <section>.<name> (a dotted
	// key or a key of the [section] table).
	Section string
	// Aliases are other names (older Besu spellings) accepted as flags,
	// variables and file keys; their flags are hidden in help.
	Aliases []string
	// Shorthand is the one-letter flag, "" for none.
	Shorthand string
	// Kind says how the value is written.
	Kind Kind
	// Type names the value in help (--rpc-http-port port).
	Type string
	// Default is the value when no source gives one, written as on the
	// command line.
	Default string
	// Usage is the help text.
	Usage string
	// Hidden leaves the flag out of help (Besu's --X options); it still
	// works from every source.
	Hidden bool
}

// names returns the option's name followed by its aliases.
func (o Option) names() []string { return append([]string{o.Name}, o.Aliases...) }

// FileKey returns the config-file key of an option name: the name, or
// <section>.<name> for a subcommand's option. Values.Get takes it.
func FileKey(section, name string) string {
	if section == "" {
		return name
	}
	return section + "." + name
}

// EnvName returns the environment variable of an option name with prefix,
// e.g. ("BASALT_", "", "rpc-http-port") -> "BASALT_RPC_HTTP_PORT" and
// ("ETHSIGNER_", "file-based-signer", "key-file") ->
// "ETHSIGNER_FILE_BASED_SIGNER_KEY_FILE".
func EnvName(prefix, section, name string) string {
	if section != "" {
		name = section + "-" + name
	}
	return prefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Spec is one program's set of options and the conventions of its
// environment and config file.
type Spec struct {
	// Options are every option of the program.
	Options []Option
	// EnvPrefixes start the environment variables of every option; when
	// variables with several prefixes are set, the first prefix wins
	// (BASALT_PRIVACY_NODEPORT over ORION_NODEPORT).
	EnvPrefixes []string
	// EmptyEnvSets makes a variable set to the empty string a value (Orion:
	// ORION_OTHERNODES= empties the file's list). Otherwise it counts as
	// unset (Besu, EthSigner).
	EmptyEnvSets bool
	// StrictFileTypes requires each file value to have its option's TOML
	// type, as Orion's config schema does: a string for String, an integer
	// for Int, a boolean for Bool, an array of strings for List. Otherwise
	// any string, number or boolean is read as written on the command line,
	// and a List also takes a comma-separated string (Besu, EthSigner).
	StrictFileTypes bool
	// FileOption is the option whose value names the config file (Besu's
	// and EthSigner's config-file). It comes from the command line or the
	// environment only; the file cannot set it. "" when the program names the
	// file itself (Sources.File).
	FileOption string
}

// index maps every file key of every option, aliases included, to its
// option.
func (s *Spec) index() map[string]*Option {
	m := make(map[string]*Option, len(s.Options))
	for i := range s.Options {
		o := &s.Options[i]
		for _, n := range o.names() {
			k := FileKey(o.Section, n)
			if _, dup := m[k]; dup {
				panic(fmt.Sprintf("cliconf: option %q declared twice", k))
			}
			m[k] = o
		}
	}
	return m
}

// sections returns the set of the options' sections.
func (s *Spec) sections() map[string]bool {
	m := map[string]bool{}
	for _, o := range s.Options {
		if o.Section != "" {
			m[o.Section] = true
		}
	}
	return m
}
