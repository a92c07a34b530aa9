package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/version"
	"github.com/basaltchain/basalt/metrics"
)

// ClientName is the first part of the node's client ID.
const ClientName = "basalt"

// StaticNodesFile is the default --static-nodes-file, in the data path.
const StaticNodesFile = "static-nodes.json"

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
	// LogFormat is --logging-format: TEXT or JSON.
	LogFormat string
	// NodePrivateKeyFile is --node-private-key-file (default <data-path>/key).
	NodePrivateKeyFile string
	// Identity is --identity, "" when not given.
	Identity string
	// ClientID is how the node names itself in web3_clientVersion,
	// admin_nodeInfo and the devp2p handshake:
	// basalt/[<identity>/]<version>/<os>-<arch>/<go version>.
	ClientID string
	// PIDPath is --pid-path, "" when not given.
	PIDPath string
	// PrintPathsAndExit is --print-paths-and-exit.
	PrintPathsAndExit bool
	// SyncMode is --sync-mode, upper-case. Basalt syncs FULL whatever it
	// is; other modes get a start-up notice.
	SyncMode string
	// RevertReasonEnabled is --revert-reason-enabled: receipts of reverted
	// transactions carry revertReason.
	RevertReasonEnabled bool
	// API holds the options of the JSON-RPC and GraphQL methods.
	API APIConfig

	// Notices are the start-up lines about options that do not act as in
	// Besu (or are deprecated), and environment variables that name no
	// option; LogNotices logs them.
	Notices []Notice
	// given are the options set by a source other than their default, by
	// name, for the checks that involve several options.
	given map[string]cliconf.Value
	// privateConfigEnv is GoQuorum's PRIVATE_CONFIG, when set (checkPrivacy).
	privateConfigEnv *string

	// Genesis is the genesis of the selected network (--network or
	// --genesis-file), nil when neither was given; see RequireGenesis.
	Genesis *Genesis

	// Miner holds the --miner-* options.
	Miner MinerConfig
	// MinGasPrice is --min-gas-price in wei: the lowest gas price the
	// transaction pool accepts and the miner includes.
	MinGasPrice *big.Int
	// PprofAddress is --Xpprof-address: where Go's runtime profiles are
	// served, "" for nowhere.
	PprofAddress string
	// ClockOffset is the hidden --Xclock-offset-milliseconds: how far the
	// node's consensus clock (block timestamps, round timers' deadlines, the
	// future-block check) is from the wall clock. Zero but in
	// fault-injection tests, which skew one validator's clock with it.
	ClockOffset time.Duration
	// TxPool holds the --tx-pool-* options.
	TxPool TxPoolConfig
	// RPC holds the JSON-RPC options.
	RPC RPCConfig
	// HostAllowlist is --host-allowlist: the Host header values the RPC
	// servers accept, lower-cased; ["*"] accepts any.
	HostAllowlist []string
	// P2P holds the peer-to-peer options.
	P2P P2PConfig
	// Permissions holds the --permissions-*-config-file options.
	Permissions PermissionsConfig
	// GraphQL holds the --graphql-http-* options.
	GraphQL GraphQLConfig
	// Metrics holds the --metrics-* options.
	Metrics MetricsConfig
	// Privacy holds the --privacy-* options.
	Privacy PrivacyConfig
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

// APIConfig holds the options of the methods the JSON-RPC and GraphQL
// front ends share.
type APIConfig struct {
	// GasPriceBlocks is --api-gas-price-blocks: the blocks back from the
	// head eth_gasPrice and eth_maxPriorityFeePerGas sample.
	GasPriceBlocks int
	// GasPricePercentile is --api-gas-price-percentile (0 to 100).
	GasPricePercentile float64
	// GasPriceMax is --api-gas-price-max, in wei.
	GasPriceMax *big.Int
	// EstimateGasToleranceRatio is --estimate-gas-tolerance-ratio.
	EstimateGasToleranceRatio float64
	// GasCap is --rpc-gas-cap; 0 means the block's gas limit.
	GasCap uint64
	// SimulateMaxBlocks is --rpc-simulate-max-blocks.
	SimulateMaxBlocks uint64
	// SimulateGasCap is --rpc-simulate-gas-cap.
	SimulateGasCap uint64
}

// Notice is a start-up line about an option or environment variable.
type Notice struct {
	// Option is the flag ("--data-storage-format") or the environment
	// variable the line is about.
	Option string
	// Value is the value given, "" for an environment variable that names
	// no option.
	Value string
	// Source says where the value came from ("config file x.toml",
	// "environment variable BESU_SYNC_MODE", "command line").
	Source string
	// Message is the line: what Basalt does instead.
	Message string
	// Pending marks an option whose feature is not built yet.
	Pending bool
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
	// TargetGasLimit is --target-gas-limit, 0 when not given (mined blocks
	// keep their parent's gas limit).
	TargetGasLimit uint64
}

// TxPoolConfig holds the --tx-pool-* options.
type TxPoolConfig struct {
	// MaxSize is --tx-pool-max-size: the most transactions kept.
	MaxSize int
	// RetentionHours is --tx-pool-retention-hours: how long a transaction
	// may stay in the pool.
	RetentionHours int
	// Implementation is --tx-pool: LAYERED or SEQUENCED (Besu's LEGACY).
	// It decides which of Besu's pool options may be given; Basalt's pool
	// serves both.
	Implementation string
	// PriceBump is --tx-pool-price-bump, a percentage.
	PriceBump uint64
	// MaxFutureBySender is --tx-pool-max-future-by-sender.
	MaxFutureBySender uint64
	// LimitByAccountPercentage is --tx-pool-limit-by-account-percentage.
	LimitByAccountPercentage float64
	// MaxFutureNonceGap is the nonce gap the pool allows a sender: the
	// sequenced pool's ceil(LimitByAccountPercentage × MaxSize) when that
	// option is given (or --tx-pool=sequenced), else MaxFutureBySender.
	MaxFutureNonceGap uint64
	// MinGasPrice is --tx-pool-min-gas-price, nil when not given (the pool
	// then uses --min-gas-price).
	MinGasPrice *big.Int
	// NoLocalPriority is --tx-pool-no-local-priority.
	NoLocalPriority bool
	// TxFeeCap is --rpc-tx-feecap in wei; 0 means no cap.
	TxFeeCap *big.Int
	// StrictReplayProtection is --strict-tx-replay-protection-enabled.
	StrictReplayProtection bool
	// LayerMaxCapacity is --tx-pool-layer-max-capacity (bytes) and
	// MaxPrioritized --tx-pool-max-prioritized: the layered pool's limits,
	// from which MaxSize is derived when --tx-pool-max-size is not given
	// (LayeredPoolSize).
	LayerMaxCapacity int64
	MaxPrioritized   int
	// SaveRestore is --tx-pool-enable-save-restore: save the pool on a
	// clean shutdown and load it at start-up.
	SaveRestore bool
	// SaveFile is --tx-pool-save-file, relative to DataPath unless absolute.
	SaveFile string
	// Journal is --tx-pool-journal-enabled: journal local transactions
	// (written before they are acknowledged) and replay them at start-up.
	Journal bool
	// JournalSync is --tx-pool-journal-sync: WRITE (a record is written
	// before its submission is answered and fsynced in the background) or
	// FSYNC (written and fsynced before).
	JournalSync string
}

// layeredTxBytes is the memory the layered pool's size assumes per
// transaction: about what a simple transfer occupies in Besu's estimate
// and in Basalt's pool (the transaction with its caches and the pool's
// indexes).
const layeredTxBytes = 1000

// LayeredPoolSize is how many transactions Basalt's pool holds for Besu's
// layered pool limits: the prioritized layer plus the ready and sparse
// layers of capacity bytes each. Besu's defaults (2,000 and 12.5 MB) give
// 27,000, room for a burst of 10,000 transfers with most of the pool free.
func LayeredPoolSize(maxPrioritized int, capacity int64) int {
	n := int64(maxPrioritized) + 2*capacity/layeredTxBytes
	return int(min(n, math.MaxInt32))
}

// DefaultTxPoolSaveFile is --tx-pool-save-file's default (Besu's).
const DefaultTxPoolSaveFile = "txpool.dump"

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
	// MaxTraceSize is --rpc-max-trace-size: the most bytes of one
	// debug_trace* answer; 0 means no limit.
	MaxTraceSize int

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
	// WSMaxQueuedBytes is --rpc-ws-max-queued-bytes: how many bytes of
	// notifications may wait for one WebSocket client (rpc.WSConfig's
	// SendQueueBytes).
	WSMaxQueuedBytes int64
	// WSMaxActiveConnections is --rpc-ws-max-active-connections.
	WSMaxActiveConnections int
	// HTTPMaxActiveConnections is --rpc-http-max-active-connections.
	HTTPMaxActiveConnections int
	// HTTPMaxRequestContentLength is --rpc-http-max-request-content-length.
	HTTPMaxRequestContentLength int64
	// PrettyJSON is --json-pretty-print-enabled.
	PrettyJSON bool
	// HTTPTimeout and WSTimeout are the hidden --Xhttp-timeout-seconds and
	// --Xws-timeout-seconds: how long one request may run.
	HTTPTimeout, WSTimeout time.Duration

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
	// StaticNodesFile is --static-nodes-file (default
	// <data-path>/static-nodes.json).
	StaticNodesFile string
	// NATMethod is --nat-method, upper-case.
	NATMethod string
	// NetRestrict is --net-restrict: the subnets peers must be in; nil
	// allows any.
	NetRestrict []string
	// BannedNodeIDs is --banned-node-ids: node IDs in lower-case hex,
	// without 0x.
	BannedNodeIDs []string
	// StaticReconnectInterval is how often dropped static nodes are
	// redialed: 60 seconds as in Besu; the hidden
	// --Xp2p-static-reconnect-seconds shortens it for tests.
	StaticReconnectInterval time.Duration
}

// PermissionsFile is the default --permissions-accounts-config-file and
// --permissions-nodes-config-file, in the data path.
const PermissionsFile = "permissions_config.toml"

// PermissionsConfig holds the local permissioning options.
type PermissionsConfig struct {
	// AccountsEnabled is --permissions-accounts-config-file-enabled.
	AccountsEnabled bool
	// AccountsFile is --permissions-accounts-config-file (default
	// <data-path>/permissions_config.toml).
	AccountsFile string
	// NodesEnabled is --permissions-nodes-config-file-enabled.
	NodesEnabled bool
	// NodesFile is --permissions-nodes-config-file (default
	// <data-path>/permissions_config.toml).
	NodesFile string
	// DNSEnabled and DNSUpdateEnabled are --Xdns-enabled and
	// --Xdns-update-enabled: host names in the nodes allowlist.
	DNSEnabled, DNSUpdateEnabled bool
}

// Slog levels for Besu's logging levels that slog lacks.
const (
	LevelAll   = slog.Level(-1 << 20)
	LevelTrace = slog.LevelDebug - 4
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
	"FATAL": slog.LevelError, // deprecated in Besu, which logs at ERROR
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

// UnstableHelp is what --Xhelp prints: the hidden options Basalt acts on,
// as --help prints options, and a word on the others.
func UnstableHelp() string {
	fs := pflag.NewFlagSet("basalt", pflag.ContinueOnError)
	for _, o := range options() {
		if o.Hidden && (o.status == acts || o.status == own) {
			spec := o.spec()
			spec.Hidden = false
			cliconf.AddFlags(fs, spec)
		}
	}
	return "Hidden options (Besu's early-access --X options and Basalt's own; they may change between releases):\n\n" +
		fs.FlagUsages() +
		"\nBesu's other --X options are accepted and have no effect; the node names each one given at start-up.\n"
}

// Load reads the configuration for cmd, which is the root command or one of
// its subcommands (whose flags include the root's persistent flags). Each
// option comes from, in order of precedence: the command line, the
// environment variable BASALT_<NAME> (or Besu's BESU_<NAME>), the TOML file
// named by --config-file, the default. Load validates every option, loads
// the genesis of the selected network if one is selected, and returns
// errors that name the option.
func Load(cmd *cobra.Command) (*Config, error) {
	return load(cmd.Flags(), os.LookupEnv, os.Environ())
}

// EnvName returns the environment variable for an option name, e.g.
// "rpc-http-port" -> "BASALT_RPC_HTTP_PORT".
func EnvName(option string) string {
	return cliconf.EnvName(EnvPrefix, "", option)
}

// BesuEnvPrefix starts the environment variables Besu reads; Basalt reads
// them too, after its own (BASALT_RPC_HTTP_PORT wins over
// BESU_RPC_HTTP_PORT), so that compose files and Kubernetes manifests
// written for Besu work unchanged.
const BesuEnvPrefix = "BESU_"

// notOptionEnv reports environment variables with Basalt's or Besu's prefix
// that are not meant as options: basalt-privacy's (BASALT_PRIVACY_), the
// tests' (BASALT_TEST_) and the Besu launcher's JVM settings (BESU_OPTS,
// which gets a notice of its own).
func notOptionEnv(name string) bool {
	return strings.HasPrefix(name, "BASALT_PRIVACY_") || strings.HasPrefix(name, "BASALT_TEST_") || name == "BESU_OPTS"
}

func load(flags *pflag.FlagSet, lookupEnv func(string) (string, bool), environ []string) (*Config, error) {
	opts := options()
	tab := table(opts)
	spec := newSpec(tab)
	values, err := spec.Load(cliconf.Sources{Flags: flags, LookupEnv: lookupEnv})
	if err != nil {
		return nil, err
	}
	cfg := &Config{given: map[string]cliconf.Value{}}
	byName := make(map[string]option, len(opts))
	for _, o := range opts {
		byName[o.Name] = o
	}
	err = tab.Apply(values, cfg, func(b *cliconf.Binding[Config], v cliconf.Value, err error) error {
		o := byName[b.Name]
		if err != nil {
			return v.Invalid(err)
		}
		if v.Source.Kind != cliconf.FromDefault {
			cfg.given[o.Name] = v
			if o.noted(v.Text) {
				cfg.notice(o.Name, v, o.basalt, o.status == pending)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); !notOptionEnv(name) {
			unknown = append(unknown, kv)
		} else if name == "BESU_OPTS" {
			cfg.Notices = append(cfg.Notices, Notice{Option: name, Source: "environment",
				Message: "JVM options have no meaning for Basalt, a Go program"})
		}
	}
	for _, name := range spec.UnknownEnv(unknown) {
		cfg.Notices = append(cfg.Notices, Notice{Option: name, Source: "environment",
			Message: "environment variable names no option; it has no effect"})
	}
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	if v, ok := lookupEnv(PrivateConfigEnv); ok {
		cfg.privateConfigEnv = &v
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// notice records the start-up line msg about the given value v of option
// name.
func (c *Config) notice(name string, v cliconf.Value, msg string, pending bool) {
	c.Notices = append(c.Notices, Notice{Option: "--" + name, Value: v.Text, Source: v.Source.String(), Message: msg, Pending: pending})
}

// LogNotices logs the start-up notices: a warning each for options whose
// feature is not built yet and environment variables that name no option,
// an info line each for options Basalt handles its own way.
func (c *Config) LogNotices(log *slog.Logger) {
	for _, n := range c.Notices {
		args := []any{"option", n.Option}
		if n.Value != "" {
			args = append(args, "value", n.Value)
		}
		if n.Source != "" {
			args = append(args, "from", n.Source)
		}
		args = append(args, "basalt", n.Message)
		switch {
		case n.Pending:
			log.Warn("Option not built yet", args...)
		case n.Value == "":
			log.Warn("Ignored", args...)
		default:
			log.Info("Option handled differently from Besu", args...)
		}
	}
}

// finish derives defaults that depend on other options, loads the genesis
// and checks the rules that involve several options.
func (c *Config) finish() error {
	if c.NodePrivateKeyFile == "" {
		c.NodePrivateKeyFile = filepath.Join(c.DataPath, "key")
	}
	if c.P2P.StaticNodesFile == "" {
		c.P2P.StaticNodesFile = filepath.Join(c.DataPath, StaticNodesFile)
	}
	if c.Permissions.AccountsFile == "" {
		c.Permissions.AccountsFile = filepath.Join(c.DataPath, PermissionsFile)
	}
	if c.Permissions.NodesFile == "" {
		c.Permissions.NodesFile = filepath.Join(c.DataPath, PermissionsFile)
	}
	c.ClientID = version.ClientID(ClientName, c.Identity)
	if c.Permissions.DNSUpdateEnabled && !c.Permissions.DNSEnabled {
		return errors.New("The `--Xdns-update-enabled` requires dns to be enabled. Either remove --Xdns-update-enabled or specify dns is enabled (--Xdns-enabled)")
	}
	if err := c.checkBesuRules(); err != nil {
		return err
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
	if c.given["tx-pool-price-bump"].Text != "" && c.Genesis != nil && c.Genesis.ZeroBaseFee {
		return errors.New("--tx-pool-price-bump: Price bump option is not compatible with zero base fee market (the genesis sets zeroBaseFee)")
	}
	if c.Genesis != nil && c.Genesis.ZeroBaseFee ||
		c.given["tx-pool-price-bump"].Text == "" && c.MinGasPrice != nil && c.MinGasPrice.Sign() == 0 {
		// Besu forces the replacement bump to 0 on a zero-base-fee network
		// and, unless given, with --min-gas-price=0: a free transaction can
		// only be replaced by another free one.
		c.TxPool.PriceBump = 0
	}
	if err := c.checkPrivacy(); err != nil {
		return err
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
