package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/internal/version"
)

// fakeNode records the configuration the root command runs the node with.
type fakeNode struct {
	cfg *config.Config
	err error
}

func (f *fakeNode) run(_ context.Context, cfg *config.Config, _ *slog.Logger) error {
	f.cfg = cfg
	return f.err
}

// runCLI runs the command line in-process and returns exit code and output.
func runCLI(t *testing.T, root *cobra.Command, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), root, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// assertOneLine checks that stderr is exactly one line containing want.
func assertOneLine(t *testing.T, stderr, want string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr is not one line: %q", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	root := newRootCommand()
	code, out, errOut := runCLI(t, root, "--help")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	n := 0
	check := func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		n++
		if !strings.Contains(out, "--"+f.Name+" ") {
			t.Errorf("help does not list --%s", f.Name)
		}
		if f.Usage == "" {
			t.Errorf("--%s has no description", f.Name)
		}
		if f.DefValue != "" && !strings.Contains(out, "(default "+f.DefValue+")") {
			t.Errorf("help does not show the default of --%s (%s)", f.Name, f.DefValue)
		}
	}
	root.PersistentFlags().VisitAll(check)
	root.LocalNonPersistentFlags().VisitAll(check)
	if n < 25 {
		t.Errorf("only %d flags", n)
	}
	for _, want := range []string{"--rpc-http-port port", "(default 8545)", "(default ETH,NET,WEB3)", "(default false)", "BASALT_RPC_HTTP_PORT", "-l, --logging"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag (see 'basalt --help')"},
		{[]string{"--rpc-http-prot=1"}, "unknown flag: --rpc-http-prot (did you mean --rpc-http-port?) (see 'basalt --help')"},
		{[]string{"--metrics-enabeld"}, "unknown flag: --metrics-enabeld (did you mean --metrics-enabled?)"},
		{[]string{"-x"}, "unknown shorthand flag: 'x'"},
		{[]string{"--rpc-http-port"}, "flag needs an argument: --rpc-http-port"},
		{[]string{"nonsense"}, `unknown command "nonsense" for "basalt"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			node := new(fakeNode)
			code, _, errOut := runCLI(t, buildRootCommand(node.run), tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			assertOneLine(t, errOut, tc.want)
			if node.cfg != nil {
				t.Error("node ran")
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--network=dev", "--rpc-http-port=abc"}, `basalt: invalid value "abc" for --rpc-http-port: `},
		{[]string{"--network=dev", "--rpc-http-api=ETH,NOPE"}, `unknown API group "NOPE"`},
		{[]string{}, "no network selected"},
		{[]string{"--network=mainnet"}, `invalid value "mainnet" for --network`},
		{[]string{"--genesis-file=/nonexistent/genesis.json"}, "--genesis-file: open /nonexistent/genesis.json"},
		{[]string{"--network=dev", "--config-file=/nonexistent/basalt.toml"}, "--config-file:"},
		{[]string{"--network=dev", "--miner-enabled"}, "Unable to mine without a valid coinbase"},
		// Besu's options: wrong types, values out of range, refused values,
		// contradictions.
		{[]string{"--network=dev", "--metrics-port=x"}, `invalid value "x" for --metrics-port: expected a port number`},
		{[]string{"--network=dev", "--tx-pool-price-bump=200"}, `invalid value "200" for --tx-pool-price-bump: must be from 0 to 100`},
		{[]string{"--network=dev", "--rpc-http-tls-enabled"}, `invalid value "true" for --rpc-http-tls-enabled: Basalt serves JSON-RPC over plain HTTP only`},
		{[]string{"--network=dev", "--sync-mode=FULL", "--sync-min-peers=2"}, "can't be used with --sync-min-peers"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			node := new(fakeNode)
			code, _, errOut := runCLI(t, buildRootCommand(node.run), tc.args...)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			assertOneLine(t, errOut, tc.want)
			if node.cfg != nil {
				t.Error("node ran")
			}
		})
	}
}

// TestBesuConfigFileErrors: a Besu config.toml with a value Basalt must
// refuse stops with one line naming the option and the file.
func TestBesuConfigFileErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("network=\"dev\"\nmetrics-enabled=true\npermissions-accounts-contract-enabled=true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	node := new(fakeNode)
	code, _, errOut := runCLI(t, buildRootCommand(node.run), "--config-file", file)
	if code != exitError || node.cfg != nil {
		t.Errorf("exit %d, node ran: %v", code, node.cfg != nil)
	}
	assertOneLine(t, errOut, `invalid value "true" for --permissions-accounts-contract-enabled (from "permissions-accounts-contract-enabled" in config file `+file+`): contract permissioning is not built`)
}

func TestConfigFileUnknownKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "basalt.toml")
	if err := os.WriteFile(file, []byte("network=\"dev\"\nrpc-http-prot=8545\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, buildRootCommand(new(fakeNode).run), "--config-file", file)
	if code != exitError {
		t.Errorf("exit %d", code)
	}
	assertOneLine(t, errOut, `unknown option "rpc-http-prot" (did you mean "rpc-http-port"?) in config file`)
}

func TestRunsNode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "basalt.toml")
	if err := os.WriteFile(file, []byte("rpc-http-enabled=true\nrpc-http-port=1111\nhost-allowlist=[\"*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BASALT_RPC_HTTP_PORT", "2222")
	t.Setenv("BASALT_NETWORK", "dev")
	node := new(fakeNode)
	code, _, errOut := runCLI(t, buildRootCommand(node.run), "--config-file="+file, "--logging=warn")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	cfg := node.cfg
	if cfg == nil || cfg.Genesis == nil || cfg.NetworkID != config.DevChainID || cfg.RPC.HTTPPort != 2222 || !cfg.RPC.HTTPEnabled || cfg.HostAllowlist[0] != "*" || cfg.Logging != "WARN" {
		t.Errorf("config %+v", cfg)
	}

	node = &fakeNode{err: errors.New("bind: address in use\nmore detail")}
	code, _, errOut = runCLI(t, buildRootCommand(node.run), "--network=dev")
	if code != exitError {
		t.Errorf("exit %d", code)
	}
	assertOneLine(t, errOut, "basalt: bind: address in use more detail")
}

// TestSubcommandSharesPersistentFlags shows how subcommands get their
// configuration: the root's persistent flags work before and after the
// subcommand name, the node's own flags do not exist on the subcommand.
func TestSubcommandSharesPersistentFlags(t *testing.T) {
	var got *config.Config
	newProbe := func() *cobra.Command {
		return &cobra.Command{
			Use:  "probe",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := config.Load(cmd)
				got = cfg
				return err
			},
		}
	}
	newRoot := func() *cobra.Command {
		root := buildRootCommand(new(fakeNode).run)
		root.AddCommand(newProbe())
		return root
	}

	for _, args := range [][]string{
		{"--data-path=/x", "--network=dev", "probe"},
		{"probe", "--data-path=/x", "--network", "dev"},
	} {
		got = nil
		code, _, errOut := runCLI(t, newRoot(), args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if got.DataPath != "/x" || got.NodePrivateKeyFile != "/x/key" || got.Genesis == nil {
			t.Errorf("%v: config %+v", args, got)
		}
	}

	code, _, errOut := runCLI(t, newRoot(), "probe", "--rpc-http-port=1")
	if code != exitUsage {
		t.Errorf("node flag on subcommand: exit %d", code)
	}
	assertOneLine(t, errOut, "unknown flag: --rpc-http-port (see 'basalt probe --help')")
}

func TestOneLine(t *testing.T) {
	if got := oneLine(errors.New("a\n\n  b\tc\n")); got != "a b c" {
		t.Errorf("oneLine = %q", got)
	}
}

// TestVersion: Besu's --version and -V print the client ID and exit, the
// node not started, whatever else is on the command line.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-V"}, {"--network=dev", "--version"}} {
		node := new(fakeNode)
		code, out, errOut := runCLI(t, buildRootCommand(node.run), args...)
		if code != exitOK || errOut != "" || out != version.ClientID("basalt", "")+"\n" || node.cfg != nil {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
	if !strings.HasPrefix(version.ClientID("basalt", ""), "basalt/v") {
		t.Errorf("client ID %q", version.ClientID("basalt", ""))
	}
}

// TestXhelp prints the hidden options Basalt acts on.
func TestXhelp(t *testing.T) {
	for _, arg := range []string{"--Xhelp", "-X"} {
		code, out, _ := runCLI(t, buildRootCommand(new(fakeNode).run), arg)
		if code != exitOK || !strings.Contains(out, "--Xhttp-timeout-seconds") || !strings.Contains(out, "--Xp2p-static-reconnect-seconds") {
			t.Errorf("%s: exit %d:\n%s", arg, code, out)
		}
	}
}

// TestPrintPathsAndPIDFile: --print-paths-and-exit prints the paths and
// starts nothing; --pid-path holds the process ID while the node runs.
func TestPrintPathsAndPIDFile(t *testing.T) {
	dir := t.TempDir()
	node := new(fakeNode)
	code, out, _ := runCLI(t, buildRootCommand(node.run), "--data-path="+dir, "--static-nodes-file=/etc/static.json", "--print-paths-and-exit")
	want := "data path:    " + dir + "\ndatabase:     " + filepath.Join(dir, "database") + "\nnode key:     " + filepath.Join(dir, "key") +
		"\nstatic nodes: /etc/static.json\n"
	if code != exitOK || out != want || node.cfg != nil {
		t.Errorf("exit %d:\n%s\nwant\n%s", code, out, want)
	}

	pid := filepath.Join(dir, "basalt.pid")
	var during string
	run := func(_ context.Context, _ *config.Config, _ *slog.Logger) error {
		b, _ := os.ReadFile(pid)
		during = string(b)
		return nil
	}
	if code, _, errOut := runCLI(t, buildRootCommand(run), "--network=dev", "--pid-path="+pid); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if during != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("pid file while running: %q", during)
	}
	if _, err := os.Stat(pid); !os.IsNotExist(err) {
		t.Errorf("pid file left behind: %v", err)
	}
	code, _, errOut := runCLI(t, buildRootCommand(run), "--network=dev", "--pid-path="+filepath.Join(dir, "no", "such", "dir", "x.pid"))
	if code != exitError {
		t.Errorf("unwritable pid file: exit %d", code)
	}
	assertOneLine(t, errOut, "basalt: --pid-path: open ")
}

// TestLogger: --logging-format JSON writes one object per line, and both
// formats name Besu's TRACE level.
func TestLogger(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"TEXT", `level=TRACE msg=hello k=1`},
		{"JSON", `"level":"TRACE","msg":"hello","k":1}`},
	} {
		var buf bytes.Buffer
		log := newLogger(&buf, &config.Config{LogLevel: config.LevelAll, LogFormat: tc.format})
		log.Log(context.Background(), config.LevelTrace, "hello", "k", 1)
		log.Log(context.Background(), config.LevelAll, "all")
		if !strings.Contains(buf.String(), tc.want) || !strings.Contains(buf.String(), "ALL") {
			t.Errorf("%s: %s", tc.format, buf.String())
		}
	}
}
