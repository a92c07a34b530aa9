package config

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/p2p/enodeurl"
	"github.com/basaltchain/basalt/rpc"
)

// Option kinds, named for the table below (see cliconf.Kind).
const (
	kindString = cliconf.String
	kindBool   = cliconf.Bool
	kindList   = cliconf.List // comma-separated on the command line and in env vars; a TOML array or string in the file
)

// optConfigFile is the one option the config file cannot set.
const optConfigFile = "config-file"

// option describes one Basalt option: its flag, environment variable
// (EnvName(name)) and config-file key (name) at once, and how it sets
// Config.
type option struct {
	name       string
	aliases    []string // older Besu names, accepted everywhere, hidden in help
	shorthand  string
	kind       cliconf.Kind
	typ        string // value name shown in help
	def        string // default, written as on the command line
	usage      string
	persistent bool // shared with subcommands
	hidden     bool // left out of --help (Besu's --X options)
	apply      func(c *Config, v string) error
}

// spec is the loader's description of o.
func (o option) spec() cliconf.Option {
	return cliconf.Option{Name: o.name, Aliases: o.aliases, Shorthand: o.shorthand, Kind: o.kind,
		Type: o.typ, Default: o.def, Usage: o.usage, Hidden: o.hidden}
}

// newSpec returns the loader's description of the basalt program: opts,
// the BASALT_ environment prefix (an empty variable counts as unset) and
// --config-file, whose values may be any TOML scalar written as on the
// command line, as in Besu.
func newSpec(opts []option) *cliconf.Spec {
	s := &cliconf.Spec{EnvPrefixes: []string{EnvPrefix}, FileOption: optConfigFile}
	for _, o := range opts {
		s.Options = append(s.Options, o.spec())
	}
	return s
}

// rpcAPIGroups are the JSON-RPC method groups --rpc-http-api and
// --rpc-ws-api accept: all of Besu's, as the JSON-RPC server knows them,
// including groups this node may not serve (the node names those at
// start-up).
var rpcAPIGroups = rpc.KnownGroups

// options returns the table of every option, in no particular order (help
// sorts them). Adding an option is adding an entry here and a field to
// Config.
func options() []option {
	return []option{
		// Shared with subcommands.
		{name: "data-path", typ: "path", def: DefaultDataPath, persistent: true,
			usage: "Path to the Basalt data directory",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.DataPath = v
				return nil
			}},
		{name: "genesis-file", typ: "path", persistent: true,
			usage: "Genesis file (Besu format) of a custom network; cannot be combined with --network",
			apply: func(c *Config, v string) error { c.GenesisFile = v; return nil }},
		{name: "network", typ: "name", persistent: true,
			usage: "Named network to join; basalt supports \"dev\" only (one of --network and --genesis-file is required to run the node)",
			apply: func(c *Config, v string) error { c.Network = strings.ToLower(strings.TrimSpace(v)); return nil }},
		{name: optConfigFile, typ: "path", persistent: true,
			usage: "TOML config file; its keys are option names without the dashes (rpc-http-port=8545, rpc-http-api=[\"ETH\",\"NET\"])",
			apply: func(c *Config, v string) error { c.ConfigFile = v; return nil }},
		{name: "node-private-key-file", typ: "path", persistent: true,
			usage: "The node's private key file (default <data-path>/key)",
			apply: func(c *Config, v string) error { c.NodePrivateKeyFile = v; return nil }},
		{name: "logging", shorthand: "l", typ: "level", def: "INFO", persistent: true,
			usage: "Logging verbosity: OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE or ALL",
			apply: func(c *Config, v string) error {
				level := strings.ToUpper(strings.TrimSpace(v))
				l, ok := logLevels[level]
				if !ok {
					return errors.New("expected one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL")
				}
				c.Logging, c.LogLevel = level, l
				return nil
			}},

		// The node.
		{name: "network-id", typ: "int",
			usage: "P2P network identifier (default the genesis chain ID)",
			apply: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				n, err := parseUintValue(v)
				if err != nil {
					return err
				}
				if n == 0 {
					return errors.New("must be positive")
				}
				c.NetworkID = n
				return nil
			}},
		{name: "miner-enabled", kind: kindBool, def: "false",
			usage: "Mine blocks (needs --miner-coinbase)",
			apply: func(c *Config, v string) (err error) { c.Miner.Enabled, err = parseBoolValue(v); return err }},
		{name: "miner-coinbase", typ: "address",
			usage: "Account credited with the rewards and fees of mined blocks",
			apply: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				a, err := decodeAddress(v)
				if err != nil {
					return err
				}
				c.Miner.Coinbase = &a
				return nil
			}},
		{name: "miner-extra-data", typ: "hex",
			usage: "Hex data (at most 32 bytes) put in the extraData field of mined blocks",
			apply: func(c *Config, v string) error {
				b, err := decodeHex(v)
				if err != nil {
					return errors.New("not a hex string")
				}
				if len(b) > 32 {
					return fmt.Errorf("%d bytes, at most 32 allowed", len(b))
				}
				if len(b) > 0 {
					c.Miner.ExtraData = b
				}
				return nil
			}},
		{name: "min-gas-price", typ: "wei", def: "1000",
			usage: "Lowest gas price, in wei, of transactions accepted into the pool and mined",
			apply: func(c *Config, v string) error {
				n, err := parseBig("", v, decOrHex)
				if err != nil {
					return errors.New("expected a non-negative integer (decimal or 0x hex)")
				}
				c.MinGasPrice = n
				return nil
			}},
		{name: "tx-pool-max-size", typ: "int", def: "4096",
			usage: "Most transactions kept in the transaction pool",
			apply: func(c *Config, v string) (err error) { c.TxPool.MaxSize, err = parseIntValue(v, 1); return err }},
		{name: "tx-pool-retention-hours", typ: "int", def: "13",
			usage: "Hours a transaction may stay in the transaction pool",
			apply: func(c *Config, v string) (err error) { c.TxPool.RetentionHours, err = parseIntValue(v, 1); return err }},
		{name: "rpc-http-enabled", kind: kindBool, def: "false",
			usage: "Enable the JSON-RPC HTTP service",
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPEnabled, err = parseBoolValue(v); return err }},
		{name: "rpc-http-host", typ: "host", def: "127.0.0.1",
			usage: "Host the JSON-RPC HTTP service listens on",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.RPC.HTTPHost = v
				return nil
			}},
		{name: "rpc-http-port", typ: "port", def: "8545",
			usage: "Port the JSON-RPC HTTP service listens on (0 picks a free port)",
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPPort, err = parsePort(v); return err }},
		{name: "rpc-http-api", aliases: []string{"rpc-http-apis"}, kind: kindList, typ: "list", def: "ETH,NET,WEB3",
			usage: "Comma-separated method groups enabled over HTTP: " + strings.Join(rpcAPIGroups, ", "),
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPAPIs, err = parseAPIs(v); return err }},
		{name: "rpc-http-cors-origins", kind: kindList, typ: "list",
			usage: "Comma-separated origins (regular expressions) browsers may call the HTTP service from; \"all\" or \"*\" for any (default none)",
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPCORSOrigins, err = parseCORSOrigins(v); return err }},
		{name: "host-allowlist", aliases: []string{"host-whitelist"}, kind: kindList, typ: "list", def: "localhost,127.0.0.1",
			usage: "Comma-separated hostnames the RPC services accept in the Host header; \"all\" or \"*\" for any (alias --host-whitelist)",
			apply: func(c *Config, v string) (err error) { c.HostAllowlist, err = parseHostAllowlist(v); return err }},
		{name: "rpc-http-max-batch-size", typ: "int", def: "1024",
			usage: "Most requests in one JSON-RPC batch; -1 for no limit",
			apply: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || (n < 1 && n != -1) {
					return errors.New("expected -1 (no limit) or a positive integer")
				}
				c.RPC.HTTPMaxBatchSize = n
				return nil
			}},
		{name: "rpc-max-logs-range", typ: "int", def: "5000",
			usage: "Most blocks one eth_getLogs request may cover; 0 for no limit",
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 0)
				if err != nil {
					return err
				}
				c.RPC.MaxLogsRange = int64(n)
				return nil
			}},
		{name: "rpc-ws-enabled", kind: kindBool, def: "false",
			usage: "Enable the JSON-RPC WebSocket service",
			apply: func(c *Config, v string) (err error) { c.RPC.WSEnabled, err = parseBoolValue(v); return err }},
		{name: "rpc-ws-host", typ: "host", def: "127.0.0.1",
			usage: "Host the JSON-RPC WebSocket service listens on",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.RPC.WSHost = v
				return nil
			}},
		{name: "rpc-ws-port", typ: "port", def: "8546",
			usage: "Port the JSON-RPC WebSocket service listens on (0 picks a free port)",
			apply: func(c *Config, v string) (err error) { c.RPC.WSPort, err = parsePort(v); return err }},
		{name: "rpc-ws-api", aliases: []string{"rpc-ws-apis"}, kind: kindList, typ: "list", def: "ETH,NET,WEB3",
			usage: "Comma-separated method groups enabled over WebSocket: " + strings.Join(rpcAPIGroups, ", "),
			apply: func(c *Config, v string) (err error) { c.RPC.WSAPIs, err = parseAPIs(v); return err }},
		{name: "rpc-ws-max-frame-size", typ: "bytes", def: "1048576",
			usage: "Largest WebSocket message, in bytes, a client may send; a bigger one closes the connection",
			apply: func(c *Config, v string) (err error) { c.RPC.WSMaxFrameSize, err = parseIntValue(v, 1); return err }},
		{name: "rpc-ws-max-active-connections", typ: "int", def: "80",
			usage: "Most open WebSocket connections",
			apply: func(c *Config, v string) (err error) {
				c.RPC.WSMaxActiveConnections, err = parseIntValue(v, 1)
				return err
			}},
		{name: "rpc-http-authentication-enabled", kind: kindBool, def: "false",
			usage: "Require a token (POST /login, or issued elsewhere) for every JSON-RPC HTTP request; needs a credentials file or a JWT public key file",
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPAuth.Enabled, err = parseBoolValue(v); return err }},
		{name: "rpc-http-authentication-credentials-file", typ: "path",
			usage: "TOML file of the users who may log in at the HTTP endpoint's /login, with their bcrypt password hashes and permissions",
			apply: func(c *Config, v string) error { c.RPC.HTTPAuth.CredentialsFile = v; return nil }},
		{name: "rpc-http-authentication-jwt-public-key-file", typ: "path",
			usage: "PEM public key verifying externally issued tokens for the HTTP endpoint (turns /login off)",
			apply: func(c *Config, v string) error { c.RPC.HTTPAuth.JWTPublicKeyFile = v; return nil }},
		{name: "rpc-http-authentication-jwt-algorithm", typ: "algorithm", def: "RS256",
			usage: "Algorithm of the tokens the HTTP JWT public key verifies: " + strings.Join(jwtAlgorithms, ", "),
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPAuth.JWTAlgorithm, err = parseJWTAlgorithm(v)
				return err
			}},
		{name: "rpc-ws-authentication-enabled", kind: kindBool, def: "false",
			usage: "Require a token (POST /login on the WebSocket port, or issued elsewhere) for every JSON-RPC WebSocket message; needs a credentials file or a JWT public key file",
			apply: func(c *Config, v string) (err error) { c.RPC.WSAuth.Enabled, err = parseBoolValue(v); return err }},
		{name: "rpc-ws-authentication-credentials-file", typ: "path",
			usage: "TOML file of the users who may log in at the WebSocket endpoint's /login, with their bcrypt password hashes and permissions",
			apply: func(c *Config, v string) error { c.RPC.WSAuth.CredentialsFile = v; return nil }},
		{name: "rpc-ws-authentication-jwt-public-key-file", typ: "path",
			usage: "PEM public key verifying externally issued tokens for the WebSocket endpoint (turns /login off)",
			apply: func(c *Config, v string) error { c.RPC.WSAuth.JWTPublicKeyFile = v; return nil }},
		{name: "rpc-ws-authentication-jwt-algorithm", typ: "algorithm", def: "RS256",
			usage: "Algorithm of the tokens the WebSocket JWT public key verifies: " + strings.Join(jwtAlgorithms, ", "),
			apply: func(c *Config, v string) (err error) {
				c.RPC.WSAuth.JWTAlgorithm, err = parseJWTAlgorithm(v)
				return err
			}},
		{name: "graphql-http-enabled", kind: kindBool, def: "false",
			usage: "Enable the GraphQL HTTP service",
			apply: func(c *Config, v string) (err error) { c.GraphQL.HTTPEnabled, err = parseBoolValue(v); return err }},
		{name: "graphql-http-host", typ: "host", def: "127.0.0.1",
			usage: "Host the GraphQL HTTP service listens on",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.GraphQL.HTTPHost = v
				return nil
			}},
		{name: "graphql-http-port", typ: "port", def: "8547",
			usage: "Port the GraphQL HTTP service listens on (0 picks a free port)",
			apply: func(c *Config, v string) (err error) { c.GraphQL.HTTPPort, err = parsePort(v); return err }},
		{name: "graphql-http-cors-origins", kind: kindList, typ: "list",
			usage: "Comma-separated origins (regular expressions) browsers may call the GraphQL service from; \"all\" or \"*\" for any (default none)",
			apply: func(c *Config, v string) (err error) {
				c.GraphQL.HTTPCORSOrigins, err = parseCORSOrigins(v)
				return err
			}},
		{name: "p2p-enabled", kind: kindBool, def: "true",
			usage: "Enable peer-to-peer networking",
			apply: func(c *Config, v string) (err error) { c.P2P.Enabled, err = parseBoolValue(v); return err }},
		{name: "discovery-enabled", kind: kindBool, def: "true",
			usage: "Enable peer discovery",
			apply: func(c *Config, v string) (err error) { c.P2P.DiscoveryEnabled, err = parseBoolValue(v); return err }},
		{name: "p2p-host", typ: "ip", def: "127.0.0.1",
			usage: "IP address advertised to peers (the host of the enode URL)",
			apply: func(c *Config, v string) (err error) { c.P2P.Host, err = parseIP(v); return err }},
		{name: "p2p-interface", typ: "ip", def: "0.0.0.0",
			usage: "IP address of the network interface the peer-to-peer service listens on",
			apply: func(c *Config, v string) (err error) { c.P2P.Interface, err = parseIP(v); return err }},
		{name: "p2p-port", typ: "port", def: "30303",
			usage: "Peer-to-peer listening port, TCP and UDP (0 picks a free port)",
			apply: func(c *Config, v string) (err error) { c.P2P.Port, err = parsePort(v); return err }},
		{name: "max-peers", typ: "int", def: "25",
			usage: "Most connected peers",
			apply: func(c *Config, v string) (err error) { c.P2P.MaxPeers, err = parseIntValue(v, 0); return err }},
		{name: "bootnodes", kind: kindList, typ: "list",
			usage: "Comma-separated enode URLs of the nodes to discover peers through (default none)",
			apply: func(c *Config, v string) error {
				urls := splitList(v)
				for _, u := range urls {
					if _, err := enodeurl.Parse(u); err != nil {
						return err
					}
				}
				c.P2P.Bootnodes = urls
				return nil
			}},
		{name: "metrics-enabled", kind: kindBool, def: "false",
			usage: "Serve Prometheus metrics at GET /metrics on --metrics-host:--metrics-port",
			apply: func(c *Config, v string) (err error) { c.Metrics.Enabled, err = parseBoolValue(v); return err }},
		{name: "metrics-host", typ: "host", def: "127.0.0.1",
			usage: "Host the metrics service listens on (the Host header must pass --host-allowlist)",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.Metrics.Host = v
				return nil
			}},
		{name: "metrics-port", typ: "port", def: "9545",
			usage: "Port the metrics service listens on (0 picks a free port)",
			apply: func(c *Config, v string) (err error) { c.Metrics.Port, err = parsePort(v); return err }},
		{name: "metrics-category", aliases: []string{"metrics-categories"}, kind: kindList, typ: "list",
			usage: "Comma-separated metric categories to keep (default all but the RocksDB ones): " + strings.Join(metrics.Enums(metrics.NodeCategories), ", "),
			apply: func(c *Config, v string) error {
				cats, err := metrics.ParseCategories(metrics.NodeCategories, splitList(v))
				if len(cats) > 0 {
					c.Metrics.Categories = cats
				}
				return err
			}},
		{name: "metrics-push-enabled", kind: kindBool, def: "false",
			usage: "Push metrics to a Prometheus push gateway (cannot be combined with --metrics-enabled)",
			apply: func(c *Config, v string) (err error) { c.Metrics.PushEnabled, err = parseBoolValue(v); return err }},
		{name: "metrics-push-host", typ: "host", def: "127.0.0.1",
			usage: "Host of the Prometheus push gateway",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.Metrics.PushHost = v
				return nil
			}},
		{name: "metrics-push-port", typ: "port", def: "9001",
			usage: "Port of the Prometheus push gateway",
			apply: func(c *Config, v string) (err error) { c.Metrics.PushPort, err = parsePort(v); return err }},
		{name: "metrics-push-interval", typ: "seconds", def: "15",
			usage: "Seconds between two pushes to the push gateway",
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 1)
				c.Metrics.PushInterval = time.Duration(n) * time.Second
				return err
			}},
		{name: "metrics-push-prometheus-job", typ: "job", def: "besu-client",
			usage: "Job name the pushed metrics are grouped under",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.Metrics.PushJob = v
				return nil
			}},
		{name: "Xmetrics-timers-enabled", kind: kindBool, def: "true", hidden: true,
			usage: "Keep timers (histograms such as besu_rpc_request_time)",
			apply: func(c *Config, v string) error {
				on, err := parseBoolValue(v)
				c.Metrics.TimersDisabled = !on
				return err
			}},
		{name: "Xp2p-static-reconnect-seconds", typ: "int", def: "60", hidden: true,
			usage: "Seconds between redials of dropped static nodes",
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 1)
				c.P2P.StaticReconnectInterval = time.Duration(n) * time.Second
				return err
			}},
	}
}

// parseBoolValue reads a boolean option (cliconf.ParseBool).
func parseBoolValue(v string) (bool, error) { return cliconf.ParseBool(v) }

func parseUintValue(v string) (uint64, error) {
	n, err := parseBig("", strings.TrimSpace(v), decOrHex)
	if err != nil || !n.IsUint64() {
		return 0, errors.New("expected a non-negative integer")
	}
	return n.Uint64(), nil
}

// parseIntValue reads a decimal integer of at least min.
func parseIntValue(v string, min int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, errors.New("expected an integer")
	}
	if n < min {
		return 0, fmt.Errorf("must be at least %d", min)
	}
	return n, nil
}

// parseIP reads an IP address (Besu builds the enode URL and the listener
// from --p2p-host and --p2p-interface as addresses, not host names).
func parseIP(v string) (string, error) {
	v = strings.TrimSpace(v)
	if net.ParseIP(v) == nil {
		return "", errors.New("expected an IP address")
	}
	return v, nil
}

func parsePort(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > 65535 {
		return 0, errors.New("expected a port number from 0 to 65535")
	}
	return n, nil
}

// splitList splits a comma-separated list (cliconf.SplitList).
func splitList(v string) []string { return cliconf.SplitList(v) }

// jwtAlgorithms are the values of --rpc-*-authentication-jwt-algorithm:
// Besu's, less HS256 (a shared secret, not a public key).
var jwtAlgorithms = []string{"RS256", "RS384", "RS512", "ES256", "ES384", "ES512"}

func parseJWTAlgorithm(v string) (string, error) {
	a := strings.ToUpper(strings.TrimSpace(v))
	if a == "HS256" {
		return "", errors.New("HS256 is not supported: it needs a shared secret, not a public key (use RS256, RS384, RS512, ES256, ES384 or ES512)")
	}
	if !contains(jwtAlgorithms, a) {
		return "", fmt.Errorf("expected one of %s", strings.Join(jwtAlgorithms, ", "))
	}
	return a, nil
}

func parseAPIs(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, s := range splitList(v) {
		g := strings.ToUpper(s)
		if !contains(rpcAPIGroups, g) {
			return nil, fmt.Errorf("unknown API group %q (valid: %s)", s, strings.Join(rpcAPIGroups, ", "))
		}
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out, nil
}

// parseCORSOrigins follows Besu: "all" means "*", "none" means no origin,
// and neither can be combined with other values; every origin must be a
// valid regular expression.
func parseCORSOrigins(v string) ([]string, error) {
	items := splitList(v)
	var out []string
	for _, s := range items {
		switch strings.ToLower(s) {
		case "none":
			if len(items) > 1 {
				return nil, errors.New(`"none" can't be used with other origins`)
			}
			return nil, nil
		case "all", "*":
			if len(items) > 1 {
				return nil, errors.New(`"*" or "all" can't be used with other origins`)
			}
			return []string{"*"}, nil
		}
		if _, err := regexp.Compile(s); err != nil {
			return nil, fmt.Errorf("origin %q is not a valid regular expression", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseHostAllowlist follows Besu: "all" means "*", which can't be combined
// with hostnames; hostnames compare case-insensitively.
func parseHostAllowlist(v string) ([]string, error) {
	items := splitList(v)
	if len(items) == 0 {
		return nil, errors.New("hostname must not be empty")
	}
	var out []string
	for _, s := range items {
		h := strings.ToLower(s)
		if h == "all" || h == "*" {
			if len(items) > 1 {
				return nil, errors.New(`"*" or "all" can't be used with other hostnames`)
			}
			return []string{"*"}, nil
		}
		out = append(out, h)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
