// Package config reads basalt-privacy's configuration: Orion's TOML file
// (orion.conf), every key of which can be overridden by an environment
// variable, BASALT_PRIVACY_<KEY> or Orion's ORION_<KEY> (the first wins;
// lists are comma-separated). Paths resolve against workdir. The result is
// one Config, validated once by Load with messages that name the key. The
// file and the environment are read by the loader the three programs share
// (internal/cliconf).
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
	// ptm/README.md, "Running it in production").
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

// Default returns the configuration of an empty file.
func Default() *Config {
	return &Config{
		NodePort:                        8080,
		NodeNetworkInterface:            "127.0.0.1",
		ClientPort:                      8888,
		ClientNetworkInterface:          "127.0.0.1",
		WorkDir:                         ".",
		Storage:                         "leveldb",
		KnownNodesStorage:               "memory",
		Verbosity:                       1,
		MaxPayloadSize:                  DefaultMaxPayloadSize,
		PeerDiscovery:                   true,
		MaxPeers:                        discovery.DefaultMaxPeers,
		MaxKeysPerPeer:                  discovery.DefaultMaxKeysPerPeer,
		PeerEvictAfter:                  int(discovery.DefaultEvictAfter / time.Second),
		TLS:                             "off",
		TLSServerCert:                   "tls-server-cert.pem",
		TLSServerKey:                    "tls-server-key.pem",
		TLSServerTrust:                  "tofu",
		TLSKnownClients:                 "tls-known-clients",
		TLSClientCert:                   "tls-client-cert.pem",
		TLSClientKey:                    "tls-client-key.pem",
		TLSClientTrust:                  "ca-or-tofu",
		TLSKnownServers:                 "tls-known-servers",
		ClientConnectionTLS:             "off",
		ClientConnectionTLSServerCert:   "client-connection-tls-server-cert.pem",
		ClientConnectionTLSServerKey:    "client-connection-tls-server-key.pem",
		ClientConnectionTLSServerTrust:  "tofu",
		ClientConnectionTLSKnownClients: "client-connection-tls-known-clients",
		MetricsPort:                     DefaultMetricsPort,
		MetricsNetworkInterface:         "127.0.0.1",
		MetricsHostAllowlist:            []string{"localhost", "127.0.0.1"},
	}
}

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

// field binds a key to a Config field.
type field struct {
	key  string
	kind cliconf.Kind
	str  func(*Config) *string
	num  func(*Config) *int
	list func(*Config) *[]string
	flag func(*Config) *bool
	path bool // resolve against workdir
}

func s(key string, f func(*Config) *string) field { return field{key: key, kind: kString, str: f} }
func p(key string, f func(*Config) *string) field {
	return field{key: key, kind: kString, str: f, path: true}
}
func n(key string, f func(*Config) *int) field  { return field{key: key, kind: kInt, num: f} }
func b(key string, f func(*Config) *bool) field { return field{key: key, kind: kBool, flag: f} }
func l(key string, f func(*Config) *[]string) field {
	return field{key: key, kind: kList, list: f}
}
func lp(key string, f func(*Config) *[]string) field {
	return field{key: key, kind: kList, list: f, path: true}
}

// fields lists every key. workdir comes first: other paths resolve against it.
var fields = []field{
	s("workdir", func(c *Config) *string { return &c.WorkDir }),
	s("nodeurl", func(c *Config) *string { return &c.NodeURL }),
	n("nodeport", func(c *Config) *int { return &c.NodePort }),
	s("nodenetworkinterface", func(c *Config) *string { return &c.NodeNetworkInterface }),
	s("clienturl", func(c *Config) *string { return &c.ClientURL }),
	n("clientport", func(c *Config) *int { return &c.ClientPort }),
	s("clientnetworkinterface", func(c *Config) *string { return &c.ClientNetworkInterface }),
	l("othernodes", func(c *Config) *[]string { return &c.OtherNodes }),
	lp("publickeys", func(c *Config) *[]string { return &c.PublicKeys }),
	lp("privatekeys", func(c *Config) *[]string { return &c.PrivateKeys }),
	lp("alwayssendto", func(c *Config) *[]string { return &c.AlwaysSendTo }),
	p("passwords", func(c *Config) *string { return &c.Passwords }),
	s("libsodiumpath", func(c *Config) *string { return &c.LibSodiumPath }),
	s("storage", func(c *Config) *string { return &c.Storage }),
	s("knownnodesstorage", func(c *Config) *string { return &c.KnownNodesStorage }),
	l("ipwhitelist", func(c *Config) *[]string { return &c.IPWhitelist }),
	n("verbosity", func(c *Config) *int { return &c.Verbosity }),
	n("maxpayloadsize", func(c *Config) *int { return &c.MaxPayloadSize }),
	b("peerdiscovery", func(c *Config) *bool { return &c.PeerDiscovery }),
	n("maxpeers", func(c *Config) *int { return &c.MaxPeers }),
	n("maxkeysperpeer", func(c *Config) *int { return &c.MaxKeysPerPeer }),
	n("peerevictafter", func(c *Config) *int { return &c.PeerEvictAfter }),
	p("clientapitokens", func(c *Config) *string { return &c.ClientAPITokens }),
	s("tls", func(c *Config) *string { return &c.TLS }),
	p("tlsservercert", func(c *Config) *string { return &c.TLSServerCert }),
	p("tlsserverkey", func(c *Config) *string { return &c.TLSServerKey }),
	lp("tlsserverchain", func(c *Config) *[]string { return &c.TLSServerChain }),
	s("tlsservertrust", func(c *Config) *string { return &c.TLSServerTrust }),
	p("tlsknownclients", func(c *Config) *string { return &c.TLSKnownClients }),
	p("tlsclientcert", func(c *Config) *string { return &c.TLSClientCert }),
	p("tlsclientkey", func(c *Config) *string { return &c.TLSClientKey }),
	lp("tlsclientchain", func(c *Config) *[]string { return &c.TLSClientChain }),
	s("tlsclienttrust", func(c *Config) *string { return &c.TLSClientTrust }),
	p("tlsknownservers", func(c *Config) *string { return &c.TLSKnownServers }),
	s("clientconnectiontls", func(c *Config) *string { return &c.ClientConnectionTLS }),
	p("clientconnectiontlsservercert", func(c *Config) *string { return &c.ClientConnectionTLSServerCert }),
	p("clientconnectiontlsserverkey", func(c *Config) *string { return &c.ClientConnectionTLSServerKey }),
	lp("clientconnectiontlsserverchain", func(c *Config) *[]string { return &c.ClientConnectionTLSServerChain }),
	s("clientconnectiontlsservertrust", func(c *Config) *string { return &c.ClientConnectionTLSServerTrust }),
	p("clientconnectiontlsknownclients", func(c *Config) *string { return &c.ClientConnectionTLSKnownClients }),
	b("metricsenabled", func(c *Config) *bool { return &c.MetricsEnabled }),
	n("metricsport", func(c *Config) *int { return &c.MetricsPort }),
	s("metricsnetworkinterface", func(c *Config) *string { return &c.MetricsNetworkInterface }),
	l("metricscategories", func(c *Config) *[]string { return &c.MetricsCategories }),
	l("metricshostallowlist", func(c *Config) *[]string { return &c.MetricsHostAllowlist }),
}

// Keys returns every configuration key, in documentation order.
func Keys() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// spec is the loader's description of basalt-privacy's configuration:
// Orion's keys, no flags, file values of the types Orion's schema gives
// them, and BASALT_PRIVACY_<KEY> over ORION_<KEY> variables, which count even
// when empty (ORION_OTHERNODES= clears the file's list).
func spec() *cliconf.Spec {
	s := &cliconf.Spec{EnvPrefixes: []string{EnvPrefix, OrionEnvPrefix}, EmptyEnvSets: true, StrictFileTypes: true}
	for _, f := range fields {
		s.Options = append(s.Options, cliconf.Option{Name: f.key, Kind: f.kind})
	}
	return s
}

// Load reads the TOML file at path ("" for none: defaults), applies the
// environment (lookup, usually os.LookupEnv), resolves paths and validates.
func Load(path string, lookup func(string) (string, bool)) (*Config, error) {
	values, err := spec().Load(cliconf.Sources{File: path, LookupEnv: lookup})
	if err != nil {
		return nil, fileError(err)
	}
	c := Default()
	if err := c.apply(values); err != nil {
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

// apply sets the keys that the file or the environment gives; Default
// holds the others.
func (c *Config) apply(values *cliconf.Values) error {
	for _, f := range fields {
		v := values.Get(f.key)
		if v.Source.Kind == cliconf.FromDefault {
			continue
		}
		switch f.kind {
		case kString:
			*f.str(c) = v.Text
		case kInt:
			n, err := strconv.Atoi(strings.TrimSpace(v.Text))
			if err != nil {
				return fmt.Errorf("environment variable %s (key %s): %q is not an integer", v.Source.Name, f.key, v.Text)
			}
			*f.num(c) = n
		case kList:
			*f.list(c) = v.List()
		case kBool:
			b, err := strconv.ParseBool(strings.TrimSpace(v.Text))
			if err != nil {
				return fmt.Errorf("environment variable %s (key %s): %q is not true or false", v.Source.Name, f.key, v.Text)
			}
			*f.flag(c) = b
		}
	}
	return nil
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
		if !f.path {
			continue
		}
		switch f.kind {
		case kString:
			*f.str(c) = at(*f.str(c))
		case kList:
			l := *f.list(c)
			for i := range l {
				l[i] = at(l[i])
			}
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
	}{{"nodeport", c.NodePort}, {"clientport", c.ClientPort}, {"metricsport", c.MetricsPort}} {
		if port.v < 0 || port.v > 65535 {
			bad(port.key, "must be between 0 and 65535 (got %d)", port.v)
		}
	}
	if c.NodePort == c.ClientPort && c.NodePort != 0 {
		bad("clientport", "must be different from nodeport (both %d)", c.NodePort)
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
