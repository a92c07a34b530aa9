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
	// TesseraURL is the Q2T API for GoQuorum private transactions ("":
	// none).
	TesseraURL    string
	ListenHost    string
	ListenPort    int
	CORSOrigins   []string
	HostAllowlist []string
	DataPath      string
	LogLevel      slog.Level
	LogOff        bool

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
	// Every value is checked, so that one run names every bad option.
	_ = options.Apply(v, c, func(_ *cliconf.Binding[config], val cliconf.Value, err error) error {
		if err = val.Error(err); err != nil {
			errs = append(errs, err)
		}
		return nil
	}, store)
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
