// Package config reads basalt-privacy's configuration: Orion's TOML file
// (orion.conf), every key of which can be overridden by an environment
// variable, BASALT_PRIVACY_<KEY> or Orion's ORION_<KEY> (the first wins;
// lists are comma-separated). Paths resolve against workdir. The result is
// one Config, validated once by Load with messages that name the key. The
// file and the environment are read by the loader the three programs share
// (internal/cliconf), from the key table (fields), which also holds each
// key's default: Default is that table's defaults.
package config

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Environment variable prefixes; Basalt's wins over Orion's.
const (
	EnvPrefix      = "BASALT_PRIVACY_"
	OrionEnvPrefix = "ORION_"
)

// DefaultMaxPayloadSize is the default of maxpayloadsize (Basalt's key; Orion
// has no limit).
const DefaultMaxPayloadSize = 16 << 20

// Config is the configuration of one basalt-privacy instance. Field comments
// give the TOML key and default.
type Config struct {
	NodeURL                string   // nodeurl: URL advertised to peers; default http://<nodenetworkinterface>:<node port>
	NodePort               int      // nodeport: 8080 (0: any free port)
	NodeNetworkInterface   string   // nodenetworkinterface: 127.0.0.1
	ClientURL              string   // clienturl: informational
	ClientPort             int      // clientport: 8888 (0: any free port)
	ClientNetworkInterface string   // clientnetworkinterface: 127.0.0.1
	WorkDir                string   // workdir: current directory (absolute after Load)
	OtherNodes             []string // othernodes: boot node URLs
	PublicKeys             []string // publickeys: .pub files (resolved paths)
	PrivateKeys            []string // privatekeys: .key files, same length and order
	AlwaysSendTo           []string // alwayssendto: .pub files of keys added to every payload
	Passwords              string   // passwords: file, one password per private key ("" = none)
	LibSodiumPath          string   // libsodiumpath: accepted and ignored (Go has its own NaCl)
	Storage                string   // storage: leveldb (payload store; see storage.Parse)
	KnownNodesStorage      string   // knownnodesstorage: memory (node table store)
	IPWhitelist            []string // ipwhitelist: client IPs allowed on the node API (empty: all)
	Verbosity              int      // verbosity: 1 (0 errors only ... 4 everything)
	MaxPayloadSize         int      // maxpayloadsize: 16777216 bytes (Basalt)

	// Discovery and the client API's access control (Basalt's keys; see
	// docs/how-to/privacy-manager.md, "Running it in production").
	PeerDiscovery   bool   // peerdiscovery: true; false = only othernodes, which are also the only addresses the node API serves
	MaxPeers        int    // maxpeers: 128 other instances in the node table
	MaxKeysPerPeer  int    // maxkeysperpeer: 256 keys per instance
	PeerEvictAfter  int    // peerevictafter: 600 s an instance may be unreachable before its keys are dropped (0: never)
	ClientAPITokens string // clientapitokens: file of bearer tokens the client API requires ("": none)

	TLS             string   // tls: off | strict (mutual TLS on the node API and to peers)
	TLSServerCert   string   // tlsservercert: tls-server-cert.pem (created if missing)
	TLSServerKey    string   // tlsserverkey: tls-server-key.pem
	TLSServerChain  []string // tlsserverchain: CA files trusted for client certificates
	TLSServerTrust  string   // tlsservertrust: tofu
	TLSKnownClients string   // tlsknownclients: tls-known-clients
	TLSClientCert   string   // tlsclientcert: tls-client-cert.pem (created if missing)
	TLSClientKey    string   // tlsclientkey: tls-client-key.pem
	TLSClientChain  []string // tlsclientchain: CA files trusted for server certificates
	TLSClientTrust  string   // tlsclienttrust: ca-or-tofu
	TLSKnownServers string   // tlsknownservers: tls-known-servers

	ClientConnectionTLS             string   // clientconnectiontls: off | strict (mutual TLS on the client API)
	ClientConnectionTLSServerCert   string   // clientconnectiontlsservercert: client-connection-tls-server-cert.pem
	ClientConnectionTLSServerKey    string   // clientconnectiontlsserverkey: client-connection-tls-server-key.pem
	ClientConnectionTLSServerChain  []string // clientconnectiontlsserverchain
	ClientConnectionTLSServerTrust  string   // clientconnectiontlsservertrust: tofu
	ClientConnectionTLSKnownClients string   // clientconnectiontlsknownclients: client-connection-tls-known-clients

	// Tessera's Q2T API for GoQuorum (Basalt's keys; Tessera's serverConfigs
	// entry with app "Q2T"): off unless q2tenabled.
	Q2TEnabled          bool   // q2tenabled: false
	Q2TPort             int    // q2tport: 9101, Tessera's usual Q2T port (0: any free port)
	Q2TNetworkInterface string // q2tnetworkinterface: 127.0.0.1

	// Metrics (Basalt's keys; Orion exported none): GET /metrics in
	// Prometheus text format on a listener of its own.
	MetricsEnabled          bool     // metricsenabled: false
	MetricsPort             int      // metricsport: 9547 (0: any free port)
	MetricsNetworkInterface string   // metricsnetworkinterface: 127.0.0.1
	MetricsCategories       []string // metricscategories: all of HTTP, STORAGE, PEERS, JVM, PROCESS
	MetricsHostAllowlist    []string // metricshostallowlist: localhost, 127.0.0.1 ("*": any Host)

	// StorageSpec and KnownNodesSpec are Storage and KnownNodesStorage
	// parsed (set by Load).
	StorageSpec    storage.Spec
	KnownNodesSpec storage.Spec
}

// Trust modes Orion accepts for each side.
var (
	ServerTrustModes = []string{"whitelist", "ca", "ca-or-whitelist", "tofu", "insecure-tofa", "ca-or-tofu", "insecure-ca-or-tofa", "insecure-no-validation", "insecure-record", "insecure-ca-or-record"}
	ClientTrustModes = []string{"whitelist", "ca", "ca-or-whitelist", "tofu", "ca-or-tofu", "insecure-no-validation", "insecure-record", "insecure-ca-or-record"}
)

// Default returns the configuration of an empty file and no environment:
// every key's default, from the one place it is written, the key table
// (fields), through the same setters as a value read from the file.
func Default() *Config {
	c := &Config{}
	if err := fields.Defaults(c); err != nil {
		panic(err) // a mistake in the table; TestDefaults catches it
	}
	return c
}

// DefaultQ2TPort is q2tport's default: the Q2T port of Tessera's
// configurations in the GoQuorum quickstart.
const DefaultQ2TPort = 9101

// DefaultMetricsPort is metricsport's default: after the node's 9545 and
// the signer's 9546.
const DefaultMetricsPort = 9547

// Kinds of keys, as Orion's config schema types them.
const (
	kString = cliconf.String
	kInt    = cliconf.Int
	kList   = cliconf.List
	kBool   = cliconf.Bool
)

// fieldKey is one key in the option shape the three programs share
// (cliconf.Binding): the key, its default and how it sets Config. paths
// lists the keys whose values resolve against workdir.
type fieldKey = cliconf.Binding[Config]

func s(key, def string, f func(*Config) *string) fieldKey {
	return fieldKey{Option: cliconf.Option{Name: key, Kind: kString, Default: def},
		Set: func(c *Config, v cliconf.Value) error { *f(c) = v.Text; return nil }}
}

// p is a path key: a string resolved against workdir.
func p(key, def string, f func(*Config) *string) fieldKey {
	paths[key] = func(c *Config, at func(string) string) { *f(c) = at(*f(c)) }
	return s(key, def, f)
}

func n(key string, def int, f func(*Config) *int) fieldKey {
	return fieldKey{Option: cliconf.Option{Name: key, Kind: kInt, Default: strconv.Itoa(def)},
		Set: func(c *Config, v cliconf.Value) error {
			x, err := strconv.Atoi(strings.TrimSpace(v.Text))
			if err != nil {
				return errors.New("is not an integer")
			}
			*f(c) = x
			return nil
		}}
}

func b(key string, def bool, f func(*Config) *bool) fieldKey {
	return fieldKey{Option: cliconf.Option{Name: key, Kind: kBool, Default: strconv.FormatBool(def)},
		Set: func(c *Config, v cliconf.Value) error {
			x, err := strconv.ParseBool(strings.TrimSpace(v.Text))
			if err != nil {
				return errors.New("is not true or false")
			}
			*f(c) = x
			return nil
		}}
}

func l(key string, def []string, f func(*Config) *[]string) fieldKey {
	return fieldKey{Option: cliconf.Option{Name: key, Kind: kList, Default: strings.Join(def, ",")},
		Set: func(c *Config, v cliconf.Value) error { *f(c) = v.List(); return nil }}
}

// lp is a list of paths, each resolved against workdir.
func lp(key string, f func(*Config) *[]string) fieldKey {
	paths[key] = func(c *Config, at func(string) string) {
		for i, x := range *f(c) {
			(*f(c))[i] = at(x)
		}
	}
	return l(key, nil, f)
}

// paths resolves the value of each path key against workdir (see p, lp).
var paths = map[string]func(c *Config, at func(string) string){}

// fields lists every key with its default, in documentation order.
// workdir comes first: other paths resolve against it. The discovery
// limits and the payload size are written from the constants the packages
// that enforce them fall back to.
var fields = cliconf.Table[Config]{
	s("workdir", ".", func(c *Config) *string { return &c.WorkDir }),
	s("nodeurl", "", func(c *Config) *string { return &c.NodeURL }),
	n("nodeport", 8080, func(c *Config) *int { return &c.NodePort }),
	s("nodenetworkinterface", "127.0.0.1", func(c *Config) *string { return &c.NodeNetworkInterface }),
	s("clienturl", "", func(c *Config) *string { return &c.ClientURL }),
	n("clientport", 8888, func(c *Config) *int { return &c.ClientPort }),
	s("clientnetworkinterface", "127.0.0.1", func(c *Config) *string { return &c.ClientNetworkInterface }),
	l("othernodes", nil, func(c *Config) *[]string { return &c.OtherNodes }),
	lp("publickeys", func(c *Config) *[]string { return &c.PublicKeys }),
	lp("privatekeys", func(c *Config) *[]string { return &c.PrivateKeys }),
	lp("alwayssendto", func(c *Config) *[]string { return &c.AlwaysSendTo }),
	p("passwords", "", func(c *Config) *string { return &c.Passwords }),
	s("libsodiumpath", "", func(c *Config) *string { return &c.LibSodiumPath }),
	s("storage", "leveldb", func(c *Config) *string { return &c.Storage }),
	s("knownnodesstorage", "memory", func(c *Config) *string { return &c.KnownNodesStorage }),
	l("ipwhitelist", nil, func(c *Config) *[]string { return &c.IPWhitelist }),
	n("verbosity", 1, func(c *Config) *int { return &c.Verbosity }),
	n("maxpayloadsize", DefaultMaxPayloadSize, func(c *Config) *int { return &c.MaxPayloadSize }),
	b("peerdiscovery", true, func(c *Config) *bool { return &c.PeerDiscovery }),
	n("maxpeers", discovery.DefaultMaxPeers, func(c *Config) *int { return &c.MaxPeers }),
	n("maxkeysperpeer", discovery.DefaultMaxKeysPerPeer, func(c *Config) *int { return &c.MaxKeysPerPeer }),
	n("peerevictafter", int(discovery.DefaultEvictAfter/time.Second), func(c *Config) *int { return &c.PeerEvictAfter }),
	p("clientapitokens", "", func(c *Config) *string { return &c.ClientAPITokens }),
	s("tls", "off", func(c *Config) *string { return &c.TLS }),
	p("tlsservercert", "tls-server-cert.pem", func(c *Config) *string { return &c.TLSServerCert }),
	p("tlsserverkey", "tls-server-key.pem", func(c *Config) *string { return &c.TLSServerKey }),
	lp("tlsserverchain", func(c *Config) *[]string { return &c.TLSServerChain }),
	s("tlsservertrust", "tofu", func(c *Config) *string { return &c.TLSServerTrust }),
	p("tlsknownclients", "tls-known-clients", func(c *Config) *string { return &c.TLSKnownClients }),
	p("tlsclientcert", "tls-client-cert.pem", func(c *Config) *string { return &c.TLSClientCert }),
	p("tlsclientkey", "tls-client-key.pem", func(c *Config) *string { return &c.TLSClientKey }),
	lp("tlsclientchain", func(c *Config) *[]string { return &c.TLSClientChain }),
	s("tlsclienttrust", "ca-or-tofu", func(c *Config) *string { return &c.TLSClientTrust }),
	p("tlsknownservers", "tls-known-servers", func(c *Config) *string { return &c.TLSKnownServers }),
	s("clientconnectiontls", "off", func(c *Config) *string { return &c.ClientConnectionTLS }),
	p("clientconnectiontlsservercert", "client-connection-tls-server-cert.pem", func(c *Config) *string { return &c.ClientConnectionTLSServerCert }),
	p("clientconnectiontlsserverkey", "client-connection-tls-server-key.pem", func(c *Config) *string { return &c.ClientConnectionTLSServerKey }),
	lp("clientconnectiontlsserverchain", func(c *Config) *[]string { return &c.ClientConnectionTLSServerChain }),
	s("clientconnectiontlsservertrust", "tofu", func(c *Config) *string { return &c.ClientConnectionTLSServerTrust }),
	p("clientconnectiontlsknownclients", "client-connection-tls-known-clients", func(c *Config) *string { return &c.ClientConnectionTLSKnownClients }),
	b("q2tenabled", false, func(c *Config) *bool { return &c.Q2TEnabled }),
	n("q2tport", DefaultQ2TPort, func(c *Config) *int { return &c.Q2TPort }),
	s("q2tnetworkinterface", "127.0.0.1", func(c *Config) *string { return &c.Q2TNetworkInterface }),
	b("metricsenabled", false, func(c *Config) *bool { return &c.MetricsEnabled }),
	n("metricsport", DefaultMetricsPort, func(c *Config) *int { return &c.MetricsPort }),
	s("metricsnetworkinterface", "127.0.0.1", func(c *Config) *string { return &c.MetricsNetworkInterface }),
	l("metricscategories", nil, func(c *Config) *[]string { return &c.MetricsCategories }),
	l("metricshostallowlist", httpmw.DefaultHosts, func(c *Config) *[]string { return &c.MetricsHostAllowlist }),
}

// Keys returns every configuration key, in documentation order.
func Keys() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// spec is the loader's description of basalt-privacy's configuration:
// Orion's keys, no flags, file values of the types Orion's schema gives
// them, and BASALT_PRIVACY_<KEY> over ORION_<KEY> variables, which count even
// when empty (ORION_OTHERNODES= clears the file's list).
func spec() *cliconf.Spec {
	return &cliconf.Spec{Options: fields.Options(), EnvPrefixes: []string{EnvPrefix, OrionEnvPrefix}, EmptyEnvSets: true, StrictFileTypes: true}
}

// Load reads the TOML file at path ("" for none: defaults), applies the
// environment (lookup, usually os.LookupEnv), resolves paths and validates.
func Load(path string, lookup func(string) (string, bool)) (*Config, error) {
	values, err := spec().Load(cliconf.Sources{File: path, LookupEnv: lookup})
	if err != nil {
		return nil, fileError(err)
	}
	c := &Config{}
	if err := fields.Apply(values, c, invalid); err != nil {
		return nil, err
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// fileError words the problems of a config file as basalt-privacy always
// has: one line per key.
func fileError(err error) error {
	var fe *cliconf.FileError
	if !errors.As(err, &fe) || fe.Err != nil {
		return err
	}
	var errs []error
	for _, k := range fe.Invalid {
		errs = append(errs, fmt.Errorf("%s: %s", k.Key, k.Reason))
	}
	for _, k := range fe.Unknown {
		errs = append(errs, fmt.Errorf("unknown key %q", k))
	}
	return fmt.Errorf("config file %s: %w", fe.Path, errors.Join(errs...))
}

// EnvName returns the Basalt environment variable of a key.
func EnvName(key string) string { return cliconf.EnvName(EnvPrefix, "", key) }

// invalid words a value a key's setter rejects as basalt-privacy always
// has. Only the environment can give one: the file's values have their
// key's TOML type (Spec.StrictFileTypes) and the defaults are right.
func invalid(f *fieldKey, v cliconf.Value, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("environment variable %s (key %s): %q %w", v.Source.Name, f.Name, v.Text, err)
}

func (c *Config) resolve() error {
	wd, err := filepath.Abs(c.WorkDir)
	if err != nil {
		return fmt.Errorf("workdir %q: %w", c.WorkDir, err)
	}
	c.WorkDir = wd
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wd, p)
	}
	for _, f := range fields {
		if resolve := paths[f.Name]; resolve != nil {
			resolve(c, at)
		}
	}
	return nil
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return true
		}
	}
	return false
}

func (c *Config) validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	for _, port := range []struct {
		key string
		v   int
	}{{"nodeport", c.NodePort}, {"clientport", c.ClientPort}, {"metricsport", c.MetricsPort}, {"q2tport", c.Q2TPort}} {
		if port.v < 0 || port.v > 65535 {
			bad(port.key, "must be between 0 and 65535 (got %d)", port.v)
		}
	}
	if c.NodePort == c.ClientPort && c.NodePort != 0 {
		bad("clientport", "must be different from nodeport (both %d)", c.NodePort)
	}
	if c.Q2TEnabled && c.Q2TPort != 0 && (c.Q2TPort == c.NodePort || c.Q2TPort == c.ClientPort || (c.MetricsEnabled && c.Q2TPort == c.MetricsPort)) {
		bad("q2tport", "must be different from nodeport, clientport and metricsport (%d)", c.Q2TPort)
	}
	if c.MetricsEnabled && c.MetricsPort != 0 && (c.MetricsPort == c.NodePort || c.MetricsPort == c.ClientPort) {
		bad("metricsport", "must be different from nodeport and clientport (%d)", c.MetricsPort)
	}
	if _, err := metrics.ParseCategories(metrics.PrivacyCategories, c.MetricsCategories); err != nil {
		bad("metricscategories", "%v", err)
	}
	for _, u := range []struct{ key, v string }{{"nodeurl", c.NodeURL}, {"clienturl", c.ClientURL}} {
		if u.v != "" {
			if err := discovery.CheckURL(u.v); err != nil {
				bad(u.key, "%v", err)
			}
		}
	}
	for i, u := range c.OtherNodes {
		if err := discovery.CheckURL(u); err != nil {
			bad("othernodes", "entry %d: %v", i, err)
		}
	}
	if len(c.PublicKeys) != len(c.PrivateKeys) {
		bad("privatekeys", "has %d entries but publickeys has %d; they must be the same length", len(c.PrivateKeys), len(c.PublicKeys))
	}
	var err error
	if c.StorageSpec, err = storage.Parse(c.Storage, c.WorkDir, "routerdb"); err != nil {
		bad("storage", "%v", err)
	}
	if c.KnownNodesSpec, err = storage.Parse(c.KnownNodesStorage, c.WorkDir, "nodedb"); err != nil {
		bad("knownnodesstorage", "%v", err)
	}
	if c.StorageSpec.Kind == storage.Pebble && c.KnownNodesSpec.Kind == storage.Pebble && c.StorageSpec.Path == c.KnownNodesSpec.Path {
		bad("knownnodesstorage", "must not be the same embedded database as storage (%s)", c.StorageSpec.Path)
	}
	for i, ip := range c.IPWhitelist {
		if _, err := netip.ParseAddr(ip); err != nil {
			bad("ipwhitelist", "entry %d: %q is not an IP address", i, ip)
		}
	}
	if c.Verbosity < 0 || c.Verbosity > 4 {
		bad("verbosity", "must be between 0 and 4 (got %d)", c.Verbosity)
	}
	if c.MaxPayloadSize <= 0 {
		bad("maxpayloadsize", "must be positive (got %d)", c.MaxPayloadSize)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"maxpeers", c.MaxPeers}, {"maxkeysperpeer", c.MaxKeysPerPeer}} {
		if l.v <= 0 {
			bad(l.key, "must be positive (got %d)", l.v)
		}
	}
	if c.PeerEvictAfter < 0 {
		bad("peerevictafter", "must be 0 (never) or a number of seconds (got %d)", c.PeerEvictAfter)
	}
	for _, t := range []struct{ key, v string }{{"tls", c.TLS}, {"clientconnectiontls", c.ClientConnectionTLS}} {
		if !oneOf(t.v, []string{"off", "strict"}) {
			bad(t.key, "must be off or strict (got %q)", t.v)
		}
	}
	c.TLS = strings.ToLower(c.TLS)
	c.ClientConnectionTLS = strings.ToLower(c.ClientConnectionTLS)
	for _, t := range []struct {
		key     string
		v       *string
		allowed []string
	}{
		{"tlsservertrust", &c.TLSServerTrust, ServerTrustModes},
		{"tlsclienttrust", &c.TLSClientTrust, ClientTrustModes},
		{"clientconnectiontlsservertrust", &c.ClientConnectionTLSServerTrust, ServerTrustModes},
	} {
		if !oneOf(*t.v, t.allowed) {
			bad(t.key, "must be one of %s (got %q)", strings.Join(t.allowed, ", "), *t.v)
		}
		*t.v = strings.ToLower(*t.v)
	}
	return errors.Join(errs...)
}

// ReadPasswords reads the passwords file: one password per line, in the order of
// privatekeys; an empty line (or a missing line) means the key is not locked.
// It returns nil entries for unlocked keys.
func (c *Config) ReadPasswords() ([]*string, error) {
	out := make([]*string, len(c.PrivateKeys))
	if c.Passwords == "" {
		return out, nil
	}
	data, err := os.ReadFile(c.Passwords)
	if err != nil {
		return nil, fmt.Errorf("passwords: %w", err)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := range out {
		if i < len(lines) && lines[i] != "" {
			pw := lines[i]
			out[i] = &pw
		}
	}
	return out, nil
}
