package config

import (
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/cliconf"
)

// loadArgs parses args on a fresh root command and loads the configuration
// with env as the environment.
func loadArgs(t *testing.T, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	cmd := &cobra.Command{Use: "basalt"}
	AddFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return load(cmd.Flags(), func(k string) (string, bool) { v, ok := env[k]; return v, ok }, environ)
}

func mustLoad(t *testing.T, env map[string]string, args ...string) *Config {
	t.Helper()
	cfg, err := loadArgs(t, env, args...)
	if err != nil {
		t.Fatalf("load %v: %v", args, err)
	}
	return cfg
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	cfg := mustLoad(t, nil)
	want := &Config{
		DataPath:           DefaultDataPath,
		NodePrivateKeyFile: filepath.Join(DefaultDataPath, "key"),
		Logging:            "INFO",
		LogLevel:           slog.LevelInfo,
		LogFormat:          "TEXT",
		ClientID:           cfg.ClientID,
		SyncMode:           "FULL",
		API: APIConfig{GasPriceBlocks: 100, GasPricePercentile: 50, GasPriceMax: big.NewInt(500_000_000_000), EstimateGasToleranceRatio: 0.015,
			SimulateMaxBlocks: 256, SimulateGasCap: 50_000_000},
		MinGasPrice: cfg.MinGasPrice,
		TxPool: TxPoolConfig{MaxSize: 27000, RetentionHours: 13, Implementation: "LAYERED", PriceBump: 10, MaxFutureBySender: 200,
			LimitByAccountPercentage: 0.001, MaxFutureNonceGap: 200, TxFeeCap: big.NewInt(params.Ether),
			LayerMaxCapacity: 12_500_000, MaxPrioritized: 2000, SaveFile: DefaultTxPoolSaveFile, Journal: true, JournalSync: "WRITE"},
		given:   map[string]cliconf.Value{},
		Privacy: PrivacyConfig{URL: DefaultPrivacyURL, PrecompiledAddress: common.HexToAddress("0x7e")},
		RPC: RPCConfig{
			HTTPHost:         "127.0.0.1",
			HTTPPort:         8545,
			HTTPAPIs:         []string{"ETH", "NET", "WEB3"},
			HTTPMaxBatchSize: 1024,
			MaxLogsRange:     5000,
			MaxTraceSize:     256 << 20,

			WSHost:                 "127.0.0.1",
			WSPort:                 8546,
			WSAPIs:                 []string{"ETH", "NET", "WEB3"},
			WSMaxFrameSize:         1 << 20,
			WSMaxActiveConnections: 80,
			WSMaxQueuedBytes:       16 << 20,

			HTTPMaxActiveConnections:    80,
			HTTPMaxRequestContentLength: 5 << 20,
			HTTPTimeout:                 30 * time.Second,
			WSTimeout:                   30 * time.Second,

			HTTPAuth: AuthConfig{JWTAlgorithm: "RS256"},
			WSAuth:   AuthConfig{JWTAlgorithm: "RS256"},
		},
		HostAllowlist: []string{"localhost", "127.0.0.1"},
		P2P: P2PConfig{Enabled: true, Host: "127.0.0.1", Interface: "0.0.0.0", Port: 30303, MaxPeers: 25, DiscoveryEnabled: true,
			StaticNodesFile: filepath.Join(DefaultDataPath, "static-nodes.json"), NATMethod: "AUTO", StaticReconnectInterval: time.Minute},
		Permissions: PermissionsConfig{AccountsFile: filepath.Join(DefaultDataPath, PermissionsFile),
			NodesFile: filepath.Join(DefaultDataPath, PermissionsFile)},
		GraphQL: GraphQLConfig{HTTPHost: "127.0.0.1", HTTPPort: 8547},
		Metrics: MetricsConfig{Host: "127.0.0.1", Port: 9545, PushHost: "127.0.0.1", PushPort: 9001,
			PushInterval: 15 * time.Second, PushJob: "besu-client"},
	}
	if !strings.HasPrefix(cfg.ClientID, "basalt/v") {
		t.Errorf("client ID %q", cfg.ClientID)
	}
	if cfg.MinGasPrice == nil || cfg.MinGasPrice.Int64() != 1000 {
		t.Errorf("min gas price %v", cfg.MinGasPrice)
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", cfg, want)
	}
	if _, err := cfg.RequireGenesis(); err == nil || !strings.Contains(err.Error(), "--network=dev or --genesis-file") {
		t.Errorf("RequireGenesis without a network: %v", err)
	}
}

func TestPrecedence(t *testing.T) {
	file := writeFile(t, "basalt.toml", "rpc-http-port=1111\nrpc-http-api=[\"ETH\",\"DEBUG\"]\nminer-enabled=true\nminer-coinbase=\"0x0000000000000000000000000000000000000001\"\n")
	env := map[string]string{"BASALT_CONFIG_FILE": file, "BASALT_RPC_HTTP_PORT": "2222"}

	if got := mustLoad(t, env, "--rpc-http-port=3333").RPC.HTTPPort; got != 3333 {
		t.Errorf("flag over env: %d", got)
	}
	cfg := mustLoad(t, env)
	if cfg.RPC.HTTPPort != 2222 || cfg.ConfigFile != file {
		t.Errorf("env over file: %d", cfg.RPC.HTTPPort)
	}
	if !reflect.DeepEqual(cfg.RPC.HTTPAPIs, []string{"ETH", "DEBUG"}) || !cfg.Miner.Enabled || cfg.Miner.Coinbase == nil {
		t.Errorf("file values: %v %v %v", cfg.RPC.HTTPAPIs, cfg.Miner.Enabled, cfg.Miner.Coinbase)
	}
	delete(env, "BASALT_RPC_HTTP_PORT")
	if got := mustLoad(t, env).RPC.HTTPPort; got != 1111 {
		t.Errorf("file over default: %d", got)
	}
	if got := mustLoad(t, nil, "--config-file", file, "--rpc-http-api=net").RPC.HTTPAPIs; !reflect.DeepEqual(got, []string{"NET"}) {
		t.Errorf("flag list over file list: %v", got)
	}
	if got := mustLoad(t, map[string]string{"BASALT_RPC_HTTP_API": "web3"}, "--config-file", file).RPC.HTTPAPIs; !reflect.DeepEqual(got, []string{"WEB3"}) {
		t.Errorf("env list over file list: %v", got)
	}
	// An empty environment variable counts as unset.
	if got := mustLoad(t, map[string]string{"BASALT_RPC_HTTP_PORT": ""}).RPC.HTTPPort; got != 8545 {
		t.Errorf("empty env: %d", got)
	}
	// Explicit false on the command line beats true in the file.
	if mustLoad(t, nil, "--config-file="+file, "--miner-enabled=false").Miner.Enabled {
		t.Error("--miner-enabled=false did not win over the file")
	}
}

func TestConfigFileErrors(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"unknown key", "rpc-http-port=1\nxdata-path=\"x\"\n", `unknown option "xdata-path" (did you mean "data-path"?) in config file`},
		{"unknown keys", "foo=1\nbar=2\n", `unknown options "bar", "foo" in config file`},
		{"table", "[rpc]\nport=1\n", `unknown option "rpc"`},
		{"array for scalar", "rpc-http-port=[1,2]\n", `invalid value for "rpc-http-port" in config file`},
		{"bad value", "rpc-http-port=\"x\"\n", `invalid value "x" for --rpc-http-port (from "rpc-http-port" in config file`},
		{"config-file in file", "config-file=\"other.toml\"\n", `"config-file" cannot be set in a config file`},
		{"bad toml", "rpc-http-port = = 1\n", "--config-file:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, "c.toml", tc.content)
			_, err := loadArgs(t, nil, "--config-file="+file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := loadArgs(t, nil, "--config-file=/nonexistent/basalt.toml"); err == nil || !strings.Contains(err.Error(), "--config-file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestConfigFileTypes(t *testing.T) {
	file := writeFile(t, "c.toml", `
data-path="/var/basalt"
network="DEV"
logging="debug"
min-gas-price=0
tx-pool-max-size=10
rpc-http-enabled=true
rpc-http-cors-origins="http://a.example,http://b.example"
host-whitelist=["Example.com"]
bootnodes=[]
`)
	cfg := mustLoad(t, nil, "--config-file", file)
	if cfg.DataPath != "/var/basalt" || cfg.NodePrivateKeyFile != "/var/basalt/key" || cfg.Network != "dev" || cfg.Genesis == nil {
		t.Errorf("paths/network: %+v", cfg)
	}
	if cfg.LogLevel != slog.LevelDebug || cfg.MinGasPrice.Sign() != 0 || cfg.TxPool.MaxSize != 10 || !cfg.RPC.HTTPEnabled {
		t.Errorf("values: %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.RPC.HTTPCORSOrigins, []string{"http://a.example", "http://b.example"}) || !reflect.DeepEqual(cfg.HostAllowlist, []string{"example.com"}) {
		t.Errorf("lists: %v %v", cfg.RPC.HTTPCORSOrigins, cfg.HostAllowlist)
	}
	if len(cfg.P2P.Bootnodes) != 0 {
		t.Errorf("bootnodes %v", cfg.P2P.Bootnodes)
	}
}

func TestLists(t *testing.T) {
	cfg := mustLoad(t, nil, "--rpc-http-api=eth, Net", "--rpc-http-api", "debug,ETH", "--host-allowlist=*", "--rpc-http-cors-origins=all")
	if !reflect.DeepEqual(cfg.RPC.HTTPAPIs, []string{"ETH", "NET", "DEBUG"}) {
		t.Errorf("apis %v", cfg.RPC.HTTPAPIs)
	}
	if !reflect.DeepEqual(cfg.HostAllowlist, []string{"*"}) || !reflect.DeepEqual(cfg.RPC.HTTPCORSOrigins, []string{"*"}) {
		t.Errorf("allowlist %v cors %v", cfg.HostAllowlist, cfg.RPC.HTTPCORSOrigins)
	}
	for _, g := range rpcAPIGroups {
		if _, err := loadArgs(t, nil, "--rpc-http-api="+strings.ToLower(g)); err != nil {
			t.Errorf("group %s: %v", g, err)
		}
	}
	if got := mustLoad(t, nil, "--rpc-http-api=").RPC.HTTPAPIs; len(got) != 0 {
		t.Errorf("empty list %v", got)
	}
	if got := mustLoad(t, nil, "--rpc-http-cors-origins=none").RPC.HTTPCORSOrigins; len(got) != 0 {
		t.Errorf("cors none %v", got)
	}
	enode := "enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@10.3.58.6:30303"
	if got := mustLoad(t, map[string]string{"BASALT_BOOTNODES": enode + "," + enode}).P2P.Bootnodes; len(got) != 2 {
		t.Errorf("bootnodes %v", got)
	}
}

func TestAliases(t *testing.T) {
	if got := mustLoad(t, nil, "--host-whitelist=a.example,B.example").HostAllowlist; !reflect.DeepEqual(got, []string{"a.example", "b.example"}) {
		t.Errorf("--host-whitelist: %v", got)
	}
	if got := mustLoad(t, map[string]string{"BASALT_HOST_WHITELIST": "c.example"}).HostAllowlist; !reflect.DeepEqual(got, []string{"c.example"}) {
		t.Errorf("BASALT_HOST_WHITELIST: %v", got)
	}
	if got := mustLoad(t, nil, "--rpc-http-apis=admin").RPC.HTTPAPIs; !reflect.DeepEqual(got, []string{"ADMIN"}) {
		t.Errorf("--rpc-http-apis: %v", got)
	}
}

func TestValues(t *testing.T) {
	cfg := mustLoad(t, nil,
		"--network=dev", "--network-id=2018", "--data-path=/d", "--node-private-key-file=/k",
		"--miner-enabled", "--miner-coinbase=fe3b557e8fb62b89f4916b721be55ceb828dbd73", "--miner-extra-data=0x"+strings.Repeat("ab", 32),
		"--min-gas-price=0x10", "-l", "trace", "--rpc-http-max-batch-size=-1", "--rpc-max-logs-range=0", "--p2p-port=0", "--rpc-http-port=0",
	)
	if cfg.NetworkID != 2018 || cfg.DataPath != "/d" || cfg.NodePrivateKeyFile != "/k" || cfg.Genesis.ChainID().Uint64() != DevChainID {
		t.Errorf("%+v", cfg)
	}
	if !cfg.Miner.Enabled || *cfg.Miner.Coinbase != common.HexToAddress("fe3b557e8fb62b89f4916b721be55ceb828dbd73") || len(cfg.Miner.ExtraData) != 32 {
		t.Errorf("miner %+v", cfg.Miner)
	}
	if cfg.MinGasPrice.Int64() != 16 || cfg.Logging != "TRACE" || cfg.LogLevel != LevelTrace || cfg.RPC.HTTPMaxBatchSize != -1 || cfg.RPC.MaxLogsRange != 0 {
		t.Errorf("%+v", cfg)
	}
	ws := mustLoad(t, map[string]string{"BASALT_RPC_WS_API": "net,eth"}, "--rpc-ws-enabled", "--rpc-ws-host=0.0.0.0", "--rpc-ws-port=0",
		"--rpc-ws-max-frame-size=2048", "--rpc-ws-max-active-connections=3").RPC
	if !ws.WSEnabled || ws.WSHost != "0.0.0.0" || ws.WSPort != 0 || !reflect.DeepEqual(ws.WSAPIs, []string{"NET", "ETH"}) ||
		ws.WSMaxFrameSize != 2048 || ws.WSMaxActiveConnections != 3 {
		t.Errorf("ws options %+v", ws)
	}
	auth := mustLoad(t, map[string]string{"BASALT_RPC_WS_AUTHENTICATION_ENABLED": "true", "BASALT_RPC_WS_AUTHENTICATION_JWT_PUBLIC_KEY_FILE": "/k.pem"},
		"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file=/auth.toml",
		"--rpc-ws-authentication-jwt-algorithm=es256").RPC
	if want := (AuthConfig{Enabled: true, CredentialsFile: "/auth.toml", JWTAlgorithm: "RS256"}); auth.HTTPAuth != want {
		t.Errorf("http auth %+v", auth.HTTPAuth)
	}
	if want := (AuthConfig{Enabled: true, JWTPublicKeyFile: "/k.pem", JWTAlgorithm: "ES256"}); auth.WSAuth != want {
		t.Errorf("ws auth %+v", auth.WSAuth)
	}
	// Files without --rpc-*-authentication-enabled are accepted (and unused), as in Besu.
	if got := mustLoad(t, nil, "--rpc-http-authentication-credentials-file=/a", "--rpc-http-authentication-jwt-public-key-file=/b").RPC.HTTPAuth; got.Enabled {
		t.Errorf("auth enabled by its files: %+v", got)
	}
	if got := mustLoad(t, nil, "--rpc-ws-apis=miner").RPC.WSAPIs; !reflect.DeepEqual(got, []string{"MINER"}) {
		t.Errorf("--rpc-ws-apis: %v", got)
	}
	if got := mustLoad(t, nil, "--network=dev").NetworkID; got != DevChainID {
		t.Errorf("network id default %d", got)
	}
	genesis := writeFile(t, "g.json", `{"config": {"chainId": 99}, "difficulty": "0x1", "gasLimit": "0x1000"}`)
	if cfg := mustLoad(t, nil, "--genesis-file="+genesis); cfg.NetworkID != 99 || cfg.Genesis == nil || cfg.GenesisFile != genesis {
		t.Errorf("genesis file: %+v", cfg)
	}
	for level, want := range logLevels {
		if got := mustLoad(t, nil, "--logging="+strings.ToLower(level)).LogLevel; got != want {
			t.Errorf("%s: %v", level, got)
		}
	}
	if !(LevelAll < LevelTrace && LevelTrace < slog.LevelDebug && slog.LevelError < LevelOff) {
		t.Error("log levels out of order")
	}
}

func TestBadValues(t *testing.T) {
	badGenesis := writeFile(t, "bad.json", `{"config": {"chainId": 1, "londonBlock": "x"}, "difficulty": "0x1", "gasLimit": "0x1"}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--rpc-http-port=abc"}, `invalid value "abc" for --rpc-http-port: `},
		{[]string{"--rpc-http-port=65536"}, `invalid value "65536" for --rpc-http-port`},
		{[]string{"--p2p-port=-1"}, `invalid value "-1" for --p2p-port`},
		{[]string{"--logging=verbose"}, `invalid value "verbose" for --logging`},
		{[]string{"--data-path="}, `invalid value "" for --data-path: must not be empty`},
		{[]string{"--network-id=0"}, `invalid value "0" for --network-id: must be positive`},
		{[]string{"--network-id=x"}, `invalid value "x" for --network-id`},
		{[]string{"--miner-enabled=yes"}, `invalid value "yes" for --miner-enabled: expected true or false`},
		{[]string{"--miner-coinbase=0x12"}, `invalid value "0x12" for --miner-coinbase: invalid address`},
		{[]string{"--miner-extra-data=0x" + strings.Repeat("00", 33)}, "for --miner-extra-data: 33 bytes, at most 32 allowed"},
		{[]string{"--miner-extra-data=xyz"}, "for --miner-extra-data: not a hex string"},
		{[]string{"--min-gas-price=-1"}, `invalid value "-1" for --min-gas-price`},
		{[]string{"--min-gas-price=1.5"}, `invalid value "1.5" for --min-gas-price`},
		{[]string{"--tx-pool-max-size=0"}, `invalid value "0" for --tx-pool-max-size: must be at least 1`},
		{[]string{"--tx-pool-retention-hours=x"}, `for --tx-pool-retention-hours: expected an integer`},
		{[]string{"--rpc-http-api=ETH,FOO"}, `for --rpc-http-api: unknown API group "FOO"`},
		{[]string{"--rpc-http-host="}, `for --rpc-http-host: must not be empty`},
		{[]string{"--rpc-http-cors-origins=none,http://a"}, `for --rpc-http-cors-origins: "none" can't be used with other origins`},
		{[]string{"--rpc-http-cors-origins=*,http://a"}, `for --rpc-http-cors-origins: "*" or "all" can't be used`},
		{[]string{"--rpc-http-cors-origins=(("}, `for --rpc-http-cors-origins: origin "((" is not a valid regular expression`},
		{[]string{"--host-allowlist=*,foo"}, `for --host-allowlist: "*" or "all" can't be used with other hostnames`},
		{[]string{"--host-whitelist="}, `for --host-allowlist: hostname must not be empty`},
		{[]string{"--rpc-http-max-batch-size=0"}, `for --rpc-http-max-batch-size: expected -1 (no limit) or a positive integer`},
		{[]string{"--rpc-max-logs-range=-5"}, `for --rpc-max-logs-range: must be at least 0`},
		{[]string{"--max-peers=-1"}, `for --max-peers`},
		{[]string{"--bootnodes=enode://bad"}, `for --bootnodes: Invalid enode URL syntax 'enode://bad'`},
		{[]string{"--bootnodes=enode://0x1234@127.0.0.1:30303"}, `Invalid node ID: node ID must have exactly 128 hexadecimal characters`},
		{[]string{"--Xp2p-static-reconnect-seconds=0"}, `for --Xp2p-static-reconnect-seconds: must be at least 1`},
		{[]string{"--p2p-host=node.example.org"}, `for --p2p-host: expected an IP address`},
		{[]string{"--p2p-interface="}, `for --p2p-interface: expected an IP address`},
		{[]string{"--network=mainnet"}, `invalid value "mainnet" for --network: network "mainnet" is not supported`},
		{[]string{"--network=foo"}, `invalid value "foo" for --network: unknown network (supported: dev)`},
		{[]string{"--network=dev", "--genesis-file=" + badGenesis}, "--network and --genesis-file can't be used at the same time"},
		{[]string{"--genesis-file=" + badGenesis}, `--genesis-file: ` + badGenesis + `: config.londonBlock: invalid number "x"`},
		{[]string{"--genesis-file=/nonexistent.json"}, "--genesis-file: open /nonexistent.json"},
		{[]string{"--miner-enabled"}, "Unable to mine without a valid coinbase"},
		{[]string{"--rpc-http-enabled", "--rpc-http-port=30303"}, "port 30303 is given to both --rpc-http-port and --p2p-port"},
		{[]string{"--rpc-ws-enabled", "--rpc-http-enabled", "--rpc-ws-port=8545"}, "port 8545 is given to both --rpc-http-port and --rpc-ws-port"},
		{[]string{"--rpc-ws-port=70000"}, `invalid value "70000" for --rpc-ws-port`},
		{[]string{"--rpc-ws-host= "}, `for --rpc-ws-host: must not be empty`},
		{[]string{"--rpc-ws-api=ETH,BAR"}, `for --rpc-ws-api: unknown API group "BAR"`},
		{[]string{"--rpc-ws-max-frame-size=0"}, `for --rpc-ws-max-frame-size: must be at least 1`},
		{[]string{"--rpc-ws-max-active-connections=x"}, `for --rpc-ws-max-active-connections: expected an integer`},
		{[]string{"--rpc-http-authentication-enabled"}, "Unable to authenticate JSON-RPC HTTP endpoint without a supplied credentials file or authentication public key file: give --rpc-http-authentication-credentials-file or --rpc-http-authentication-jwt-public-key-file"},
		{[]string{"--rpc-ws-authentication-enabled", "--rpc-http-authentication-credentials-file=a.toml"}, "Unable to authenticate JSON-RPC WebSocket endpoint without a supplied credentials file or authentication public key file: give --rpc-ws-authentication-credentials-file or --rpc-ws-authentication-jwt-public-key-file"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file=a.toml", "--rpc-http-authentication-jwt-public-key-file=k.pem"}, "--rpc-http-authentication-credentials-file and --rpc-http-authentication-jwt-public-key-file can't be used together"},
		{[]string{"--rpc-http-authentication-jwt-algorithm=HS256"}, `for --rpc-http-authentication-jwt-algorithm: HS256 is not supported`},
		{[]string{"--rpc-ws-authentication-jwt-algorithm=PS256"}, `invalid value "PS256" for --rpc-ws-authentication-jwt-algorithm: expected one of RS256, RS384, RS512, ES256, ES384, ES512`},
		{[]string{"--rpc-ws-authentication-enabled=maybe"}, `for --rpc-ws-authentication-enabled: expected true or false`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := loadArgs(t, nil, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
		})
	}
	// The source is named for values that do not come from the command line.
	_, err := loadArgs(t, map[string]string{"BASALT_TX_POOL_MAX_SIZE": "many"})
	if err == nil || !strings.Contains(err.Error(), `invalid value "many" for --tx-pool-max-size (from environment variable BASALT_TX_POOL_MAX_SIZE)`) {
		t.Errorf("env error: %v", err)
	}
}

func TestEnvName(t *testing.T) {
	if got := EnvName("rpc-http-port"); got != "BASALT_RPC_HTTP_PORT" {
		t.Errorf("EnvName = %s", got)
	}
}

func TestSubcommandSeesPersistentFlags(t *testing.T) {
	root := &cobra.Command{Use: "basalt", RunE: func(*cobra.Command, []string) error { return nil }}
	AddFlags(root)
	var got *Config
	sub := &cobra.Command{Use: "sub", RunE: func(cmd *cobra.Command, _ []string) error {
		var err error
		got, err = Load(cmd)
		return err
	}}
	root.AddCommand(sub)
	root.SetArgs([]string{"--data-path=/before", "sub", "--network=dev"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.DataPath != "/before" || got.Genesis == nil || got.RPC.HTTPPort != 8545 {
		t.Errorf("subcommand config %+v", got)
	}
}
