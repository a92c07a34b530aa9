package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/basaltchain/basalt/internal/cliconf"
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

// options lists every option of basalt-signer; a key store's options have
// its subcommand as Section. Values are kept as strings and checked in one
// place (loadConfig), whatever their source.
var options = []cliconf.Option{
	{Name: "chain-id", Type: "int", Usage: "The chain ID transactions are signed for (required)"},
	{Name: "downstream-http-host", Type: "host", Default: "127.0.0.1", Usage: "Host of the node requests are forwarded to"},
	{Name: "downstream-http-port", Type: "port", Usage: "Port of the node requests are forwarded to (required)"},
	{Name: "downstream-http-path", Type: "path", Default: "/", Usage: "Path prefixed to every forwarded request"},
	{Name: "downstream-http-request-timeout", Type: "ms", Default: "5000", Usage: "Milliseconds the node may stay silent before a request fails (504)"},
	{Name: "http-listen-host", Type: "host", Default: "127.0.0.1", Usage: "Host the JSON-RPC HTTP server listens on"},
	{Name: "http-listen-port", Type: "port", Default: "8545", Usage: "Port the JSON-RPC HTTP server listens on (0: any free port)"},
	{Name: "http-cors-origins", Kind: cliconf.List, Type: "list", Usage: "Comma-separated origins allowed to make cross-origin requests; \"*\" or \"all\" for any (default none)"},
	{Name: "http-host-allowlist", Kind: cliconf.List, Type: "list", Default: "localhost,127.0.0.1", Usage: "Comma-separated Host header values accepted; \"*\" for any"},
	{Name: "data-path", Type: "dir", Usage: "Directory where the listening port is written (ethsigner.ports) while the signer runs"},
	{Name: "logging", Type: "level", Shorthand: "l", Default: "INFO", Usage: "Logging verbosity: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE or ALL"},
	{Name: "metrics-enabled", Kind: cliconf.Bool, Default: "false", Usage: "Serve Prometheus metrics at GET /metrics on --metrics-host:--metrics-port"},
	{Name: "metrics-host", Type: "host", Default: "127.0.0.1", Usage: "Host the metrics service listens on"},
	{Name: "metrics-port", Type: "port", Default: "9546", Usage: "Port the metrics service listens on (0: any free port)"},
	{Name: "metrics-category", Kind: cliconf.List, Type: "list", Usage: "Comma-separated metric categories to keep (default all): HTTP, SIGNING, JVM, PROCESS"},
	{Name: "metrics-host-allowlist", Kind: cliconf.List, Type: "list", Default: "localhost,127.0.0.1", Usage: "Comma-separated Host header values the metrics service accepts; \"*\" for any"},
	{Name: optConfigFile, Type: "file", Usage: "TOML config file: option names as keys, a key store's options in a table named after it ([file-based-signer] key-file = ...)"},

	{Section: cmdFileBased, Name: "key-file", Type: "file", Shorthand: "k", Usage: "V3 keystore file of the signing key (required)"},
	{Section: cmdFileBased, Name: "password-file", Type: "file", Shorthand: "p", Usage: "File holding the keystore's password: its first line, or else its whole content (required)"},

	{Section: cmdMultikey, Name: "directory", Type: "dir", Shorthand: "d", Usage: "Directory of <address>.toml key files, read again while the signer runs (required)"},

	{Section: cmdHashicorp, Name: "host", Type: "host", Default: "localhost", Usage: "Host of the Vault server"},
	{Section: cmdHashicorp, Name: "port", Type: "port", Default: "8200", Usage: "Port of the Vault server"},
	{Section: cmdHashicorp, Name: "timeout", Type: "ms", Default: "10000", Usage: "Milliseconds to wait for the Vault server"},
	{Section: cmdHashicorp, Name: "auth-file", Type: "file", Usage: "File holding the Vault token (required)"},
	{Section: cmdHashicorp, Name: "signing-key-path", Type: "path", Default: "/v1/secret/data/ethsignerSigningKey", Usage: "HTTP path of the KV v2 secret whose \"value\" is the hex signing key"},
	// A string, not a cliconf.Bool: EthSigner takes the value as a separate
	// argument (--tls-enabled false).
	{Section: cmdHashicorp, Name: "tls-enabled", Type: "bool", Default: "true", Usage: "Connect to Vault over TLS (true or false)"},
	{Section: cmdHashicorp, Name: "tls-known-server-file", Type: "file", Usage: "File of \"<host>:<port> <SHA-256 fingerprint>\" lines pinning Vault's certificate (default: check it against the system's CAs)"},

	{Section: cmdRaw, Name: "key", Type: "hex", Usage: "Hex private key (tests and dev networks only: it shows in the process list)"},
}

// newSpec returns the loader's description of basalt-signer: its options,
// ETHSIGNER_ variables (an empty one counts as unset) and --config-file,
// whose values may be any TOML scalar written as on the command line.
func newSpec() *cliconf.Spec {
	return &cliconf.Spec{Options: options, EnvPrefixes: []string{EnvPrefix}, FileOption: optConfigFile}
}

// addFlags registers the options of command ("" for the global ones) on fs.
func addFlags(fs *pflag.FlagSet, command string) {
	var opts []cliconf.Option
	for _, o := range options {
		if o.Section == command {
			opts = append(opts, o)
		}
	}
	cliconf.AddFlags(fs, opts...)
}

// fileError words the problems of a config file as basalt-signer always
// has: one sorted list of the keys, each wrongly typed one with the reason.
func fileError(err error) error {
	var fe *cliconf.FileError
	if !errors.As(err, &fe) || fe.Err != nil {
		return err
	}
	bad := append(append([]string{}, fe.Unknown...), fe.NotAllowed...)
	for _, k := range fe.Invalid {
		bad = append(bad, k.Key+" ("+k.Reason+")")
	}
	sort.Strings(bad)
	return fmt.Errorf("--%s %s: unknown or invalid keys: %s", optConfigFile, fe.Path, strings.Join(bad, ", "))
}
