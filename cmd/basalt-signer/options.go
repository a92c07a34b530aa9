package main

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
	"github.com/basaltchain/basalt/signer/tessera"
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

// options lists every option of basalt-signer and how each sets config; a
// key store's options have its subcommand as Section. Values are checked by
// Set, whatever their source. A default that a constructor also applies to
// a zero field (downstream.New, keys.LoadVaultKey) is written from that
// package's constant, so that defaults() and the constructor agree.
var options = cliconf.Table[config]{
	{Option: cliconf.Option{Name: "chain-id", Type: "int", Usage: "The chain ID transactions are signed for (required)"},
		Set: trimmed(func(c *config, s string) error {
			if s == "" {
				return cliconf.ErrRequired
			}
			n, ok := new(big.Int).SetString(s, 10)
			if !ok || n.Sign() <= 0 {
				return errors.New("want a positive decimal integer")
			}
			c.ChainID = n
			return nil
		})},
	{Option: cliconf.Option{Name: "downstream-http-host", Type: "host", Default: "127.0.0.1", Usage: "Host of the node requests are forwarded to"},
		Set: trimmed(func(c *config, s string) error { c.DownstreamHost = s; return required(s) })},
	{Option: cliconf.Option{Name: "downstream-http-port", Type: "port", Usage: "Port of the node requests are forwarded to (required)"},
		Set: trimmed(func(c *config, s string) (err error) {
			if s == "" {
				return cliconf.ErrRequired
			}
			c.DownstreamPort, err = port(s, false)
			return err
		})},
	{Option: cliconf.Option{Name: "downstream-http-path", Type: "path", Default: "/", Usage: "Path prefixed to every forwarded request"},
		Set: trimmed(func(c *config, s string) error {
			if s == "" {
				s = "/"
			}
			if strings.ContainsAny(s, "?#") {
				return errors.New("a path cannot hold a query or fragment")
			}
			c.DownstreamPath = s
			return nil
		})},
	{Option: cliconf.Option{Name: "downstream-http-request-timeout", Type: "ms", Default: millisText(downstream.DefaultTimeout), Usage: "Milliseconds the node may stay silent before a request fails (504)"},
		Set: trimmed(func(c *config, s string) (err error) { c.DownstreamTimeout, err = millis(s); return err })},
	{Option: cliconf.Option{Name: "tessera-url", Type: "url", Usage: "Tessera Q2T API of the node's privacy manager (basalt-privacy's q2tport), where the payloads of GoQuorum private transactions (eth_sendTransaction with privateFor) are stored; default none: privateFor is refused"},
		Set: trimmed(func(c *config, s string) error {
			if s == "" {
				c.TesseraURL = ""
				return nil
			}
			if _, err := tessera.ParseURL(s); err != nil {
				return err
			}
			c.TesseraURL = s
			return nil
		})},
	{Option: cliconf.Option{Name: "http-listen-host", Type: "host", Default: "127.0.0.1", Usage: "Host the JSON-RPC HTTP server listens on"},
		Set: trimmed(func(c *config, s string) error { c.ListenHost = s; return required(s) })},
	{Option: cliconf.Option{Name: "http-listen-port", Type: "port", Default: "8545", Usage: "Port the JSON-RPC HTTP server listens on (0: any free port)"},
		Set: trimmed(func(c *config, s string) (err error) { c.ListenPort, err = port(s, true); return err })},
	{Option: cliconf.Option{Name: "http-cors-origins", Kind: cliconf.List, Type: "list", Usage: "Comma-separated origins allowed to make cross-origin requests; \"*\" or \"all\" for any (default none)"},
		Set: trimmed(func(c *config, s string) error {
			c.CORSOrigins = cliconf.SplitList(s)
			if len(c.CORSOrigins) == 1 && strings.EqualFold(c.CORSOrigins[0], "none") {
				c.CORSOrigins = nil
			}
			return nil
		})},
	{Option: cliconf.Option{Name: "http-host-allowlist", Kind: cliconf.List, Type: "list", Default: strings.Join(httpmw.DefaultHosts, ","), Usage: "Comma-separated Host header values accepted; \"*\" for any"},
		Set: trimmed(func(c *config, s string) error { c.HostAllowlist = hostList(s); return nil })},
	{Option: cliconf.Option{Name: "data-path", Type: "dir", Usage: "Directory where the listening port is written (ethsigner.ports) while the signer runs"},
		Set: trimmed(func(c *config, s string) error { c.DataPath = s; return nil })},
	{Option: cliconf.Option{Name: "logging", Type: "level", Shorthand: "l", Default: "INFO", Usage: "Logging verbosity: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE or ALL"},
		Set: trimmed(func(c *config, s string) error {
			u := strings.ToUpper(s)
			if u == "OFF" {
				c.LogOff = true
				return nil
			}
			l, ok := logLevels[u]
			if !ok {
				return errors.New("want one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL")
			}
			c.LogLevel, c.LogOff = l, false
			return nil
		})},
	{Option: cliconf.Option{Name: "metrics-enabled", Kind: cliconf.Bool, Default: "false", Usage: "Serve Prometheus metrics at GET /metrics on --metrics-host:--metrics-port"},
		Set: trimmed(func(c *config, s string) (err error) { c.MetricsEnabled, err = cliconf.ParseBool(s); return err })},
	{Option: cliconf.Option{Name: "metrics-host", Type: "host", Default: "127.0.0.1", Usage: "Host the metrics service listens on"},
		Set: trimmed(func(c *config, s string) error { c.MetricsHost = s; return required(s) })},
	{Option: cliconf.Option{Name: "metrics-port", Type: "port", Default: "9546", Usage: "Port the metrics service listens on (0: any free port)"},
		Set: trimmed(func(c *config, s string) (err error) { c.MetricsPort, err = port(s, true); return err })},
	{Option: cliconf.Option{Name: "metrics-category", Kind: cliconf.List, Type: "list", Usage: "Comma-separated metric categories to keep (default all): HTTP, SIGNING, JVM, PROCESS"},
		Set: trimmed(func(c *config, s string) (err error) {
			c.MetricsCategories, err = metrics.ParseCategories(metrics.SignerCategories, cliconf.SplitList(s))
			return err
		})},
	{Option: cliconf.Option{Name: "metrics-host-allowlist", Kind: cliconf.List, Type: "list", Default: strings.Join(httpmw.DefaultHosts, ","), Usage: "Comma-separated Host header values the metrics service accepts; \"*\" for any"},
		Set: trimmed(func(c *config, s string) error { c.MetricsHostAllowlist = hostList(s); return nil })},
	{Option: cliconf.Option{Name: optConfigFile, Type: "file", Usage: "TOML config file: option names as keys, a key store's options in a table named after it ([file-based-signer] key-file = ...)"}},

	{Option: cliconf.Option{Section: cmdFileBased, Name: "key-file", Type: "file", Shorthand: "k", Usage: "V3 keystore file of the signing key (required)"},
		Set: trimmed(func(c *config, s string) error { c.KeyFile = s; return required(s) })},
	{Option: cliconf.Option{Section: cmdFileBased, Name: "password-file", Type: "file", Shorthand: "p", Usage: "File holding the keystore's password: its first line, or else its whole content (required)"},
		Set: trimmed(func(c *config, s string) error { c.PasswordFile = s; return required(s) })},

	{Option: cliconf.Option{Section: cmdMultikey, Name: "directory", Type: "dir", Shorthand: "d", Usage: "Directory of <address>.toml key files, read again while the signer runs (required)"},
		Set: trimmed(func(c *config, s string) error { c.Directory = s; return required(s) })},

	{Option: cliconf.Option{Section: cmdHashicorp, Name: "host", Type: "host", Default: keys.DefaultVaultHost, Usage: "Host of the Vault server"},
		Set: trimmed(func(c *config, s string) error { c.Vault.Host = s; return required(s) })},
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "port", Type: "port", Default: strconv.Itoa(keys.DefaultVaultPort), Usage: "Port of the Vault server"},
		Set: trimmed(func(c *config, s string) (err error) { c.Vault.Port, err = port(s, false); return err })},
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "timeout", Type: "ms", Default: millisText(keys.DefaultVaultTimeout), Usage: "Milliseconds to wait for the Vault server"},
		Set: trimmed(func(c *config, s string) (err error) { c.Vault.Timeout, err = millis(s); return err })},
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "auth-file", Type: "file", Usage: "File holding the Vault token (required)"},
		Set: trimmed(func(c *config, s string) error { c.Vault.AuthFile = s; return required(s) })},
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "signing-key-path", Type: "path", Default: keys.DefaultVaultKeyPath, Usage: "HTTP path of the KV v2 secret whose \"value\" is the hex signing key"},
		Set: trimmed(func(c *config, s string) error { c.Vault.SigningKeyPath = s; return required(s) })},
	// A string, not a cliconf.Bool: EthSigner takes the value as a separate
	// argument (--tls-enabled false).
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "tls-enabled", Type: "bool", Default: "true", Usage: "Connect to Vault over TLS (true or false)"},
		Set: trimmed(func(c *config, s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return errors.New("want true or false")
			}
			c.Vault.TLSEnabled = b
			return nil
		})},
	{Option: cliconf.Option{Section: cmdHashicorp, Name: "tls-known-server-file", Type: "file", Usage: "File of \"<host>:<port> <SHA-256 fingerprint>\" lines pinning Vault's certificate (default: check it against the system's CAs)"},
		Set: trimmed(func(c *config, s string) error { c.Vault.TLSKnownServerFile = s; return nil })},

	{Option: cliconf.Option{Section: cmdRaw, Name: "key", Type: "hex", Usage: "Hex private key (tests and dev networks only: it shows in the process list)"},
		Set: trimmed(func(c *config, s string) error { c.RawKey = s; return required(s) })},
}

// defaults is the configuration of a run given no option: the options'
// defaults, the one place each is written.
func defaults() *config {
	c := &config{}
	if err := options.Defaults(c); err != nil {
		panic(err) // a mistake in the table; TestDefaults catches it
	}
	return c
}

// trimmed passes set the value's text without surrounding spaces.
func trimmed(set func(c *config, s string) error) func(*config, cliconf.Value) error {
	return func(c *config, v cliconf.Value) error { return set(c, strings.TrimSpace(v.Text)) }
}

// required is cliconf.ErrRequired for an empty value.
func required(s string) error {
	if s == "" {
		return cliconf.ErrRequired
	}
	return nil
}

// hostList reads a Host allowlist; empty is an empty list (no Host
// accepted), not nil.
func hostList(s string) []string {
	l := cliconf.SplitList(s)
	if l == nil {
		l = []string{}
	}
	return l
}

// millisText writes d as the milliseconds an option takes.
func millisText(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// newSpec returns the loader's description of basalt-signer: its options,
// ETHSIGNER_ variables (an empty one counts as unset) and --config-file,
// whose values may be any TOML scalar written as on the command line.
func newSpec() *cliconf.Spec {
	return &cliconf.Spec{Options: options.Options(), EnvPrefixes: []string{EnvPrefix}, FileOption: optConfigFile}
}

// addFlags registers the options of command ("" for the global ones) on fs.
func addFlags(fs *pflag.FlagSet, command string) {
	cliconf.AddFlags(fs, options.Section(command)...)
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
