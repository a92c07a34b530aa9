package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/metrics"
)

// EnvPrefix starts the name of every environment variable Basalt reads:
// BASALT_ + the option name in upper case with dashes as underscores.
const EnvPrefix = "BASALT_"

// DefaultDataPath is the default --data-path.
const DefaultDataPath = "./basalt-data"

// Config is the configuration of the basalt program, read from the command
// line, the environment and a TOML file (see Load) and validated once.
type Config struct {
	// DataPath is the node's data directory (--data-path).
	DataPath string
	// GenesisFile is the --genesis-file path, "" when a named network is used.
	GenesisFile string
	// Network is the lower-case --network name, "" when not given.
	Network string
	// NetworkID is --network-id; it defaults to the genesis chain ID (0 when
	// no genesis is selected).
	NetworkID uint64
	// ConfigFile is the --config-file path, "" when none.
	ConfigFile string
	// Logging is the --logging level in upper case (OFF, FATAL, ERROR,
	// WARN, INFO, DEBUG, TRACE or ALL).
	Logging string
	// LogLevel is Logging as a slog level (see LevelTrace and friends).
	LogLevel slog.Level
	// NodePrivateKeyFile is --node-private-key-file (default <data-path>/key).
	NodePrivateKeyFile string

	// Genesis is the genesis of the selected network (--network or
	// --genesis-file), nil when neither was given; see RequireGenesis.
	Genesis *Genesis

	// Miner holds the --miner-* options.
	Miner MinerConfig
	// MinGasPrice is --min-gas-price in wei: the lowest gas price the
	// transaction pool accepts and the miner includes.
	MinGasPrice *big.Int
	// TxPool holds the --tx-pool-* options.
	TxPool TxPoolConfig
	// RPC holds the JSON-RPC options.
	RPC RPCConfig
	// HostAllowlist is --host-allowlist: the Host header values the RPC
	// servers accept, lower-cased; ["*"] accepts any.
	HostAllowlist []string
	// P2P holds the peer-to-peer options.
	P2P P2PConfig
	// GraphQL holds the --graphql-http-* options.
	GraphQL GraphQLConfig
	// Metrics holds the --metrics-* options.
	Metrics MetricsConfig
}

// MetricsConfig holds the --metrics-* options. With neither Enabled nor
// PushEnabled the node keeps no metrics at all.
type MetricsConfig struct {
	// Enabled is --metrics-enabled: serve GET /metrics on Host:Port.
	Enabled bool
	// Host is --metrics-host.
	Host string
	// Port is --metrics-port (0 picks a free port).
	Port int
	// Categories is --metrics-category: the enabled categories; nil means
	// metrics.NodeDefaults.
	Categories []metrics.Category
	// PushEnabled is --metrics-push-enabled: push to a Prometheus push
	// gateway instead of being scraped.
	PushEnabled bool
	// PushHost and PushPort are --metrics-push-host and
	// --metrics-push-port: the push gateway.
	PushHost string
	PushPort int
	// PushInterval is --metrics-push-interval (seconds on the command line).
	PushInterval time.Duration
	// PushJob is --metrics-push-prometheus-job.
	PushJob string
	// TimersDisabled is the hidden --Xmetrics-timers-enabled=false: timers
	// (histograms such as besu_rpc_request_time) are not kept.
	TimersDisabled bool
}

// GraphQLConfig holds the --graphql-http-* options.
type GraphQLConfig struct {
	// HTTPEnabled is --graphql-http-enabled.
	HTTPEnabled bool
	// HTTPHost is --graphql-http-host.
	HTTPHost string
	// HTTPPort is --graphql-http-port (0 picks a free port).
	HTTPPort int
	// HTTPCORSOrigins is --graphql-http-cors-origins, read like
	// --rpc-http-cors-origins.
	HTTPCORSOrigins []string
}

// MinerConfig holds the --miner-* options.
type MinerConfig struct {
	// Enabled is --miner-enabled.
	Enabled bool
	// Coinbase is --miner-coinbase, nil when not given.
	Coinbase *common.Address
	// ExtraData is --miner-extra-data (at most 32 bytes, nil when not given).
	ExtraData []byte
}

// TxPoolConfig holds the --tx-pool-* options.
type TxPoolConfig struct {
	// MaxSize is --tx-pool-max-size: the most transactions kept.
	MaxSize int
	// RetentionHours is --tx-pool-retention-hours: how long a transaction
	// may stay in the pool.
	RetentionHours int
}

// RPCConfig holds the JSON-RPC options.
type RPCConfig struct {
	// HTTPEnabled is --rpc-http-enabled.
	HTTPEnabled bool
	// HTTPHost is --rpc-http-host.
	HTTPHost string
	// HTTPPort is --rpc-http-port (0 picks a free port).
	HTTPPort int
	// HTTPAPIs is --rpc-http-api: the enabled method groups, upper-case
	// (ETH, NET, WEB3, ...), without duplicates.
	HTTPAPIs []string
	// HTTPCORSOrigins is --rpc-http-cors-origins: allowed origins (regular
	// expressions, as in Besu), ["*"] for any, nil for none.
	HTTPCORSOrigins []string
	// HTTPMaxBatchSize is --rpc-http-max-batch-size; -1 means no limit.
	HTTPMaxBatchSize int
	// MaxLogsRange is --rpc-max-logs-range: the most blocks one
	// eth_getLogs may cover; 0 means no limit.
	MaxLogsRange int64

	// WSEnabled is --rpc-ws-enabled.
	WSEnabled bool
	// WSHost is --rpc-ws-host.
	WSHost string
	// WSPort is --rpc-ws-port (0 picks a free port).
	WSPort int
	// WSAPIs is --rpc-ws-api: the method groups enabled over WebSocket,
	// like HTTPAPIs.
	WSAPIs []string
	// WSMaxFrameSize is --rpc-ws-max-frame-size: the largest message, in
	// bytes, a WebSocket client may send.
	WSMaxFrameSize int
	// WSMaxActiveConnections is --rpc-ws-max-active-connections.
	WSMaxActiveConnections int

	// HTTPAuth holds the --rpc-http-authentication-* options.
	HTTPAuth AuthConfig
	// WSAuth holds the --rpc-ws-authentication-* options.
	WSAuth AuthConfig
}

// AuthConfig holds the authentication options of one JSON-RPC endpoint
// (--rpc-http-authentication-* or --rpc-ws-authentication-*). When Enabled,
// exactly one of CredentialsFile and JWTPublicKeyFile is set; the files are
// read when the node starts (package rpc/auth).
type AuthConfig struct {
	// Enabled is --rpc-*-authentication-enabled.
	Enabled bool
	// CredentialsFile is --rpc-*-authentication-credentials-file: the TOML
	// users file that POST /login checks.
	CredentialsFile string
	// JWTPublicKeyFile is --rpc-*-authentication-jwt-public-key-file: a PEM
	// public key verifying externally issued tokens.
	JWTPublicKeyFile string
	// JWTAlgorithm is --rpc-*-authentication-jwt-algorithm, upper-case: the
	// algorithm JWTPublicKeyFile verifies (RS256 by default).
	JWTAlgorithm string
}

// P2PConfig holds the peer-to-peer options.
type P2PConfig struct {
	// Enabled is --p2p-enabled.
	Enabled bool
	// Host is --p2p-host: the address advertised to peers.
	Host string
	// Interface is --p2p-interface: the address to listen on.
	Interface string
	// Port is --p2p-port (TCP and UDP; 0 picks a free port).
	Port int
	// MaxPeers is --max-peers.
	MaxPeers int
	// DiscoveryEnabled is --discovery-enabled.
	DiscoveryEnabled bool
	// Bootnodes is --bootnodes: enode URLs.
	Bootnodes []string
	// StaticReconnectInterval is how often dropped static nodes are
	// redialed: 60 seconds as in Besu; the hidden
	// --Xp2p-static-reconnect-seconds shortens it for tests.
	StaticReconnectInterval time.Duration
}

// Slog levels for Besu's logging levels that slog lacks.
const (
	LevelAll   = slog.Level(-1 << 20)
	LevelTrace = slog.LevelDebug - 4
	LevelFatal = slog.LevelError + 4
	LevelOff   = slog.Level(1 << 20)
)

// logLevels maps Besu's --logging values to slog levels.
var logLevels = map[string]slog.Level{
	"ALL":   LevelAll,
	"TRACE": LevelTrace,
	"DEBUG": slog.LevelDebug,
	"INFO":  slog.LevelInfo,
	"WARN":  slog.LevelWarn,
	"ERROR": slog.LevelError,
	"FATAL": LevelFatal,
	"OFF":   LevelOff,
}

// RequireGenesis returns the selected network's genesis, or an error telling
// the user how to select one. Besu defaults to mainnet, which Basalt does
// not support, so Basalt asks instead of guessing.
func (c *Config) RequireGenesis() (*Genesis, error) {
	if c.Genesis == nil {
		return nil, errors.New("no network selected: give --network=dev or --genesis-file=<FILE> (basalt does not support mainnet, Besu's default)")
	}
	return c.Genesis, nil
}

// AddFlags registers Basalt's options on the root command: the options
// subcommands share (--data-path, --genesis-file, --network, --config-file,
// --node-private-key-file, --logging) as persistent flags, the node's
// options as local flags.
func AddFlags(root *cobra.Command) {
	var shared, local []cliconf.Option
	for _, o := range options() {
		if o.persistent {
			shared = append(shared, o.spec())
		} else {
			local = append(local, o.spec())
		}
	}
	cliconf.AddFlags(root.PersistentFlags(), shared...)
	cliconf.AddFlags(root.Flags(), local...)
}

// Load reads the configuration for cmd, which is the root command or one of
// its subcommands (whose flags include the root's persistent flags). Each
// option comes from, in order of precedence: the command line, the
// environment variable BASALT_<NAME>, the TOML file named by --config-file,
// the default. Load validates every option, loads the genesis of the
// selected network if one is selected, and returns errors that name the
// option.
func Load(cmd *cobra.Command) (*Config, error) {
	return load(cmd.Flags(), os.LookupEnv)
}

// EnvName returns the environment variable for an option name, e.g.
// "rpc-http-port" -> "BASALT_RPC_HTTP_PORT".
func EnvName(option string) string {
	return cliconf.EnvName(EnvPrefix, "", option)
}

func load(flags *pflag.FlagSet, lookupEnv func(string) (string, bool)) (*Config, error) {
	opts := options()
	values, err := newSpec(opts).Load(cliconf.Sources{Flags: flags, LookupEnv: lookupEnv})
	if err != nil {
		return nil, err
	}
	cfg := new(Config)
	for _, o := range opts {
		v := values.Get(o.name)
		if err := o.apply(cfg, v.Text); err != nil {
			return nil, v.Invalid(err)
		}
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// finish derives defaults that depend on other options, loads the genesis
// and checks the rules that involve several options.
func (c *Config) finish() error {
	if c.NodePrivateKeyFile == "" {
		c.NodePrivateKeyFile = filepath.Join(c.DataPath, "key")
	}
	switch {
	case c.Network != "" && c.GenesisFile != "":
		return errors.New("--network and --genesis-file can't be used at the same time: give one of them")
	case c.Network != "":
		g, err := NamedNetwork(c.Network)
		if err != nil {
			return fmt.Errorf("invalid value %q for --network: %v", c.Network, err)
		}
		c.Genesis = g
	case c.GenesisFile != "":
		g, err := LoadGenesisFile(c.GenesisFile)
		if err != nil {
			return fmt.Errorf("--genesis-file: %v", err)
		}
		c.Genesis = g
	}
	if c.NetworkID == 0 && c.Genesis != nil {
		id := c.Genesis.ChainID()
		if !id.IsUint64() {
			return fmt.Errorf("--network-id: the genesis chain ID %s does not fit in 64 bits; give --network-id", id)
		}
		c.NetworkID = id.Uint64()
	}
	if c.Metrics.Enabled && c.Metrics.PushEnabled {
		// Besu's wording (MetricsOptions).
		return errors.New("--metrics-enabled option and --metrics-push-enabled option can't be used at the same time. Please refer to CLI reference for more details about this constraint")
	}
	if c.Miner.Enabled && c.Miner.Coinbase == nil {
		// Besu's wording (MiningOptions.validate).
		return errors.New("Unable to mine without a valid coinbase. Either disable mining (remove --miner-enabled) or specify the beneficiary of mining (via --miner-coinbase <Address>)")
	}
	for _, a := range []struct {
		auth     AuthConfig
		prefix   string
		endpoint string
	}{{c.RPC.HTTPAuth, "--rpc-http-authentication-", "HTTP"}, {c.RPC.WSAuth, "--rpc-ws-authentication-", "WebSocket"}} {
		switch {
		case !a.auth.Enabled:
		case a.auth.CredentialsFile == "" && a.auth.JWTPublicKeyFile == "":
			// Besu's wording (JsonRpcHttpOptions / RpcWebsocketOptions), plus the options.
			return fmt.Errorf("Unable to authenticate JSON-RPC %s endpoint without a supplied credentials file or authentication public key file: give %scredentials-file or %sjwt-public-key-file",
				a.endpoint, a.prefix, a.prefix)
		case a.auth.CredentialsFile != "" && a.auth.JWTPublicKeyFile != "":
			return fmt.Errorf("%scredentials-file and %sjwt-public-key-file can't be used together: give the credentials file to issue tokens at /login, or the public key to accept tokens issued elsewhere",
				a.prefix, a.prefix)
		}
	}
	ports := map[int]string{}
	for _, p := range []struct {
		on   bool
		port int
		flag string
	}{
		{c.RPC.HTTPEnabled, c.RPC.HTTPPort, "--rpc-http-port"},
		{c.RPC.WSEnabled, c.RPC.WSPort, "--rpc-ws-port"},
		{c.GraphQL.HTTPEnabled, c.GraphQL.HTTPPort, "--graphql-http-port"},
		{c.Metrics.Enabled, c.Metrics.Port, "--metrics-port"},
		{c.P2P.Enabled, c.P2P.Port, "--p2p-port"},
	} {
		if !p.on || p.port == 0 {
			continue
		}
		if prev, dup := ports[p.port]; dup {
			return fmt.Errorf("port %d is given to both %s and %s", p.port, prev, p.flag)
		}
		ports[p.port] = p.flag
	}
	return nil
}
