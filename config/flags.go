package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpc/rpctypes"
)

// Option kinds, named for the table below (see cliconf.Kind).
const (
	kindString = cliconf.String
	kindBool   = cliconf.Bool
	kindList   = cliconf.List // comma-separated on the command line and in env vars; a TOML array or string in the file
)

// optConfigFile is the one option the config file cannot set.
const optConfigFile = "config-file"

// option describes one option: its flag, environment variables
// (EnvName(name)) and config-file key (name) at once, how it sets Config,
// and how Basalt's handling of it compares with Besu's (config/README.md's
// table is written from these).
type option struct {
	name       string
	aliases    []string // older Besu names, accepted everywhere, hidden in help
	shorthand  string
	kind       cliconf.Kind
	typ        string // value name shown in help
	def        string // default, written as on the command line (Besu's, for Besu's options)
	usage      string
	persistent bool // shared with subcommands
	hidden     bool // left out of --help (Besu's --X options)
	// apply checks a value and sets Config from it; nil for an option that
	// sets nothing, whose value check checks.
	apply func(c *Config, v string) error
	check func(v string) error

	// status says how Basalt treats the option compared with Besu.
	status status
	// basalt says what Basalt does where it differs from Besu: for an
	// option that does not act as in Besu it is the start-up line logged
	// when the option is given (see noteWhen), and the README's entry.
	basalt string
	// noteWhen says whether a given value gets the start-up line; nil means
	// a Bool when true, any other kind when not empty.
	noteWhen func(v string) bool
}

// status is how Basalt treats a Besu option.
type status int

const (
	// acts: the option does what it does in Besu.
	acts status = iota
	// own: a Basalt option Besu does not have (--logging-format, the hidden
	// --Xp2p-static-reconnect-seconds).
	own
	// differs: accepted; Basalt does something else, which it says at
	// start-up when the option is given.
	differs
	// pending: accepted; the feature is built by another part of the
	// project (metrics, privacy), and the node says at start-up that it is
	// not there yet.
	pending
	// refused: accepted when it asks for nothing Basalt lacks (false, empty);
	// a value that would weaken the node's security if it were ignored
	// (TLS, permissioning, an HSM key) stops the node with a clear error.
	refused
)

// spec is the loader's description of o. Options that do not act are left
// out of --help (config/README.md lists them), as are hidden ones.
func (o option) spec() cliconf.Option {
	return cliconf.Option{Name: o.name, Aliases: o.aliases, Shorthand: o.shorthand, Kind: o.kind,
		Type: o.typ, Default: o.def, Usage: o.usage, Hidden: o.hidden || (o.status != acts && o.status != own)}
}

// noted reports whether the given value v gets the start-up line.
func (o option) noted(v string) bool {
	if o.basalt == "" {
		return false
	}
	if o.noteWhen != nil {
		return o.noteWhen(v)
	}
	if o.kind == kindBool {
		b, err := cliconf.ParseBool(v)
		return err == nil && b
	}
	return strings.TrimSpace(v) != ""
}

// set applies value v of o to c: apply, or check for an option that sets
// nothing.
func (o option) set(c *Config, v string) error {
	if o.apply != nil {
		return o.apply(c, v)
	}
	if o.check != nil && strings.TrimSpace(v) != "" { // empty: not given, or given as nothing
		return o.check(v)
	}
	return nil
}

// newSpec returns the loader's description of the basalt program: opts,
// the BASALT_ and then BESU_ environment prefixes (an empty variable counts
// as unset) and
// --config-file, whose values may be any TOML scalar written as on the
// command line, as in Besu.
func newSpec(opts []option) *cliconf.Spec {
	s := &cliconf.Spec{EnvPrefixes: []string{EnvPrefix, BesuEnvPrefix}, FileOption: optConfigFile}
	for _, o := range opts {
		s.Options = append(s.Options, o.spec())
	}
	return s
}

// rpcAPIGroups are the JSON-RPC method groups --rpc-http-api and
// --rpc-ws-api accept: all of Besu's, as the JSON-RPC server knows them,
// including groups this node may not serve (the node names those at
// start-up).
var rpcAPIGroups = rpctypes.KnownGroups

// options returns the table of every option, in no particular order (help
// sorts them). Adding an option is adding an entry here and a field to
// Config.
func options() []option {
	return append(append(nodeOptions(), privacyOptions()...), besuOptions()...)
}

// nodeOptions are the options Basalt acts on (and its own).
func nodeOptions() []option {
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
			usage: "Logging verbosity: OFF, ERROR, WARN, INFO, DEBUG, TRACE or ALL (FATAL, deprecated in Besu, means ERROR)",
			apply: func(c *Config, v string) error {
				level := strings.ToUpper(strings.TrimSpace(v))
				l, ok := logLevels[level]
				if !ok {
					return errors.New("expected one of OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL")
				}
				c.Logging, c.LogLevel = level, l
				return nil
			},
			basalt: "FATAL is deprecated (as in Besu): logging at ERROR", noteWhen: func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "FATAL") }},
		{name: "logging-format", typ: "format", def: "TEXT", persistent: true, status: own,
			usage: "Log line format: TEXT (key=value pairs) or JSON (one object per line, for log pipelines)",
			apply: func(c *Config, v string) (err error) { c.LogFormat, err = parseEnum(v, "TEXT", "JSON"); return err }},
		{name: "identity", typ: "name",
			usage: "Node name, the second part of the client ID (basalt/<identity>/<version>/...) in web3_clientVersion, admin_nodeInfo and the peer-to-peer handshake",
			apply: func(c *Config, v string) error { c.Identity = strings.TrimSpace(v); return nil }},
		{name: "pid-path", typ: "path",
			usage: "File the node writes its process ID to while it runs (removed at exit)",
			apply: func(c *Config, v string) error { c.PIDPath = v; return nil }},
		{name: "print-paths-and-exit", kind: kindBool, def: "false",
			usage: "Print the paths the node would use (data path, database, node key, static nodes file) and exit",
			apply: func(c *Config, v string) (err error) { c.PrintPathsAndExit, err = parseBoolValue(v); return err }},

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
		{name: "tx-pool", typ: "kind", def: "layered",
			usage: "Besu's transaction pool implementation (layered or sequenced); selects which of Besu's pool options apply, Basalt's one pool serves both",
			apply: func(c *Config, v string) (err error) {
				c.TxPool.Implementation, err = parseEnum(v, "LAYERED", "SEQUENCED", "LEGACY")
				if c.TxPool.Implementation == "LEGACY" {
					c.TxPool.Implementation = "SEQUENCED" // Besu's earlier name
				}
				return err
			},
			basalt:   "Basalt's one pool bounds the pool by --tx-pool-max-size transactions and each sender's nonce gap by --tx-pool-max-future-by-sender, whichever implementation is named",
			noteWhen: func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "layered") }},
		{name: "tx-pool-price-bump", typ: "percent", def: "10",
			usage: "Percentage by which a replacement transaction (same sender and nonce) must raise the price",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, 100)
				c.TxPool.PriceBump = uint64(n)
				return err
			}},
		{name: "tx-pool-max-future-by-sender", typ: "int", def: "200",
			usage: "Most nonces a sender's transaction may be ahead of its account nonce (layered pool)",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.TxPool.MaxFutureBySender = uint64(n)
				return err
			}},
		{name: "tx-pool-limit-by-account-percentage", typ: "fraction", def: "0.001",
			usage: "Fraction (0 to 1] of --tx-pool-max-size a sender's transaction may be ahead of its account nonce (sequenced pool)",
			apply: func(c *Config, v string) error {
				f, err := parseFloat(v, 0, 1)
				if err == nil && f == 0 {
					err = errors.New("must be greater than 0 and at most 1")
				}
				c.TxPool.LimitByAccountPercentage = f
				return err
			}},
		{name: "tx-pool-min-gas-price", typ: "wei",
			usage: "Lowest gas price, in wei, of transactions accepted into the pool (default --min-gas-price)",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return nil
				}
				n, err := parseBig("", strings.TrimSpace(v), decOrHex)
				if err != nil {
					return errors.New("expected a non-negative integer (decimal or 0x hex)")
				}
				c.TxPool.MinGasPrice = n
				return nil
			}},
		{name: "tx-pool-no-local-priority", aliases: []string{"tx-pool-disable-locals"}, kind: kindBool, def: "false",
			usage: "Do not prefer transactions sent to this node over those from peers when evicting and ordering",
			apply: func(c *Config, v string) (err error) { c.TxPool.NoLocalPriority, err = parseBoolValue(v); return err }},
		{name: "tx-pool-enable-save-restore", kind: kindBool, def: "false",
			usage: "Save the transaction pool to --tx-pool-save-file on shutdown and load it back at start-up",
			apply: func(c *Config, v string) (err error) { c.TxPool.SaveRestore, err = parseBoolValue(v); return err }},
		{name: "tx-pool-save-file", typ: "file", def: DefaultTxPoolSaveFile,
			usage: "File the transaction pool is saved to and restored from (relative to --data-path)",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must not be empty")
				}
				c.TxPool.SaveFile = v
				return nil
			}},
		{name: "tx-pool-journal-enabled", kind: kindBool, def: "true", status: own,
			usage: "Journal transactions sent to this node, in the journal file before eth_sendRawTransaction answers (see --tx-pool-journal-sync), and replay them at start-up, so that a crash loses none",
			apply: func(c *Config, v string) (err error) { c.TxPool.Journal, err = parseBoolValue(v); return err }},
		{name: "tx-pool-journal-sync", typ: "mode", def: "WRITE", status: own,
			usage: "When a journaled submission is answered: WRITE, once its record is written (survives the process dying: SIGKILL, a panic, the OOM killer; fsynced within 100 ms), or FSYNC, once it is also fsynced (survives a power cut; costs burst throughput)",
			apply: func(c *Config, v string) (err error) {
				c.TxPool.JournalSync, err = parseEnum(v, "WRITE", "FSYNC")
				return err
			}},
		{name: "rpc-tx-feecap", typ: "wei", def: "1000000000000000000",
			usage: "Highest gas price (max fee per gas), in wei, a transaction sent to this node may offer; 0 for no cap",
			apply: func(c *Config, v string) error {
				n, err := parseBig("", strings.TrimSpace(v), decOrHex)
				if err != nil {
					return errors.New("expected a non-negative integer (decimal or 0x hex)")
				}
				c.TxPool.TxFeeCap = n
				return nil
			}},
		{name: "strict-tx-replay-protection-enabled", kind: kindBool, def: "false",
			usage: "Refuse transactions sent to this node without an EIP-155 chain ID",
			apply: func(c *Config, v string) (err error) {
				c.TxPool.StrictReplayProtection, err = parseBoolValue(v)
				return err
			}},
		{name: "target-gas-limit", typ: "gas",
			usage: "Gas limit mined blocks move toward, by the most each block may change it (parent/1024), from the genesis gas limit (default: keep the parent's)",
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return nil
				}
				n, err := parseInt64(v, 5000, math.MaxInt64)
				c.Miner.TargetGasLimit = uint64(n)
				return err
			}},
		{name: "sync-mode", typ: "mode", def: "FULL",
			usage: "Synchronisation mode: FULL (Basalt's only mode: every block executed); Besu's SNAP and CHECKPOINT are accepted and sync FULL",
			apply: func(c *Config, v string) (err error) {
				c.SyncMode, err = parseEnum(v, "FULL", "SNAP", "CHECKPOINT", "FAST", "X_SNAP", "X_CHECKPOINT")
				return err
			},
			basalt: noSnap, noteWhen: func(v string) bool { return !strings.EqualFold(strings.TrimSpace(v), "FULL") }},
		{name: "api-gas-price-blocks", typ: "int", def: "100",
			usage: "Blocks back from the head eth_gasPrice and eth_maxPriorityFeePerGas sample (the head always is: 0 and 1 sample the head only)",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, math.MaxInt32)
				c.API.GasPriceBlocks = int(n)
				return err
			}},
		{name: "api-gas-price-percentile", typ: "percent", def: "50.0",
			usage: "Percentile of the sampled prices eth_gasPrice and eth_maxPriorityFeePerGas answer",
			apply: func(c *Config, v string) (err error) {
				c.API.GasPricePercentile, err = parseFloat(v, 0, 100)
				return err
			}},
		{name: "api-gas-price-max", typ: "wei", def: "500000000000",
			usage: "Highest gas price eth_gasPrice answers, in wei",
			apply: func(c *Config, v string) error {
				n, err := parseBig("", strings.TrimSpace(v), decOrHex)
				if err != nil {
					return errors.New("expected a non-negative integer (decimal or 0x hex)")
				}
				c.API.GasPriceMax = n
				return nil
			}},
		{name: "estimate-gas-tolerance-ratio", typ: "ratio", def: "0.015",
			usage: "eth_estimateGas stops its search when the interval is within this fraction of the estimate",
			apply: func(c *Config, v string) error {
				f, err := parseFloat(v, 0, 1)
				if err == nil && f == 0 {
					err = errors.New("must be greater than 0 and at most 1")
				}
				c.API.EstimateGasToleranceRatio = f
				return err
			}},
		{name: "rpc-gas-cap", typ: "gas", def: "0",
			usage: "Most gas eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall, priv_call and each eth_simulateV1 call may use (a higher gas is lowered to it); 0 for the block's gas limit",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, math.MaxInt64)
				c.API.GasCap = uint64(n)
				return err
			}},
		{name: "rpc-simulate-max-blocks", typ: "count", def: "256",
			usage: "Most blocks one eth_simulateV1 request may simulate, gaps in its block numbers included",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, 1<<16)
				c.API.SimulateMaxBlocks = uint64(n)
				return err
			}},
		{name: "rpc-simulate-gas-cap", typ: "gas", def: "50000000",
			usage: "Most gas the calls of one eth_simulateV1 request may use together (a call's gas is lowered to what is left)",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt64)
				c.API.SimulateGasCap = uint64(n)
				return err
			}},
		{name: "revert-reason-enabled", kind: kindBool, def: "false",
			usage: "Add the revert reason (revertReason) to the receipts of reverted transactions",
			apply: func(c *Config, v string) (err error) { c.RevertReasonEnabled, err = parseBoolValue(v); return err }},
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
		{name: "rpc-http-max-active-connections", typ: "int", def: "80",
			usage: "Most open JSON-RPC HTTP connections; a connection past it is closed at once",
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPMaxActiveConnections, err = parseIntValue(v, 1)
				return err
			}},
		{name: "rpc-http-max-request-content-length", typ: "bytes", def: "5242880",
			usage: "Largest JSON-RPC HTTP request body, in bytes (413 above it)",
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPMaxRequestContentLength, err = parseInt64(v, 1, math.MaxInt64)
				return err
			}},
		{name: "json-pretty-print-enabled", kind: kindBool, def: "false",
			usage: "Indent JSON-RPC HTTP responses",
			apply: func(c *Config, v string) (err error) { c.RPC.PrettyJSON, err = parseBoolValue(v); return err }},
		{name: "Xhttp-timeout-seconds", typ: "int", def: "30", hidden: true,
			usage: "Seconds a JSON-RPC HTTP request may run (-32603 Timeout expired, HTTP 408, after)",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.RPC.HTTPTimeout = time.Duration(n) * time.Second
				return err
			}},
		{name: "Xws-timeout-seconds", typ: "int", def: "30", hidden: true,
			usage: "Seconds a JSON-RPC WebSocket request may run",
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.RPC.WSTimeout = time.Duration(n) * time.Second
				return err
			}},
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
		{name: "rpc-max-trace-size", typ: "bytes", def: "268435456",
			usage: "Most bytes one debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash or debug_traceCall answer may hold (a larger trace fails with an error naming this option); 0 for no limit",
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 0)
				if err != nil {
					return err
				}
				c.RPC.MaxTraceSize = n
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
		{name: "max-peers", aliases: []string{"p2p-peer-upper-bound"}, typ: "int", def: "25",
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
		{name: "static-nodes-file", typ: "path",
			usage: "JSON file of the enode URLs of the static nodes the node keeps connected (default <data-path>/static-nodes.json)",
			apply: func(c *Config, v string) error { c.P2P.StaticNodesFile = v; return nil }},
		{name: "nat-method", typ: "method", def: "AUTO",
			usage: "NAT handling: NONE or AUTO (advertise --p2p-host), UPNP or UPNPP2PONLY (map the peer-to-peer port on a UPnP gateway and advertise its external address)",
			apply: func(c *Config, v string) (err error) {
				c.P2P.NATMethod, err = parseEnum(v, "UPNP", "UPNPP2PONLY", "DOCKER", "KUBERNETES", "AUTO", "NONE")
				return err
			},
			basalt: "Basalt does not detect Docker or Kubernetes addresses: it advertises --p2p-host, as NONE does (set --p2p-host to the address peers reach)",
			noteWhen: func(v string) bool {
				m, _ := parseEnum(v, "DOCKER", "KUBERNETES")
				return m != ""
			}},
		{name: "net-restrict", kind: kindList, typ: "list",
			usage: "Comma-separated IP subnets (10.0.0.0/8) peers must be in: the node neither dials nor accepts nor discovers peers outside them (default none: any address)",
			apply: func(c *Config, v string) error {
				if err := checkEach(checkCIDR)(v); err != nil {
					return err
				}
				c.P2P.NetRestrict = splitList(v)
				return nil
			}},
		{name: "banned-node-ids", aliases: []string{"banned-node-id"}, kind: kindList, typ: "list",
			usage: "Comma-separated node IDs (public keys, 128 hex digits) the node refuses as peers",
			apply: func(c *Config, v string) error {
				if err := checkEach(checkNodeID)(v); err != nil {
					return err
				}
				c.P2P.BannedNodeIDs = nil
				for _, id := range splitList(v) {
					c.P2P.BannedNodeIDs = append(c.P2P.BannedNodeIDs, strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(id, "0x"), "0X")))
				}
				return nil
			}},
		{name: "permissions-accounts-config-file-enabled", kind: kindBool, def: "false",
			usage: "Admit transactions (JSON-RPC, peers, blocks this node builds) only from the accounts of the accounts allowlist in --permissions-accounts-config-file",
			apply: func(c *Config, v string) (err error) {
				c.Permissions.AccountsEnabled, err = parseBoolValue(v)
				return err
			}},
		{name: "permissions-accounts-config-file", typ: "path",
			usage: "TOML file holding accounts-allowlist (or the 1.3-era accounts-whitelist) (default <data-path>/permissions_config.toml)",
			apply: func(c *Config, v string) error { c.Permissions.AccountsFile = v; return nil }},
		{name: "permissions-nodes-config-file-enabled", kind: kindBool, def: "false",
			usage: "Connect only to and from the nodes of the nodes allowlist in --permissions-nodes-config-file (bootnodes and static nodes must be on it)",
			apply: func(c *Config, v string) (err error) { c.Permissions.NodesEnabled, err = parseBoolValue(v); return err }},
		{name: "permissions-nodes-config-file", typ: "path",
			usage: "TOML file holding nodes-allowlist (or the 1.3-era nodes-whitelist) (default <data-path>/permissions_config.toml)",
			apply: func(c *Config, v string) error { c.Permissions.NodesFile = v; return nil }},
		{name: "Xdns-enabled", kind: kindBool, def: "false", hidden: true,
			usage: "Accept host names in the enode URLs of the nodes allowlist (file and PERM methods), resolved when read",
			apply: func(c *Config, v string) (err error) { c.Permissions.DNSEnabled, err = parseBoolValue(v); return err }},
		{name: "Xdns-update-enabled", kind: kindBool, def: "false", hidden: true,
			usage: "Keep the host names of the nodes allowlist and resolve them again when checking a peer (needs --Xdns-enabled)",
			apply: func(c *Config, v string) (err error) {
				c.Permissions.DNSUpdateEnabled, err = parseBoolValue(v)
				return err
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
		{name: "Xpprof-address", typ: "host:port", hidden: true, status: own,
			usage: "Serve Go's runtime profiles (net/http/pprof: CPU, heap, allocations, mutex and block) on this address, for performance diagnosis",
			apply: func(c *Config, v string) error {
				if v = strings.TrimSpace(v); v == "" {
					return nil
				}
				if _, _, err := net.SplitHostPort(v); err != nil {
					return errors.New("expected host:port")
				}
				c.PprofAddress = v
				return nil
			}},
		{name: "Xp2p-static-reconnect-seconds", typ: "int", def: "60", hidden: true, status: own,
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
