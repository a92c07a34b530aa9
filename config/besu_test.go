package config

import (
	"bytes"
	"log/slog"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestBesuOptionsAct checks the options Besu has and Basalt acts on, from
// each source: the flag, BASALT_*, Besu's BESU_*, the config file.
func TestBesuOptionsAct(t *testing.T) {
	cfg := mustLoad(t, nil,
		"--identity=Node A", "--target-gas-limit=30000000", "--tx-pool-price-bump=25", "--tx-pool-max-future-by-sender=64",
		"--tx-pool-min-gas-price=0x7d0", "--tx-pool-no-local-priority", "--rpc-tx-feecap=0", "--strict-tx-replay-protection-enabled",
		"--api-gas-price-blocks=10", "--api-gas-price-percentile=75.5", "--api-gas-price-max=20000", "--estimate-gas-tolerance-ratio=0.1",
		"--rpc-gas-cap=50000000", "--revert-reason-enabled", "--rpc-http-max-active-connections=5",
		"--rpc-http-max-request-content-length=1024", "--json-pretty-print-enabled", "--Xhttp-timeout-seconds=2", "--Xws-timeout-seconds=3",
		"--static-nodes-file=/etc/basalt/static.json", "--nat-method=upnp", "--net-restrict=10.0.0.0/8,192.168.1.7",
		"--banned-node-ids=0x"+strings.Repeat("AB", 64), "--sync-mode=full", "--logging-format=json", "--pid-path=/run/basalt.pid",
		"--p2p-peer-upper-bound=7", "--tx-pool-disable-locals=false")
	got := []any{cfg.Identity, cfg.Miner.TargetGasLimit, cfg.TxPool.PriceBump, cfg.TxPool.MaxFutureNonceGap,
		cfg.TxPool.MinGasPrice.Int64(), cfg.TxPool.NoLocalPriority, cfg.TxPool.TxFeeCap.Sign(), cfg.TxPool.StrictReplayProtection,
		cfg.API.GasPriceBlocks, cfg.API.GasPricePercentile, cfg.API.GasPriceMax.Int64(), cfg.API.EstimateGasToleranceRatio,
		cfg.API.GasCap, cfg.RevertReasonEnabled, cfg.RPC.HTTPMaxActiveConnections,
		cfg.RPC.HTTPMaxRequestContentLength, cfg.RPC.PrettyJSON, cfg.RPC.HTTPTimeout, cfg.RPC.WSTimeout,
		cfg.P2P.StaticNodesFile, cfg.P2P.NATMethod, cfg.P2P.NetRestrict,
		cfg.P2P.BannedNodeIDs, cfg.SyncMode, cfg.LogFormat, cfg.PIDPath, cfg.P2P.MaxPeers}
	want := []any{"Node A", uint64(30_000_000), uint64(25), uint64(64),
		int64(2000), false, 0, true,
		10, 75.5, int64(20000), 0.1,
		uint64(50_000_000), true, 5,
		int64(1024), true, 2 * time.Second, 3 * time.Second,
		"/etc/basalt/static.json", "UPNP", []string{"10.0.0.0/8", "192.168.1.7"},
		[]string{strings.Repeat("ab", 64)}, "FULL", "JSON", "/run/basalt.pid", 7}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("option %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if !strings.HasPrefix(cfg.ClientID, "basalt/Node A/v") {
		t.Errorf("client ID %q", cfg.ClientID)
	}
	if len(cfg.Notices) != 0 {
		t.Errorf("notices for acting options: %+v", cfg.Notices)
	}

	// Besu's environment variables, after Basalt's.
	cfg = mustLoad(t, map[string]string{"BESU_IDENTITY": "besu-name", "BESU_RPC_HTTP_PORT": "1", "BASALT_RPC_HTTP_PORT": "2"})
	if cfg.Identity != "besu-name" || cfg.RPC.HTTPPort != 2 {
		t.Errorf("BESU_*: identity %q, port %d", cfg.Identity, cfg.RPC.HTTPPort)
	}

	// The sequenced pool's nonce gap: ceil(fraction × max size).
	for _, tc := range []struct {
		args []string
		want uint64
	}{
		{nil, 200},
		{[]string{"--tx-pool=sequenced"}, 5}, // Besu's default 0.001 × 4096
		{[]string{"--tx-pool-limit-by-account-percentage=0.5", "--tx-pool-max-size=100"}, 50},
		{[]string{"--tx-pool=legacy", "--tx-pool-limit-by-account-percentage=0.0001", "--tx-pool-max-size=100"}, 1},
		{[]string{"--tx-pool=layered", "--tx-pool-max-future-by-sender=9"}, 9},
	} {
		if got := mustLoad(t, nil, tc.args...).TxPool.MaxFutureNonceGap; got != tc.want {
			t.Errorf("%v: nonce gap %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestPoolSize: the layered pool (the default) holds what Besu's memory
// limits hold at 1,000 bytes a transaction; the sequenced pool and an
// explicit --tx-pool-max-size give the count.
func TestPoolSize(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 27000},
		{[]string{"--tx-pool-layer-max-capacity=1000000", "--tx-pool-max-prioritized=10"}, 2010},
		{[]string{"--tx-pool=sequenced"}, 4096},
		{[]string{"--tx-pool-max-size=100"}, 100},
		{[]string{"--tx-pool=sequenced", "--tx-pool-max-size=50"}, 50},
	} {
		if got := mustLoad(t, nil, tc.args...).TxPool.MaxSize; got != tc.want {
			t.Errorf("%v: pool size %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestBesuOptionsAccepted: a Besu option Basalt does not act on is
// accepted with one start-up line saying what Basalt does; default or
// "off" values are quiet.
func TestBesuOptionsAccepted(t *testing.T) {
	file := writeFile(t, "besu.toml", `
data-storage-format="BONSAI"
metrics-enabled=true
metrics-port=9545
color-enabled=false
sync-mode="SNAP"
rpc-http-tls-enabled=false
Xsnapsync-server-enabled=true
permissions-nodes-config-file-enabled=false
`)
	cfg := mustLoad(t, map[string]string{"BESU_KEY_VALUE_STORAGE": "rocksdb", "BESU_OPTS": "-Xmx4g", "BASALT_RPC_HTTP_PROT": "1",
		"BASALT_PRIVACY_NODEPORT": "8080"}, "--config-file="+file, "--logging=fatal", "--nat-method=DOCKER")
	var lines []string
	for _, n := range cfg.Notices {
		lines = append(lines, n.Option+"|"+n.Value+"|"+n.Source+"|"+map[bool]string{true: "pending", false: ""}[n.Pending])
	}
	want := []string{
		"--logging|fatal|--logging on the command line|",
		"--sync-mode|SNAP|sync-mode in config file " + file + "|",
		"--nat-method|DOCKER|--nat-method on the command line|",
		"--data-storage-format|BONSAI|data-storage-format in config file " + file + "|",
		"--key-value-storage|rocksdb|environment variable BESU_KEY_VALUE_STORAGE|",
		"--Xsnapsync-server-enabled|true|Xsnapsync-server-enabled in config file " + file + "|",
		"BESU_OPTS||environment|",
		"BASALT_RPC_HTTP_PROT (did you mean BASALT_RPC_HTTP_PORT?)||environment|",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("notices\n got %q\nwant %q", lines, want)
	}
	if cfg.Logging != "FATAL" || cfg.LogLevel != slog.LevelError || cfg.SyncMode != "SNAP" {
		t.Errorf("logging %s %v, sync mode %s", cfg.Logging, cfg.LogLevel, cfg.SyncMode)
	}
	var buf bytes.Buffer
	cfg.LogNotices(slog.New(slog.NewTextHandler(&buf, nil)))
	for _, want := range []string{
		`level=INFO msg="Option handled differently from Besu" option=--data-storage-format value=BONSAI`,
		`level=WARN msg=Ignored option="BASALT_RPC_HTTP_PROT (did you mean BASALT_RPC_HTTP_PORT?)" from=environment`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != len(want) {
		t.Errorf("%d lines for %d notices", n, len(want))
	}
}

// TestBesuOptionsRefused: bad types, values out of range, values Basalt
// must refuse for security and contradictions are one line naming the
// option, whatever the source.
func TestBesuOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--metrics-port=99999"}, want: `invalid value "99999" for --metrics-port: expected a port number from 0 to 65535`},
		{args: []string{"--metrics-enabled=maybe"}, want: `invalid value "maybe" for --metrics-enabled: expected true or false`},
		{env: map[string]string{"BESU_DATA_STORAGE_FORMAT": "PLAIN"}, want: `invalid value "PLAIN" for --data-storage-format (from environment variable BESU_DATA_STORAGE_FORMAT): expected one of FOREST, BONSAI, X_BONSAI, X_BONSAI_ARCHIVE`},
		{args: []string{"--sync-mode=WARP"}, want: `invalid value "WARP" for --sync-mode: expected one of FULL, SNAP, CHECKPOINT`},
		{args: []string{"--tx-pool=fancy"}, want: `for --tx-pool: expected one of LAYERED, SEQUENCED, LEGACY`},
		{args: []string{"--tx-pool-price-bump=101"}, want: `invalid value "101" for --tx-pool-price-bump: must be from 0 to 100`},
		{args: []string{"--tx-pool-limit-by-account-percentage=0"}, want: `for --tx-pool-limit-by-account-percentage: must be greater than 0 and at most 1`},
		{args: []string{"--tx-pool-limit-by-account-percentage=1.5"}, want: `for --tx-pool-limit-by-account-percentage: must be from 0 to 1`},
		{args: []string{"--api-gas-price-percentile=101"}, want: `for --api-gas-price-percentile: must be from 0 to 100`},
		{args: []string{"--api-gas-price-blocks=-1"}, want: `for --api-gas-price-blocks: must be from 0 to`},
		{args: []string{"--target-gas-limit=4999"}, want: `for --target-gas-limit: must be at least 5000`},
		{args: []string{"--rpc-http-max-active-connections=0"}, want: `for --rpc-http-max-active-connections: must be at least 1`},
		{args: []string{"--nat-method=STUN"}, want: `for --nat-method: expected one of UPNP, UPNPP2PONLY, DOCKER, KUBERNETES, AUTO, NONE`},
		{args: []string{"--net-restrict=10.0.0.0/33"}, want: `for --net-restrict: "10.0.0.0/33": expected an IP subnet`},
		{args: []string{"--banned-node-ids=0x1234"}, want: `for --banned-node-ids: "0x1234": expected a node ID (128 hex digits)`},
		{args: []string{"--tx-pool-min-score=200"}, want: `for --tx-pool-min-score: must be from -128 to 127`},
		{args: []string{"--tx-pool-max-prioritized-by-type=BLOB"}, want: `for --tx-pool-max-prioritized-by-type: "BLOB": expected <transaction type>=<count>`},
		{args: []string{"--tx-pool-priority-senders=0x12"}, want: `for --tx-pool-priority-senders: "0x12": invalid address`},
		{args: []string{"--logging-format=xml"}, want: `for --logging-format: expected one of TEXT, JSON`},

		// Security: ignoring these would weaken the node.
		{args: []string{"--rpc-http-tls-enabled"}, want: `invalid value "true" for --rpc-http-tls-enabled: Basalt serves JSON-RPC over plain HTTP only`},
		{env: map[string]string{"BESU_RPC_WS_SSL_ENABLED": "true"}, want: `for --rpc-ws-ssl-enabled (from environment variable BESU_RPC_WS_SSL_ENABLED): Basalt serves JSON-RPC over plain WebSocket only`},
		{args: []string{"--graphql-tls-enabled=true"}, want: `for --graphql-tls-enabled: Basalt serves GraphQL over plain HTTP only`},
		{args: []string{"--permissions-accounts-contract-enabled"}, want: `for --permissions-accounts-contract-enabled: contract permissioning is not built`},
		{args: []string{"--security-module=hsm"}, want: `invalid value "hsm" for --security-module: Basalt loads no security module plugin`},
		{args: []string{"--required-block=6485846=0x43f0cd1e5b1f9c4d5cda26c240b59ee4f1b510d0a185aa8fd476d091b0097a80"}, want: `for --required-block: Basalt cannot require peers to hold a block`},
		{args: []string{"--required-block=12"}, want: `for --required-block: "12": expected <block number>=<block hash>`},

		// Contradictions.
		{args: []string{"--sync-mode=FULL", "--sync-min-peers=3"}, want: `--sync-mode=FULL (from --sync-mode on the command line) can't be used with --sync-min-peers, which only applies to snap or checkpoint sync: remove it`},
		{args: []string{"--fast-sync-min-peers=3", "--snapsync-synchronizer-transaction-indexing-enabled=true"}, env: map[string]string{"BESU_SYNC_MODE": "FULL"},
			want: `--sync-mode=FULL (from environment variable BESU_SYNC_MODE) can't be used with --snapsync-synchronizer-transaction-indexing-enabled and --sync-min-peers`},
		{args: []string{"--metrics-enabled", "--metrics-push-enabled"}, want: `--metrics-enabled option and --metrics-push-enabled option can't be used at the same time`},
		{args: []string{"--tx-pool=layered", "--tx-pool-max-size=10", "--tx-pool-retention-hours=1"}, want: `Could not use legacy or sequenced transaction pool options with layered implementation: --tx-pool-max-size and --tx-pool-retention-hours (--tx-pool=layered from --tx-pool on the command line)`},
		{args: []string{"--tx-pool=sequenced", "--tx-pool-min-score=-5"}, want: `Could not use layered transaction pool options with legacy or sequenced implementation: --tx-pool-min-score`},
		{args: []string{"--tx-pool-limit-by-account-percentage=0.1", "--tx-pool-max-future-by-sender=10"}, want: `both bound a sender's nonce gap: give one of them`},
		{args: []string{"--network=dev", "--tx-pool-price-bump=10", "--genesis-file="}, want: ""}, // dev is not a zero-base-fee network
	} {
		_, err := loadArgs(t, tc.env, tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v %v:\n got %v\nwant %s", tc.args, tc.env, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%v: not one line: %q", tc.args, err)
		}
	}
	// Without an explicit --sync-mode the fast-sync options only get a
	// notice: Besu's default for a private network is FULL too, and it warns.
	if cfg := mustLoad(t, nil, "--sync-min-peers=3"); len(cfg.Notices) != 1 || cfg.Notices[0].Option != "--sync-min-peers" {
		t.Errorf("notices %+v", cfg.Notices)
	}
	// Options of the pool Basalt does not have are fine without --tx-pool.
	if _, err := loadArgs(t, nil, "--tx-pool-max-size=10", "--tx-pool-min-score=-5"); err != nil {
		t.Error(err)
	}
}

// TestZeroBaseFeePriceBump is Besu's rule: a price bump is meaningless on
// a zero-base-fee network: an explicit one is refused, and the bump is 0;
// with --min-gas-price=0 it is 0 unless given.
func TestZeroBaseFeePriceBump(t *testing.T) {
	g := writeFile(t, "g.json", `{"config":{"chainId":5,"londonBlock":0,"zeroBaseFee":true},"difficulty":"0x1","gasLimit":"0x1000000"}`)
	if _, err := loadArgs(t, nil, "--genesis-file="+g, "--tx-pool-price-bump=5"); err == nil || !strings.Contains(err.Error(), "Price bump option is not compatible with zero base fee market") {
		t.Errorf("got %v", err)
	}
	if c, err := loadArgs(t, nil, "--genesis-file="+g); err != nil || c.TxPool.PriceBump != 0 {
		t.Errorf("price bump not forced to 0: %v", err)
	}
	// A free-gas node (--min-gas-price=0) bumps by 0 too, unless told.
	for args, want := range map[[2]string]uint64{
		{"--min-gas-price=0", ""}: 0, {"--min-gas-price=0", "--tx-pool-price-bump=5"}: 5, {"--min-gas-price=7", ""}: 10,
	} {
		in := []string{args[0]}
		if args[1] != "" {
			in = append(in, args[1])
		}
		if c, err := loadArgs(t, nil, in...); err != nil || c.TxPool.PriceBump != want {
			t.Errorf("%v: price bump %d, want %d (%v)", in, c.TxPool.PriceBump, want, err)
		}
	}
}

// TestEveryOptionHasItsEntry keeps the table honest: every option is
// either acted on or says what Basalt does instead, and names no option
// twice.
func TestEveryOptionHasItsEntry(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range options() {
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			if seen[n] {
				t.Errorf("--%s declared twice", n)
			}
			seen[n] = true
		}
		switch {
		case o.apply == nil && o.check == nil:
			t.Errorf("--%s checks nothing", o.Name)
		case o.status != acts && o.status != own && o.basalt == "":
			t.Errorf("--%s does not act and says nothing about it", o.Name)
		case (o.status == acts || o.status == own) && !o.Hidden && o.Usage == "":
			t.Errorf("--%s has no help", o.Name)
		}
	}
	// Besu's reference (current docs, public and private networks) and
	// the families of earlier releases the issue names.
	for _, name := range besuReference {
		if !seen[name] && name != "help" && name != "version" && name != "Xhelp" {
			t.Errorf("Besu's --%s is not understood", name)
		}
	}
}

// TestUnstableHelp lists the hidden options Basalt acts on.
func TestUnstableHelp(t *testing.T) {
	h := UnstableHelp()
	for _, want := range []string{"--Xhttp-timeout-seconds int", "--Xws-timeout-seconds int", "--Xp2p-static-reconnect-seconds int", "--Xclock-offset-milliseconds int", "(default 30)"} {
		if !strings.Contains(h, want) {
			t.Errorf("--Xhelp lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "Xbonsai") {
		t.Error("--Xhelp lists an option that has no effect")
	}
	// Options that do not act stay out of --help.
	root := &cobra.Command{Use: "basalt"}
	AddFlags(root)
	if f := root.Flags().Lookup("data-storage-format"); f == nil || !f.Hidden {
		t.Error("--data-storage-format shown in help")
	}
	if f := root.Flags().Lookup("identity"); f == nil || f.Hidden {
		t.Error("--identity hidden")
	}
	_ = big.NewInt
}

// TestExampleConfig: the sample config.toml of the README loads, names one
// Besu option Basalt handles its own way, and nothing else.
func TestExampleConfig(t *testing.T) {
	cfg := mustLoad(t, nil, "--config-file=example.toml")
	if cfg.Network != "dev" || cfg.Identity != "my-dev-node" || !cfg.Miner.Enabled || !cfg.RPC.WSEnabled || !cfg.GraphQL.HTTPEnabled {
		t.Errorf("config %+v", cfg)
	}
	if len(cfg.Notices) != 1 || cfg.Notices[0].Option != "--data-storage-format" {
		t.Errorf("notices %+v", cfg.Notices)
	}
}

// TestPermissionsOptions checks the local permissioning options: both
// files default to permissions_config.toml in the data path, and each
// option sets its field.
func TestPermissionsOptions(t *testing.T) {
	cfg := mustLoad(t, nil, "--data-path=/var/lib/basalt", "--permissions-accounts-config-file-enabled", "--permissions-nodes-config-file-enabled=true")
	want := PermissionsConfig{AccountsEnabled: true, AccountsFile: "/var/lib/basalt/permissions_config.toml",
		NodesEnabled: true, NodesFile: "/var/lib/basalt/permissions_config.toml"}
	if cfg.Permissions != want {
		t.Fatalf("got %+v, want %+v", cfg.Permissions, want)
	}
	cfg = mustLoad(t, nil, "--permissions-accounts-config-file=/etc/a.toml", "--permissions-nodes-config-file=/etc/n.toml")
	if cfg.Permissions.AccountsEnabled || cfg.Permissions.AccountsFile != "/etc/a.toml" || cfg.Permissions.NodesFile != "/etc/n.toml" {
		t.Fatalf("got %+v", cfg.Permissions)
	}
}

// TestDNSOptions: --Xdns-enabled and --Xdns-update-enabled set their
// fields (also from the config file), and the update option alone is
// Besu's start-up error.
func TestDNSOptions(t *testing.T) {
	cfg := mustLoad(t, nil, "--Xdns-enabled=true", "--Xdns-update-enabled=true")
	if !cfg.Permissions.DNSEnabled || !cfg.Permissions.DNSUpdateEnabled {
		t.Fatalf("got %+v", cfg.Permissions)
	}
	p := writeFile(t, "c.toml", "Xdns-enabled=true\n")
	if cfg = mustLoad(t, nil, "--config-file="+p); !cfg.Permissions.DNSEnabled || cfg.Permissions.DNSUpdateEnabled {
		t.Fatalf("from the file: %+v", cfg.Permissions)
	}
	_, err := loadArgs(t, nil, "--Xdns-update-enabled=true")
	if err == nil || !strings.Contains(err.Error(), "The `--Xdns-update-enabled` requires dns to be enabled") {
		t.Fatalf("update without dns: %v", err)
	}
}

// TestJournalSyncOption: --tx-pool-journal-sync takes WRITE or FSYNC in any
// case and refuses anything else by name.
func TestJournalSyncOption(t *testing.T) {
	if got := mustLoad(t, nil).TxPool.JournalSync; got != "WRITE" {
		t.Errorf("default %q, want WRITE", got)
	}
	if got := mustLoad(t, nil, "--tx-pool-journal-sync=fsync").TxPool.JournalSync; got != "FSYNC" {
		t.Errorf("fsync parsed as %q", got)
	}
	_, err := loadArgs(t, nil, "--tx-pool-journal-sync=sometimes")
	if err == nil || !strings.Contains(err.Error(), "tx-pool-journal-sync") {
		t.Errorf("invalid mode: %v", err)
	}
}
