package cliconf

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Sources are where Load looks for values.
type Sources struct {
	// Flags are the parsed flags of the command being run (cobra's
	// cmd.Flags(), which holds the inherited persistent flags too); nil
	// when the program has no option flags.
	Flags *pflag.FlagSet
	// LookupEnv reads the environment (os.LookupEnv); nil for none.
	LookupEnv func(string) (string, bool)
	// File is the config file ("" for none) of a program whose Spec has no
	// FileOption, such as Orion's positional argument.
	File string
}

// Values are the options of one run, resolved on demand by Get.
type Values struct {
	spec      *Spec
	byKey     map[string]*Option
	flags     *pflag.FlagSet
	lookupEnv func(string) (string, bool)
	file      map[string]fileValue
	path      string
}

// Load reads the config file, if one is named, and returns the values of
// the options of s. The file is named by the FileOption's flag or
// environment variable, or else by src.File. A problem with the file is a
// *FileError; values themselves are checked by the program (see Value).
func (s *Spec) Load(src Sources) (*Values, error) {
	v := &Values{spec: s, byKey: s.index(), flags: src.Flags, lookupEnv: src.LookupEnv}
	path := src.File
	if s.FileOption != "" {
		path = v.Get(s.FileOption).Text // no file yet: the command line or the environment
	}
	if path != "" {
		file, err := s.readFile(path, v.byKey)
		if err != nil {
			return nil, err
		}
		v.file, v.path = file, path
	}
	return v, nil
}

// File returns the path of the config file read, "" when none was.
func (v *Values) File() string { return v.path }

// Get returns the value of the option whose file key is key (its name, or
// <section>.<name>; an alias works too) from the highest-precedence source:
// the command line, the environment, the config file, the default. Each
// source is tried under the option's name, then each alias. Get panics if
// no option has the key: that is a mistake in the program.
func (v *Values) Get(key string) Value {
	o, ok := v.byKey[key]
	if !ok {
		panic(fmt.Sprintf("cliconf: no option %q", key))
	}
	val := Value{flag: "--" + o.Name}
	names := o.names()
	if v.flags != nil {
		for _, n := range names {
			if f := v.flags.Lookup(n); f != nil && f.Changed {
				val.Text, val.Source = f.Value.String(), Source{Kind: FromFlag, Name: "--" + n}
				return val
			}
		}
	}
	if v.lookupEnv != nil {
		for _, prefix := range v.spec.EnvPrefixes {
			for _, n := range names {
				name := EnvName(prefix, o.Section, n)
				if s, ok := v.lookupEnv(name); ok && (s != "" || v.spec.EmptyEnvSets) {
					val.Text, val.Source = s, Source{Kind: FromEnv, Name: name}
					return val
				}
			}
		}
	}
	for _, n := range names {
		k := FileKey(o.Section, n)
		if fv, ok := v.file[k]; ok {
			val.Text, val.items, val.Source = fv.text, fv.items, Source{Kind: FromFile, Name: k, File: v.path}
			return val
		}
	}
	val.Text = o.Default
	return val
}

// Value is one option's value and where it came from.
type Value struct {
	// Text is the value as it would be written on the command line; a
	// list's items are joined by commas.
	Text string
	// Source is where Text came from.
	Source Source

	flag  string   // "--" + the option's name, for messages
	items []string // a list's items from a TOML array, exactly
}

// List returns a List option's items: the elements of a TOML array as
// written, or else Text split at commas with spaces trimmed and empty items
// dropped.
func (v Value) List() []string {
	if v.items != nil {
		return append([]string{}, v.items...)
	}
	return SplitList(v.Text)
}

// Invalid returns the error for a value that check rejected, naming the
// flag and the source, Besu's way:
//
//	invalid value "abc" for --rpc-http-port (from environment variable BASALT_RPC_HTTP_PORT): expected a port number
func (v Value) Invalid(err error) error {
	return fmt.Errorf("invalid value %q for %s%s: %w", v.Text, v.flag, v.Source.describe(), err)
}

// Required returns the error for a required option left empty: "--chain-id
// is required", naming the source when the empty value came from one.
func (v Value) Required() error {
	return fmt.Errorf("%s is required%s", v.flag, v.Source.describe())
}

// SourceKind says which source a value came from.
type SourceKind int

// The sources, from the lowest precedence.
const (
	FromDefault SourceKind = iota
	FromFile
	FromEnv
	FromFlag
)

// Source is where a value came from.
type Source struct {
	Kind SourceKind
	// Name is the flag ("--host-whitelist"), environment variable
	// ("BASALT_RPC_HTTP_PORT") or file key ("rpc-http-port") as given; ""
	// for the default.
	Name string
	// File is the config file, for FromFile.
	File string
}

// describe is the source in a message about a value: nothing for the
// command line (the user sees what they typed) and the default.
func (s Source) describe() string {
	switch s.Kind {
	case FromEnv:
		return " (from environment variable " + s.Name + ")"
	case FromFile:
		return fmt.Sprintf(" (from %q in config file %s)", s.Name, s.File)
	}
	return ""
}
