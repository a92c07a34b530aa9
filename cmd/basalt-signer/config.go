package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/signer/keys"
)

// config is basalt-signer's configuration, validated once at start-up.
type config struct {
	ChainID           *big.Int
	DownstreamHost    string
	DownstreamPort    int
	DownstreamPath    string
	DownstreamTimeout time.Duration
	ListenHost        string
	ListenPort        int
	CORSOrigins       []string
	HostAllowlist     []string
	DataPath          string
	LogLevel          slog.Level
	LogOff            bool

	// Metrics options (EthSigner's --metrics-*).
	MetricsEnabled       bool
	MetricsHost          string
	MetricsPort          int
	MetricsCategories    []metrics.Category
	MetricsHostAllowlist []string

	// Store is the key store subcommand.
	Store        string
	KeyFile      string
	PasswordFile string
	Directory    string
	Vault        keys.VaultConfig
	RawKey       string
}

var errRequired = errors.New("required")

// logLevels maps --logging values (Log4j's, as EthSigner has them) to slog.
var logLevels = map[string]slog.Level{
	"FATAL": slog.LevelError,
	"ERROR": slog.LevelError,
	"WARN":  slog.LevelWarn,
	"INFO":  slog.LevelInfo,
	"DEBUG": slog.LevelDebug,
	"TRACE": slog.LevelDebug - 4,
	"ALL":   slog.LevelDebug - 4,
}

// loadConfig reads and checks every option of store ("" when no key store
// subcommand was given) for cmd. Errors name the option and where its value
// came from.
func loadConfig(cmd *cobra.Command, store string, lookupEnv func(string) (string, bool)) (*config, error) {
	v, err := newSpec().Load(cliconf.Sources{Flags: cmd.Flags(), LookupEnv: lookupEnv})
	if err != nil {
		return nil, fileError(err)
	}
	c := &config{Store: store}
	var errs []error
	// each runs parse on the value of the option named name.
	each := func(command, name string, parse func(string) error) {
		val := v.Get(cliconf.FileKey(command, name))
		if err := parse(strings.TrimSpace(val.Text)); errors.Is(err, errRequired) {
			errs = append(errs, val.Required())
		} else if err != nil {
			errs = append(errs, val.Invalid(err))
		}
	}
	required := func(s string) error {
		if s == "" {
			return errRequired
		}
		return nil
	}

	each("", "chain-id", func(s string) error {
		if err := required(s); err != nil {
			return err
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok || n.Sign() <= 0 {
			return errors.New("want a positive decimal integer")
		}
		c.ChainID = n
		return nil
	})
	each("", "downstream-http-host", func(s string) error {
		c.DownstreamHost = s
		return required(s)
	})
	each("", "downstream-http-port", func(s string) error {
		if err := required(s); err != nil {
			return err
		}
		p, err := port(s, false)
		c.DownstreamPort = p
		return err
	})
	each("", "downstream-http-path", func(s string) error {
		if s == "" {
			s = "/"
		}
		if strings.ContainsAny(s, "?#") {
			return errors.New("a path cannot hold a query or fragment")
		}
		c.DownstreamPath = s
		return nil
	})
	each("", "downstream-http-request-timeout", func(s string) error {
		d, err := millis(s)
		c.DownstreamTimeout = d
		return err
	})
	each("", "http-listen-host", func(s string) error {
		c.ListenHost = s
		return required(s)
	})
	each("", "http-listen-port", func(s string) error {
		p, err := port(s, true)
		c.ListenPort = p
		return err
	})
	each("", "http-cors-origins", func(s string) error {
		c.CORSOrigins = cliconf.SplitList(s)
		if len(c.CORSOrigins) == 1 && strings.EqualFold(c.CORSOrigins[0], "none") {
			c.CORSOrigins = nil
		}
		return nil
	})
	each("", "http-host-allowlist", func(s string) error {
		c.HostAllowlist = cliconf.SplitList(s)
		if c.HostAllowlist == nil {
			c.HostAllowlist = []string{}
		}
		return nil
	})
	each("", "data-path", func(s string) error { c.DataPath = s; return nil })
	each("", "metrics-enabled", func(s string) (err error) { c.MetricsEnabled, err = cliconf.ParseBool(s); return err })
	each("", "metrics-host", func(s string) error { c.MetricsHost = s; return required(s) })
	each("", "metrics-port", func(s string) (err error) { c.MetricsPort, err = port(s, true); return err })
	each("", "metrics-category", func(s string) (err error) {
		c.MetricsCategories, err = metrics.ParseCategories(metrics.SignerCategories, cliconf.SplitList(s))
		return err
	})
	each("", "metrics-host-allowlist", func(s string) error {
		c.MetricsHostAllowlist = cliconf.SplitList(s)
		if c.MetricsHostAllowlist == nil {
			c.MetricsHostAllowlist = []string{}
		}
		return nil
	})
	each("", "logging", func(s string) error {
		u := strings.ToUpper(s)
		if u == "OFF" {
			c.LogOff = true
			return nil
		}
		l, ok := logLevels[u]
		if !ok {
			return errors.New("want one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL")
		}
		c.LogLevel = l
		return nil
	})

	switch store {
	case cmdFileBased:
		each(store, "key-file", func(s string) error { c.KeyFile = s; return required(s) })
		each(store, "password-file", func(s string) error { c.PasswordFile = s; return required(s) })
	case cmdMultikey:
		each(store, "directory", func(s string) error { c.Directory = s; return required(s) })
	case cmdHashicorp:
		vc := &c.Vault
		each(store, "host", func(s string) error { vc.Host = s; return required(s) })
		each(store, "port", func(s string) error {
			p, err := port(s, false)
			vc.Port = p
			return err
		})
		each(store, "timeout", func(s string) error {
			d, err := millis(s)
			vc.Timeout = d
			return err
		})
		each(store, "auth-file", func(s string) error { vc.AuthFile = s; return required(s) })
		each(store, "signing-key-path", func(s string) error { vc.SigningKeyPath = s; return required(s) })
		each(store, "tls-enabled", func(s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return errors.New("want true or false")
			}
			vc.TLSEnabled = b
			return nil
		})
		each(store, "tls-known-server-file", func(s string) error { vc.TLSKnownServerFile = s; return nil })
	case cmdRaw:
		each(store, "key", func(s string) error { c.RawKey = s; return required(s) })
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	if store == "" {
		return nil, fmt.Errorf("no key store: run basalt-signer with one of %s, %s or %s", cmdFileBased, cmdMultikey, cmdHashicorp)
	}
	if c.MetricsEnabled && sameEndpoint(c.MetricsHost, c.MetricsPort, c.ListenHost, c.ListenPort) {
		return nil, fmt.Errorf("--metrics-host:--metrics-port (%s) must differ from --http-listen-host:--http-listen-port",
			net.JoinHostPort(c.MetricsHost, strconv.Itoa(c.MetricsPort)))
	}
	if sameEndpoint(c.ListenHost, c.ListenPort, c.DownstreamHost, c.DownstreamPort) {
		return nil, fmt.Errorf("--http-listen-host:--http-listen-port (%s) must differ from --downstream-http-host:--downstream-http-port",
			net.JoinHostPort(c.ListenHost, strconv.Itoa(c.ListenPort)))
	}
	return c, nil
}

func port(s string, zeroOK bool) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 0 || p > 65535 || (p == 0 && !zeroOK) {
		return 0, errors.New("want a TCP port number")
	}
	return p, nil
}

func millis(s string) (time.Duration, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > int64(24*time.Hour/time.Millisecond) {
		return 0, errors.New("want a positive number of milliseconds")
	}
	return time.Duration(n) * time.Millisecond, nil
}

// sameEndpoint reports whether the signer would listen where it forwards.
func sameEndpoint(h1 string, p1 int, h2 string, p2 int) bool {
	if p1 != p2 || p1 == 0 {
		return false
	}
	norm := func(h string) string {
		h = strings.ToLower(strings.Trim(h, "[]"))
		if h == "localhost" {
			return "127.0.0.1"
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			return "127.0.0.1"
		}
		return h
	}
	n1, n2 := norm(h1), norm(h2)
	if ip := net.ParseIP(n1); ip != nil && ip.IsUnspecified() {
		// Listening on every interface takes the loopback port too.
		return n2 == "127.0.0.1" || n2 == n1
	}
	return n1 == n2
}
