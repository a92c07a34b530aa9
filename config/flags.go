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
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpctypes"
)

// Option kinds, named for the table below (see cliconf.Kind).
const (
	kindString = cliconf.String
	kindBool   = cliconf.Bool
	kindList   = cliconf.List // comma-separated on the command line and in env vars; a TOML array or string in the file
)

// optConfigFile is the one option the config file cannot set.
const optConfigFile = "config-file"

// option is one option of the node in the shape the three programs share:
// the cliconf.Option (flag, environment variables, config-file key, help
// and the default, written only here), how it sets Config (apply, or check
// for an option that sets nothing: together the Set of its
// cliconf.Binding, see table), and how Basalt's handling of it compares
// with Besu's (docs/reference/configuration.md's table is written from these).
type option struct {
	cliconf.Option
	persistent bool // shared with subcommands
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
// out of --help (docs/reference/configuration.md lists them), as are hidden ones.
func (o option) spec() cliconf.Option {
	spec := o.Option
	spec.Hidden = o.Hidden || (o.status != acts && o.status != own)
	return spec
}

// noted reports whether the given value v gets the start-up line.
func (o option) noted(v string) bool {
	if o.basalt == "" {
		return false
	}
	if o.noteWhen != nil {
		return o.noteWhen(v)
	}
	if o.Kind == kindBool {
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

// table is opts in the one option shape of the three programs
// (cliconf.Binding): the loader's description of each option and set. The
// status, basalt and noteWhen of an option stay beside it here, for the
// start-up notices and docs/reference/configuration.md.
func table(opts []option) cliconf.Table[Config] {
	t := make(cliconf.Table[Config], len(opts))
	for i, o := range opts {
		t[i] = cliconf.Binding[Config]{Option: o.spec(), Set: func(c *Config, v cliconf.Value) error { return o.set(c, v.Text) }}
	}
	return t
}

// newSpec returns the loader's description of the basalt program: t's
// options, the BASALT_ and then BESU_ environment prefixes (an empty
// variable counts as unset) and --config-file, whose values may be any TOML
// scalar written as on the command line, as in Besu.
func newSpec(t cliconf.Table[Config]) *cliconf.Spec {
	return &cliconf.Spec{Options: t.Options(), EnvPrefixes: []string{EnvPrefix, BesuEnvPrefix}, FileOption: optConfigFile}
}

// Defaults returns the configuration of a run given no option, before the
// checks that involve several options and the genesis (Load's finish): every
// option's default, from the one place it is written, the option table,
// which --help and docs/reference/configuration.md print too. The node passes these values
// to the constructors (rpc.NewWSHandler, metrics' pusher, ...); where a
// constructor also fills in a zero field, the table's default is written
// from that constructor's constant.
func Defaults() *Config {
	c := &Config{given: map[string]cliconf.Value{}}
	if err := table(options()).Defaults(c); err != nil {
		panic(err) // a mistake in the table; TestDefaults catches it
	}
	return c
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
		{Option: cliconf.Option{Name: "data-path", Type: "path", Default: DefaultDataPath,
			Usage: "Path to the Basalt data directory"}, persistent: true,
			apply: nonEmpty(func(c *Config, v string) { c.DataPath = v })},
		{Option: cliconf.Option{Name: "genesis-file", Type: "path",
			Usage: "Genesis file (Besu format) of a custom network; cannot be combined with --network"}, persistent: true,
			apply: func(c *Config, v string) error { c.GenesisFile = v; return nil }},
		{Option: cliconf.Option{Name: "network", Type: "name",
			Usage: "Named network to join; basalt supports \"dev\" only (one of --network and --genesis-file is required to run the node)"}, persistent: true,
			apply: func(c *Config, v string) error { c.Network = strings.ToLower(strings.TrimSpace(v)); return nil }},
		{Option: cliconf.Option{Name: optConfigFile, Type: "path",
			Usage: "TOML config file; its keys are option names without the dashes (rpc-http-port=8545, rpc-http-api=[\"ETH\",\"NET\"])"}, persistent: true,
			apply: func(c *Config, v string) error { c.ConfigFile = v; return nil }},
		{Option: cliconf.Option{Name: "node-private-key-file", Type: "path",
			Usage: "The node's private key file (default <data-path>/key)"}, persistent: true,
			apply: func(c *Config, v string) error { c.NodePrivateKeyFile = v; return nil }},
		{Option: cliconf.Option{Name: "logging", Shorthand: "l", Type: "level", Default: "INFO",
			Usage: "Logging verbosity: OFF, ERROR, WARN, INFO, DEBUG, TRACE or ALL (FATAL, deprecated in Besu, means ERROR)"}, persistent: true,
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
		{Option: cliconf.Option{Name: "logging-format", Type: "format", Default: "TEXT",
			Usage: "Log line format: TEXT (key=value pairs) or JSON (one object per line, for log pipelines)"}, persistent: true, status: own,
			apply: func(c *Config, v string) (err error) { c.LogFormat, err = parseEnum(v, "TEXT", "JSON"); return err }},
		{Option: cliconf.Option{Name: "identity", Type: "name",
			Usage: "Node name, the second part of the client ID (basalt/<identity>/<version>/...) in web3_clientVersion, admin_nodeInfo and the peer-to-peer handshake"},
			apply: func(c *Config, v string) error { c.Identity = strings.TrimSpace(v); return nil }},
		{Option: cliconf.Option{Name: "pid-path", Type: "path",
			Usage: "File the node writes its process ID to while it runs (removed at exit)"},
			apply: func(c *Config, v string) error { c.PIDPath = v; return nil }},
		{Option: cliconf.Option{Name: "print-paths-and-exit", Kind: kindBool, Default: "false",
			Usage: "Print the paths the node would use (data path, database, node key, static nodes file) and exit"},
			apply: func(c *Config, v string) (err error) { c.PrintPathsAndExit, err = parseBoolValue(v); return err }},

		// The node.
		{Option: cliconf.Option{Name: "network-id", Type: "int",
			Usage: "P2P network identifier (default the genesis chain ID)"},
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
		{Option: cliconf.Option{Name: "miner-enabled", Kind: kindBool, Default: "false",
			Usage: "Mine blocks (needs --miner-coinbase)"},
			apply: func(c *Config, v string) (err error) { c.Miner.Enabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "miner-coinbase", Type: "address",
			Usage: "Account credited with the rewards and fees of mined blocks"},
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
		{Option: cliconf.Option{Name: "miner-extra-data", Type: "hex",
			Usage: "Hex data (at most 32 bytes) put in the extraData field of mined blocks"},
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
		{Option: cliconf.Option{Name: "min-gas-price", Type: "wei", Default: "1000",
			Usage: "Lowest gas price, in wei, of transactions accepted into the pool and mined"},
			apply: func(c *Config, v string) (err error) { c.MinGasPrice, err = parseWei(v); return err }},
		{Option: cliconf.Option{Name: "tx-pool-max-size", Type: "int", Default: "4096",
			Usage: "Most transactions kept in the transaction pool"},
			apply: func(c *Config, v string) (err error) { c.TxPool.MaxSize, err = parseIntValue(v, 1); return err }},
		{Option: cliconf.Option{Name: "tx-pool-retention-hours", Type: "int", Default: "13",
			Usage: "Hours a transaction may stay in the transaction pool"},
			apply: func(c *Config, v string) (err error) { c.TxPool.RetentionHours, err = parseIntValue(v, 1); return err }},
		{Option: cliconf.Option{Name: "tx-pool", Type: "kind", Default: "layered",
			Usage: "Besu's transaction pool implementation (layered or sequenced); selects which of Besu's pool options apply, Basalt's one pool serves both"},
			apply: func(c *Config, v string) (err error) {
				c.TxPool.Implementation, err = parseEnum(v, "LAYERED", "SEQUENCED", "LEGACY")
				if c.TxPool.Implementation == "LEGACY" {
					c.TxPool.Implementation = "SEQUENCED" // Besu's earlier name
				}
				return err
			},
			basalt:   "Basalt's one pool bounds the pool by --tx-pool-max-size transactions and each sender's nonce gap by --tx-pool-max-future-by-sender, whichever implementation is named",
			noteWhen: func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "layered") }},
		{Option: cliconf.Option{Name: "tx-pool-price-bump", Type: "percent", Default: "10",
			Usage: "Percentage by which a replacement transaction (same sender and nonce) must raise the price"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, 100)
				c.TxPool.PriceBump = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "tx-pool-max-future-by-sender", Type: "int", Default: "200",
			Usage: "Most nonces a sender's transaction may be ahead of its account nonce (layered pool)"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.TxPool.MaxFutureBySender = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "tx-pool-limit-by-account-percentage", Type: "fraction", Default: "0.001",
			Usage: "Fraction (0 to 1] of --tx-pool-max-size a sender's transaction may be ahead of its account nonce (sequenced pool)"},
			apply: func(c *Config, v string) error {
				f, err := parseFraction(v)
				c.TxPool.LimitByAccountPercentage = f
				return err
			}},
		{Option: cliconf.Option{Name: "tx-pool-min-gas-price", Type: "wei",
			Usage: "Lowest gas price, in wei, of transactions accepted into the pool (default --min-gas-price)"},
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return nil
				}
				n, err := parseWei(v)
				if err != nil {
					return err
				}
				c.TxPool.MinGasPrice = n
				return nil
			}},
		{Option: cliconf.Option{Name: "tx-pool-no-local-priority", Aliases: []string{"tx-pool-disable-locals"}, Kind: kindBool, Default: "false",
			Usage: "Do not prefer transactions sent to this node over those from peers when evicting and ordering"},
			apply: func(c *Config, v string) (err error) { c.TxPool.NoLocalPriority, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "tx-pool-enable-save-restore", Kind: kindBool, Default: "false",
			Usage: "Save the transaction pool to --tx-pool-save-file on shutdown and load it back at start-up"},
			apply: func(c *Config, v string) (err error) { c.TxPool.SaveRestore, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "tx-pool-save-file", Type: "file", Default: DefaultTxPoolSaveFile,
			Usage: "File the transaction pool is saved to and restored from (relative to --data-path)"},
			apply: nonEmpty(func(c *Config, v string) { c.TxPool.SaveFile = v })},
		{Option: cliconf.Option{Name: "tx-pool-journal-enabled", Kind: kindBool, Default: "true",
			Usage: "Journal transactions sent to this node, in the journal file before eth_sendRawTransaction answers (see --tx-pool-journal-sync), and replay them at start-up, so that a crash loses none"}, status: own,
			apply: func(c *Config, v string) (err error) { c.TxPool.Journal, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "tx-pool-journal-sync", Type: "mode", Default: "WRITE",
			Usage: "When a journaled submission is answered: WRITE, once its record is written (survives the process dying: SIGKILL, a panic, the OOM killer; fsynced within 100 ms), or FSYNC, once it is also fsynced (survives a power cut; costs burst throughput)"}, status: own,
			apply: func(c *Config, v string) (err error) {
				c.TxPool.JournalSync, err = parseEnum(v, "WRITE", "FSYNC")
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-tx-feecap", Type: "wei", Default: "1000000000000000000",
			Usage: "Highest gas price (max fee per gas), in wei, a transaction sent to this node may offer; 0 for no cap"},
			apply: func(c *Config, v string) (err error) { c.TxPool.TxFeeCap, err = parseWei(v); return err }},
		{Option: cliconf.Option{Name: "strict-tx-replay-protection-enabled", Kind: kindBool, Default: "false",
			Usage: "Refuse transactions sent to this node without an EIP-155 chain ID"},
			apply: func(c *Config, v string) (err error) {
				c.TxPool.StrictReplayProtection, err = parseBoolValue(v)
				return err
			}},
		{Option: cliconf.Option{Name: "target-gas-limit", Type: "gas",
			Usage: "Gas limit mined blocks move toward, by the most each block may change it (parent/1024), from the genesis gas limit (default: keep the parent's)"},
			apply: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return nil
				}
				n, err := parseInt64(v, 5000, math.MaxInt64)
				c.Miner.TargetGasLimit = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "sync-mode", Type: "mode", Default: "FULL",
			Usage: "Synchronisation mode: FULL (Basalt's only mode: every block executed); Besu's SNAP and CHECKPOINT are accepted and sync FULL"},
			apply: func(c *Config, v string) (err error) {
				c.SyncMode, err = parseEnum(v, "FULL", "SNAP", "CHECKPOINT", "FAST", "X_SNAP", "X_CHECKPOINT")
				return err
			},
			basalt: noSnap, noteWhen: func(v string) bool { return !strings.EqualFold(strings.TrimSpace(v), "FULL") }},
		{Option: cliconf.Option{Name: "api-gas-price-blocks", Type: "int", Default: "100",
			Usage: "Blocks back from the head eth_gasPrice and eth_maxPriorityFeePerGas sample (the head always is: 0 and 1 sample the head only)"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, math.MaxInt32)
				c.API.GasPriceBlocks = int(n)
				return err
			}},
		{Option: cliconf.Option{Name: "api-gas-price-percentile", Type: "percent", Default: "50.0",
			Usage: "Percentile of the sampled prices eth_gasPrice and eth_maxPriorityFeePerGas answer"},
			apply: func(c *Config, v string) (err error) {
				c.API.GasPricePercentile, err = parseFloat(v, 0, 100)
				return err
			}},
		{Option: cliconf.Option{Name: "api-gas-price-max", Type: "wei", Default: "500000000000",
			Usage: "Highest gas price eth_gasPrice answers, in wei"},
			apply: func(c *Config, v string) (err error) { c.API.GasPriceMax, err = parseWei(v); return err }},
		{Option: cliconf.Option{Name: "estimate-gas-tolerance-ratio", Type: "ratio", Default: "0.015",
			Usage: "eth_estimateGas stops its search when the interval is within this fraction of the estimate"},
			apply: func(c *Config, v string) error {
				f, err := parseFraction(v)
				c.API.EstimateGasToleranceRatio = f
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-gas-cap", Type: "gas", Default: "0",
			Usage: "Most gas eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall, priv_call and each eth_simulateV1 call may use (a higher gas is lowered to it); 0 for the block's gas limit"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 0, math.MaxInt64)
				c.API.GasCap = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-simulate-max-blocks", Type: "count", Default: "256",
			Usage: "Most blocks one eth_simulateV1 request may simulate, gaps in its block numbers included"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, 1<<16)
				c.API.SimulateMaxBlocks = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-simulate-gas-cap", Type: "gas", Default: "50000000",
			Usage: "Most gas the calls of one eth_simulateV1 request may use together (a call's gas is lowered to what is left)"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt64)
				c.API.SimulateGasCap = uint64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "revert-reason-enabled", Kind: kindBool, Default: "false",
			Usage: "Add the revert reason (revertReason) to the receipts of reverted transactions"},
			apply: func(c *Config, v string) (err error) { c.RevertReasonEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-enabled", Kind: kindBool, Default: "false",
			Usage: "Enable the JSON-RPC HTTP service"},
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-host", Type: "host", Default: "127.0.0.1",
			Usage: "Host the JSON-RPC HTTP service listens on"},
			apply: nonEmpty(func(c *Config, v string) { c.RPC.HTTPHost = v })},
		{Option: cliconf.Option{Name: "rpc-http-port", Type: "port", Default: "8545",
			Usage: "Port the JSON-RPC HTTP service listens on (0 picks a free port)"},
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPPort, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-api", Aliases: []string{"rpc-http-apis"}, Kind: kindList, Type: "list", Default: strings.Join(rpctypes.DefaultAPIs, ","),
			Usage: "Comma-separated method groups enabled over HTTP: " + strings.Join(rpcAPIGroups, ", ")},
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPAPIs, err = parseAPIs(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-cors-origins", Kind: kindList, Type: "list",
			Usage: "Comma-separated origins (regular expressions) browsers may call the HTTP service from; \"all\" or \"*\" for any (default none)"},
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPCORSOrigins, err = parseCORSOrigins(v); return err }},
		{Option: cliconf.Option{Name: "host-allowlist", Aliases: []string{"host-whitelist"}, Kind: kindList, Type: "list", Default: strings.Join(httpmw.DefaultHosts, ","),
			Usage: "Comma-separated hostnames the RPC services accept in the Host header; \"all\" or \"*\" for any (alias --host-whitelist)"},
			apply: func(c *Config, v string) (err error) { c.HostAllowlist, err = parseHostAllowlist(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-max-active-connections", Type: "int", Default: "80",
			Usage: "Most open JSON-RPC HTTP connections; a connection past it is closed at once"},
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPMaxActiveConnections, err = parseIntValue(v, 1)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-http-max-request-content-length", Type: "bytes", Default: strconv.Itoa(rpctypes.DefaultMaxRequestBytes),
			Usage: "Largest JSON-RPC HTTP request body, in bytes (413 above it)"},
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPMaxRequestContentLength, err = parseInt64(v, 1, math.MaxInt64)
				return err
			}},
		{Option: cliconf.Option{Name: "json-pretty-print-enabled", Kind: kindBool, Default: "false",
			Usage: "Indent JSON-RPC HTTP responses"},
			apply: func(c *Config, v string) (err error) { c.RPC.PrettyJSON, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "Xhttp-timeout-seconds", Type: "int", Default: seconds(rpctypes.DefaultTimeout), Hidden: true,
			Usage: "Seconds a JSON-RPC HTTP request may run (-32603 Timeout expired, HTTP 408, after)"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.RPC.HTTPTimeout = time.Duration(n) * time.Second
				return err
			}},
		{Option: cliconf.Option{Name: "Xws-timeout-seconds", Type: "int", Default: seconds(rpctypes.DefaultTimeout), Hidden: true,
			Usage: "Seconds a JSON-RPC WebSocket request may run"},
			apply: func(c *Config, v string) error {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.RPC.WSTimeout = time.Duration(n) * time.Second
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-http-max-batch-size", Type: "int", Default: strconv.Itoa(rpctypes.DefaultMaxBatchSize),
			Usage: "Most requests in one JSON-RPC batch; -1 for no limit"},
			apply: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || (n < 1 && n != -1) {
					return errors.New("expected -1 (no limit) or a positive integer")
				}
				c.RPC.HTTPMaxBatchSize = n
				return nil
			}},
		{Option: cliconf.Option{Name: "rpc-max-logs-range", Type: "int", Default: "5000",
			Usage: "Most blocks one eth_getLogs request may cover; 0 for no limit"},
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 0)
				if err != nil {
					return err
				}
				c.RPC.MaxLogsRange = int64(n)
				return nil
			}},
		{Option: cliconf.Option{Name: "rpc-max-trace-size", Type: "bytes", Default: "268435456",
			Usage: "Most bytes one debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash or debug_traceCall answer may hold (a larger trace fails with an error naming this option); 0 for no limit"},
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 0)
				if err != nil {
					return err
				}
				c.RPC.MaxTraceSize = n
				return nil
			}},
		{Option: cliconf.Option{Name: "rpc-ws-enabled", Kind: kindBool, Default: "false",
			Usage: "Enable the JSON-RPC WebSocket service"},
			apply: func(c *Config, v string) (err error) { c.RPC.WSEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "rpc-ws-host", Type: "host", Default: "127.0.0.1",
			Usage: "Host the JSON-RPC WebSocket service listens on"},
			apply: nonEmpty(func(c *Config, v string) { c.RPC.WSHost = v })},
		{Option: cliconf.Option{Name: "rpc-ws-port", Type: "port", Default: "8546",
			Usage: "Port the JSON-RPC WebSocket service listens on (0 picks a free port)"},
			apply: func(c *Config, v string) (err error) { c.RPC.WSPort, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "rpc-ws-api", Aliases: []string{"rpc-ws-apis"}, Kind: kindList, Type: "list", Default: strings.Join(rpctypes.DefaultAPIs, ","),
			Usage: "Comma-separated method groups enabled over WebSocket: " + strings.Join(rpcAPIGroups, ", ")},
			apply: func(c *Config, v string) (err error) { c.RPC.WSAPIs, err = parseAPIs(v); return err }},
		{Option: cliconf.Option{Name: "rpc-ws-max-frame-size", Type: "bytes", Default: strconv.Itoa(rpctypes.DefaultWSMaxMessageBytes),
			Usage: "Largest WebSocket message, in bytes, a client may send; a bigger one closes the connection"},
			apply: func(c *Config, v string) (err error) { c.RPC.WSMaxFrameSize, err = parseIntValue(v, 1); return err }},
		{Option: cliconf.Option{Name: "rpc-ws-max-queued-bytes", Type: "bytes", Default: strconv.Itoa(rpctypes.DefaultWSSendQueueBytes),
			Usage: "Bytes of notifications that may wait for a WebSocket client; past it a client that still reads gets each newHeads subscription's newest block only (a waiting one is replaced), and a log or pending transaction that does not fit closes the connection"}, status: own,
			apply: func(c *Config, v string) (err error) {
				n, err := parseIntValue(v, 4096)
				c.RPC.WSMaxQueuedBytes = int64(n)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-ws-max-active-connections", Type: "int", Default: strconv.Itoa(rpctypes.DefaultWSMaxConnections),
			Usage: "Most open WebSocket connections"},
			apply: func(c *Config, v string) (err error) {
				c.RPC.WSMaxActiveConnections, err = parseIntValue(v, 1)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-http-authentication-enabled", Kind: kindBool, Default: "false",
			Usage: "Require a token (POST /login, or issued elsewhere) for every JSON-RPC HTTP request; needs a credentials file or a JWT public key file"},
			apply: func(c *Config, v string) (err error) { c.RPC.HTTPAuth.Enabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "rpc-http-authentication-credentials-file", Type: "path",
			Usage: "TOML file of the users who may log in at the HTTP endpoint's /login, with their bcrypt password hashes and permissions"},
			apply: func(c *Config, v string) error { c.RPC.HTTPAuth.CredentialsFile = v; return nil }},
		{Option: cliconf.Option{Name: "rpc-http-authentication-jwt-public-key-file", Type: "path",
			Usage: "PEM public key verifying externally issued tokens for the HTTP endpoint (turns /login off)"},
			apply: func(c *Config, v string) error { c.RPC.HTTPAuth.JWTPublicKeyFile = v; return nil }},
		{Option: cliconf.Option{Name: "rpc-http-authentication-jwt-algorithm", Type: "algorithm", Default: "RS256",
			Usage: "Algorithm of the tokens the HTTP JWT public key verifies: " + strings.Join(jwtAlgorithms, ", ")},
			apply: func(c *Config, v string) (err error) {
				c.RPC.HTTPAuth.JWTAlgorithm, err = parseJWTAlgorithm(v)
				return err
			}},
		{Option: cliconf.Option{Name: "rpc-ws-authentication-enabled", Kind: kindBool, Default: "false",
			Usage: "Require a token (POST /login on the WebSocket port, or issued elsewhere) for every JSON-RPC WebSocket message; needs a credentials file or a JWT public key file"},
			apply: func(c *Config, v string) (err error) { c.RPC.WSAuth.Enabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "rpc-ws-authentication-credentials-file", Type: "path",
			Usage: "TOML file of the users who may log in at the WebSocket endpoint's /login, with their bcrypt password hashes and permissions"},
			apply: func(c *Config, v string) error { c.RPC.WSAuth.CredentialsFile = v; return nil }},
		{Option: cliconf.Option{Name: "rpc-ws-authentication-jwt-public-key-file", Type: "path",
			Usage: "PEM public key verifying externally issued tokens for the WebSocket endpoint (turns /login off)"},
			apply: func(c *Config, v string) error { c.RPC.WSAuth.JWTPublicKeyFile = v; return nil }},
		{Option: cliconf.Option{Name: "rpc-ws-authentication-jwt-algorithm", Type: "algorithm", Default: "RS256",
			Usage: "Algorithm of the tokens the WebSocket JWT public key verifies: " + strings.Join(jwtAlgorithms, ", ")},
			apply: func(c *Config, v string) (err error) {
				c.RPC.WSAuth.JWTAlgorithm, err = parseJWTAlgorithm(v)
				return err
			}},
		{Option: cliconf.Option{Name: "graphql-http-enabled", Kind: kindBool, Default: "false",
			Usage: "Enable the GraphQL HTTP service"},
			apply: func(c *Config, v string) (err error) { c.GraphQL.HTTPEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "graphql-http-host", Type: "host", Default: "127.0.0.1",
			Usage: "Host the GraphQL HTTP service listens on"},
			apply: nonEmpty(func(c *Config, v string) { c.GraphQL.HTTPHost = v })},
		{Option: cliconf.Option{Name: "graphql-http-port", Type: "port", Default: "8547",
			Usage: "Port the GraphQL HTTP service listens on (0 picks a free port)"},
			apply: func(c *Config, v string) (err error) { c.GraphQL.HTTPPort, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "graphql-http-cors-origins", Kind: kindList, Type: "list",
			Usage: "Comma-separated origins (regular expressions) browsers may call the GraphQL service from; \"all\" or \"*\" for any (default none)"},
			apply: func(c *Config, v string) (err error) {
				c.GraphQL.HTTPCORSOrigins, err = parseCORSOrigins(v)
				return err
			}},
		{Option: cliconf.Option{Name: "p2p-enabled", Kind: kindBool, Default: "true",
			Usage: "Enable peer-to-peer networking"},
			apply: func(c *Config, v string) (err error) { c.P2P.Enabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "discovery-enabled", Kind: kindBool, Default: "true",
			Usage: "Enable peer discovery"},
			apply: func(c *Config, v string) (err error) { c.P2P.DiscoveryEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "p2p-host", Type: "ip", Default: "127.0.0.1",
			Usage: "IP address advertised to peers (the host of the enode URL)"},
			apply: func(c *Config, v string) (err error) { c.P2P.Host, err = parseIP(v); return err }},
		{Option: cliconf.Option{Name: "p2p-interface", Type: "ip", Default: "0.0.0.0",
			Usage: "IP address of the network interface the peer-to-peer service listens on"},
			apply: func(c *Config, v string) (err error) { c.P2P.Interface, err = parseIP(v); return err }},
		{Option: cliconf.Option{Name: "p2p-port", Type: "port", Default: "30303",
			Usage: "Peer-to-peer listening port, TCP and UDP (0 picks a free port)"},
			apply: func(c *Config, v string) (err error) { c.P2P.Port, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "max-peers", Aliases: []string{"p2p-peer-upper-bound"}, Type: "int", Default: "25",
			Usage: "Most connected peers"},
			apply: func(c *Config, v string) (err error) { c.P2P.MaxPeers, err = parseIntValue(v, 0); return err }},
		{Option: cliconf.Option{Name: "bootnodes", Kind: kindList, Type: "list",
			Usage: "Comma-separated enode URLs of the nodes to discover peers through (default none)"},
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
		{Option: cliconf.Option{Name: "static-nodes-file", Type: "path",
			Usage: "JSON file of the enode URLs of the static nodes the node keeps connected (default <data-path>/static-nodes.json)"},
			apply: func(c *Config, v string) error { c.P2P.StaticNodesFile = v; return nil }},
		{Option: cliconf.Option{Name: "nat-method", Type: "method", Default: "AUTO",
			Usage: "NAT handling: NONE or AUTO (advertise --p2p-host), UPNP or UPNPP2PONLY (map the peer-to-peer port on a UPnP gateway and advertise its external address)"},
			apply: func(c *Config, v string) (err error) {
				c.P2P.NATMethod, err = parseEnum(v, "UPNP", "UPNPP2PONLY", "DOCKER", "KUBERNETES", "AUTO", "NONE")
				return err
			},
			basalt: "Basalt does not detect Docker or Kubernetes addresses: it advertises --p2p-host, as NONE does (set --p2p-host to the address peers reach)",
			noteWhen: func(v string) bool {
				m, _ := parseEnum(v, "DOCKER", "KUBERNETES")
				return m != ""
			}},
		{Option: cliconf.Option{Name: "net-restrict", Kind: kindList, Type: "list",
			Usage: "Comma-separated IP subnets (10.0.0.0/8) peers must be in: the node neither dials nor accepts nor discovers peers outside them (default none: any address)"},
			apply: func(c *Config, v string) error {
				if err := checkEach(checkCIDR)(v); err != nil {
					return err
				}
				c.P2P.NetRestrict = splitList(v)
				return nil
			}},
		{Option: cliconf.Option{Name: "banned-node-ids", Aliases: []string{"banned-node-id"}, Kind: kindList, Type: "list",
			Usage: "Comma-separated node IDs (public keys, 128 hex digits) the node refuses as peers"},
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
		{Option: cliconf.Option{Name: "permissions-accounts-config-file-enabled", Kind: kindBool, Default: "false",
			Usage: "Admit transactions (JSON-RPC, peers, blocks this node builds) only from the accounts of the accounts allowlist in --permissions-accounts-config-file"},
			apply: func(c *Config, v string) (err error) {
				c.Permissions.AccountsEnabled, err = parseBoolValue(v)
				return err
			}},
		{Option: cliconf.Option{Name: "permissions-accounts-config-file", Type: "path",
			Usage: "TOML file holding accounts-allowlist (or the 1.3-era accounts-whitelist) (default <data-path>/permissions_config.toml)"},
			apply: func(c *Config, v string) error { c.Permissions.AccountsFile = v; return nil }},
		{Option: cliconf.Option{Name: "permissions-nodes-config-file-enabled", Kind: kindBool, Default: "false",
			Usage: "Connect only to and from the nodes of the nodes allowlist in --permissions-nodes-config-file (bootnodes and static nodes must be on it)"},
			apply: func(c *Config, v string) (err error) { c.Permissions.NodesEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "permissions-nodes-config-file", Type: "path",
			Usage: "TOML file holding nodes-allowlist (or the 1.3-era nodes-whitelist) (default <data-path>/permissions_config.toml)"},
			apply: func(c *Config, v string) error { c.Permissions.NodesFile = v; return nil }},
		{Option: cliconf.Option{Name: "Xdns-enabled", Kind: kindBool, Default: "false", Hidden: true,
			Usage: "Accept host names in the enode URLs of the nodes allowlist (file and PERM methods), resolved when read"},
			apply: func(c *Config, v string) (err error) { c.Permissions.DNSEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "Xdns-update-enabled", Kind: kindBool, Default: "false", Hidden: true,
			Usage: "Keep the host names of the nodes allowlist and resolve them again when checking a peer (needs --Xdns-enabled)"},
			apply: func(c *Config, v string) (err error) {
				c.Permissions.DNSUpdateEnabled, err = parseBoolValue(v)
				return err
			}},
		{Option: cliconf.Option{Name: "metrics-enabled", Kind: kindBool, Default: "false",
			Usage: "Serve Prometheus metrics at GET /metrics on --metrics-host:--metrics-port"},
			apply: func(c *Config, v string) (err error) { c.Metrics.Enabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "metrics-host", Type: "host", Default: "127.0.0.1",
			Usage: "Host the metrics service listens on (the Host header must pass --host-allowlist)"},
			apply: nonEmpty(func(c *Config, v string) { c.Metrics.Host = v })},
		{Option: cliconf.Option{Name: "metrics-port", Type: "port", Default: "9545",
			Usage: "Port the metrics service listens on (0 picks a free port)"},
			apply: func(c *Config, v string) (err error) { c.Metrics.Port, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "metrics-category", Aliases: []string{"metrics-categories"}, Kind: kindList, Type: "list",
			Usage: "Comma-separated metric categories to keep (default all but the RocksDB ones): " + strings.Join(metrics.Enums(metrics.NodeCategories), ", ")},
			apply: func(c *Config, v string) error {
				cats, err := metrics.ParseCategories(metrics.NodeCategories, splitList(v))
				if len(cats) > 0 {
					c.Metrics.Categories = cats
				}
				return err
			}},
		{Option: cliconf.Option{Name: "metrics-push-enabled", Kind: kindBool, Default: "false",
			Usage: "Push metrics to a Prometheus push gateway (cannot be combined with --metrics-enabled)"},
			apply: func(c *Config, v string) (err error) { c.Metrics.PushEnabled, err = parseBoolValue(v); return err }},
		{Option: cliconf.Option{Name: "metrics-push-host", Type: "host", Default: "127.0.0.1",
			Usage: "Host of the Prometheus push gateway"},
			apply: nonEmpty(func(c *Config, v string) { c.Metrics.PushHost = v })},
		{Option: cliconf.Option{Name: "metrics-push-port", Type: "port", Default: strconv.Itoa(metrics.DefaultPushPort),
			Usage: "Port of the Prometheus push gateway"},
			apply: func(c *Config, v string) (err error) { c.Metrics.PushPort, err = parsePort(v); return err }},
		{Option: cliconf.Option{Name: "metrics-push-interval", Type: "seconds", Default: seconds(metrics.DefaultPushInterval),
			Usage: "Seconds between two pushes to the push gateway"},
			apply: func(c *Config, v string) error {
				n, err := parseIntValue(v, 1)
				c.Metrics.PushInterval = time.Duration(n) * time.Second
				return err
			}},
		{Option: cliconf.Option{Name: "metrics-push-prometheus-job", Type: "job", Default: metrics.DefaultPushJob,
			Usage: "Job name the pushed metrics are grouped under"},
			apply: nonEmpty(func(c *Config, v string) { c.Metrics.PushJob = v })},
		{Option: cliconf.Option{Name: "Xmetrics-timers-enabled", Kind: kindBool, Default: "true", Hidden: true,
			Usage: "Keep timers (histograms such as besu_rpc_request_time)"},
			apply: func(c *Config, v string) error {
				on, err := parseBoolValue(v)
				c.Metrics.TimersDisabled = !on
				return err
			}},
		{Option: cliconf.Option{Name: "Xpprof-address", Type: "host:port", Hidden: true,
			Usage: "Serve Go's runtime profiles (net/http/pprof: CPU, heap, allocations, mutex and block) on this address, for performance diagnosis"}, status: own,
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
		{Option: cliconf.Option{Name: "Xclock-offset-milliseconds", Type: "int", Default: "0", Hidden: true,
			Usage: "Skew the consensus clock by this many milliseconds (negative: behind), for fault-injection tests"}, status: own,
			apply: func(c *Config, v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil {
					return errors.New("expected an integer")
				}
				c.ClockOffset = time.Duration(n) * time.Millisecond
				return nil
			}},
		{Option: cliconf.Option{Name: "Xp2p-static-reconnect-seconds", Type: "int", Default: "60", Hidden: true,
			Usage: "Seconds between redials of dropped static nodes"}, status: own,
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

// seconds writes d as the whole seconds an option takes.
func seconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }

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
