package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// EnvPrefix starts the environment variable of every option, as in
// EthSigner: ETHSIGNER_<OPTION> for global options and
// ETHSIGNER_<SUBCOMMAND>_<OPTION> for a key store's, with dashes as
// underscores and upper case (ETHSIGNER_CHAIN_ID,
// ETHSIGNER_FILE_BASED_SIGNER_KEY_FILE).
const EnvPrefix = "ETHSIGNER_"

// Key store subcommands.
const (
	cmdFileBased = "file-based-signer"
	cmdMultikey  = "multikey-signer"
	cmdHashicorp = "hashicorp-signer"
	cmdRaw       = "raw-signer"
)

const optConfigFile = "config-file"

// option is one command-line option. Values are kept as strings and
// checked in one place (loadConfig), whatever their source.
type option struct {
	command   string // "" for a global option, else the subcommand
	name      string
	shorthand string
	typ       string // shown in --help
	def       string
	usage     string
}

// options lists every option of basalt-signer.
var options = []option{
	{name: "chain-id", typ: "int", usage: "The chain ID transactions are signed for (required)"},
	{name: "downstream-http-host", typ: "host", def: "127.0.0.1", usage: "Host of the node requests are forwarded to"},
	{name: "downstream-http-port", typ: "port", usage: "Port of the node requests are forwarded to (required)"},
	{name: "downstream-http-path", typ: "path", def: "/", usage: "Path prefixed to every forwarded request"},
	{name: "downstream-http-request-timeout", typ: "ms", def: "5000", usage: "Milliseconds the node may stay silent before a request fails (504)"},
	{name: "http-listen-host", typ: "host", def: "127.0.0.1", usage: "Host the JSON-RPC HTTP server listens on"},
	{name: "http-listen-port", typ: "port", def: "8545", usage: "Port the JSON-RPC HTTP server listens on (0: any free port)"},
	{name: "http-cors-origins", typ: "list", usage: "Comma-separated origins allowed to make cross-origin requests; \"*\" or \"all\" for any (default none)"},
	{name: "http-host-allowlist", typ: "list", def: "localhost,127.0.0.1", usage: "Comma-separated Host header values accepted; \"*\" for any"},
	{name: "data-path", typ: "dir", usage: "Directory where the listening port is written (ethsigner.ports) while the signer runs"},
	{name: "logging", typ: "level", shorthand: "l", def: "INFO", usage: "Logging verbosity: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE or ALL"},
	{name: optConfigFile, typ: "file", usage: "TOML config file: option names as keys, a key store's options in a table named after it ([file-based-signer] key-file = ...)"},

	{command: cmdFileBased, name: "key-file", typ: "file", shorthand: "k", usage: "V3 keystore file of the signing key (required)"},
	{command: cmdFileBased, name: "password-file", typ: "file", shorthand: "p", usage: "File holding the keystore's password: its first line, or else its whole content (required)"},

	{command: cmdMultikey, name: "directory", typ: "dir", shorthand: "d", usage: "Directory of <address>.toml key files, read again while the signer runs (required)"},

	{command: cmdHashicorp, name: "host", typ: "host", def: "localhost", usage: "Host of the Vault server"},
	{command: cmdHashicorp, name: "port", typ: "port", def: "8200", usage: "Port of the Vault server"},
	{command: cmdHashicorp, name: "timeout", typ: "ms", def: "10000", usage: "Milliseconds to wait for the Vault server"},
	{command: cmdHashicorp, name: "auth-file", typ: "file", usage: "File holding the Vault token (required)"},
	{command: cmdHashicorp, name: "signing-key-path", typ: "path", def: "/v1/secret/data/ethsignerSigningKey", usage: "HTTP path of the KV v2 secret whose \"value\" is the hex signing key"},
	{command: cmdHashicorp, name: "tls-enabled", typ: "bool", def: "true", usage: "Connect to Vault over TLS (true or false)"},
	{command: cmdHashicorp, name: "tls-known-server-file", typ: "file", usage: "File of \"<host>:<port> <SHA-256 fingerprint>\" lines pinning Vault's certificate (default: check it against the system's CAs)"},

	{command: cmdRaw, name: "key", typ: "hex", usage: "Hex private key (tests and dev networks only: it shows in the process list)"},
}

// envName is the environment variable of an option.
func (o option) envName() string {
	n := o.name
	if o.command != "" {
		n = o.command + "-" + n
	}
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))
}

// fileKey is the option's key in the config file.
func (o option) fileKey() string {
	if o.command != "" {
		return o.command + "." + o.name
	}
	return o.name
}

// addFlags registers the options of command ("" for the global ones) on fs.
func addFlags(fs *pflag.FlagSet, command string) {
	for _, o := range options {
		if o.command != command {
			continue
		}
		fs.VarP(&stringValue{s: o.def, typ: o.typ}, o.name, o.shorthand, o.usage)
	}
}

// source tells where a value came from, for error messages.
type source struct {
	kind, name, file string
}

func (s source) describe() string {
	switch s.kind {
	case "env":
		return " (from environment variable " + s.name + ")"
	case "file":
		return fmt.Sprintf(" (from %q in config file %s)", s.name, s.file)
	}
	return ""
}

// values resolves options: the command line, then the environment, then
// the config file, then the default.
type values struct {
	flags     *pflag.FlagSet
	lookupEnv func(string) (string, bool)
	file      map[string]string
	fileName  string
}

// newValues reads the config file, if one is named, for cmd (the root or a
// key store subcommand).
func newValues(cmd *cobra.Command, lookupEnv func(string) (string, bool)) (*values, error) {
	v := &values{flags: cmd.Flags(), lookupEnv: lookupEnv}
	path, _ := v.get(option{name: optConfigFile})
	if path != "" {
		file, err := readConfigFile(path)
		if err != nil {
			return nil, err
		}
		v.file, v.fileName = file, path
	}
	return v, nil
}

// get returns the raw value of o and where it came from. An environment
// variable set to the empty string counts as unset.
func (v *values) get(o option) (string, source) {
	if f := v.flags.Lookup(o.name); f != nil && f.Changed {
		name := "--" + o.name
		return f.Value.String(), source{kind: "flag", name: name}
	}
	if s, ok := v.lookupEnv(o.envName()); ok && s != "" {
		return s, source{kind: "env", name: o.envName()}
	}
	if s, ok := v.file[o.fileKey()]; ok {
		return s, source{kind: "file", name: o.fileKey(), file: v.fileName}
	}
	return o.def, source{kind: "default"}
}

// readConfigFile reads a TOML config file into option keys ("chain-id",
// "file-based-signer.key-file") and string values. Unknown keys are an
// error, as in EthSigner.
func readConfigFile(path string) (map[string]string, error) {
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		return nil, fmt.Errorf("--%s %s: %v", optConfigFile, path, err)
	}
	known := map[string]bool{}
	commands := map[string]bool{}
	for _, o := range options {
		known[o.fileKey()] = true
		if o.command != "" {
			commands[o.command] = true
		}
	}
	out := map[string]string{}
	var bad []string
	var put func(prefix string, m map[string]any)
	put = func(prefix string, m map[string]any) {
		for k, val := range m {
			key := prefix + k
			if sub, ok := val.(map[string]any); ok && prefix == "" && commands[k] {
				put(k+".", sub)
				continue
			}
			if !known[key] || key == optConfigFile {
				bad = append(bad, key)
				continue
			}
			s, ok := tomlString(val)
			if !ok {
				bad = append(bad, key+" (not a string, number, boolean or list)")
				continue
			}
			out[key] = s
		}
	}
	put("", raw)
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("--%s %s: unknown or invalid keys: %s", optConfigFile, path, strings.Join(bad, ", "))
	}
	return out, nil
}

// tomlString renders a TOML value the way it would be given on the command
// line (lists comma-separated).
func tomlString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := tomlString(e)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}

// stringValue is a pflag.Value holding the option as given; typ names it in
// --help.
type stringValue struct{ s, typ string }

func (v *stringValue) String() string     { return v.s }
func (v *stringValue) Set(s string) error { v.s = s; return nil }
func (v *stringValue) Type() string       { return v.typ }
