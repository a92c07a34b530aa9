package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/version"
)

// clientID is what --version prints and the start-up line logs:
// basalt-signer/<version>/<os>-<arch>/<go version>, the version being the
// build's, the same as basalt's and basalt-privacy's (package
// internal/version).
var clientID = version.ClientID("basalt-signer", "")

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // bad option value, unreadable key, server error
	exitUsage = 2 // the command line could not be parsed
)

// usageError marks an error in the command line's syntax.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// app is one run of the program: its output streams, its environment, and
// what runs the signer (run, or a fake in tests).
type app struct {
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
	// run, when set, replaces runSigner (tests of option handling).
	run func(ctx context.Context, cfg *config) error
}

// execute runs the command line args and returns the exit code. Errors are
// printed to stderr as one line.
func (a *app) execute(ctx context.Context, args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(a.stderr, "basalt-signer: %s (see '%s --help')\n", oneLine(err), cmd.CommandPath())
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "basalt-signer: %s\n", oneLine(err))
	return exitError
}

// rootCommand builds the command tree: global options on the root, one
// subcommand per key store.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "basalt-signer",
		Short: "Basalt's transaction-signing proxy (EthSigner-compatible)",
		Long: `basalt-signer holds signing keys and sits in front of an Ethereum node. It
answers eth_accounts, eth_sign, eth_signTransaction, eth_sendTransaction and
eea_sendTransaction itself (signing with its keys and sending the raw
transaction to the node) and passes every other request to the node.

Give the global options, then a key store subcommand with its options:

  basalt-signer --chain-id=1337 --downstream-http-port=8545 --http-listen-port=9545 \
      file-based-signer -k key.json -p key.password

Every option can also be set by an environment variable, ETHSIGNER_ followed by
the option name in upper case with dashes as underscores (ETHSIGNER_CHAIN_ID;
a key store's options add its name: ETHSIGNER_FILE_BASED_SIGNER_KEY_FILE), or
by a key in the TOML file given by --config-file (chain-id = 1337; a key
store's options in a table named after it). The command line wins over the
environment, which wins over the config file.`,
		Version:       clientID,
		Args:          a.noArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := loadConfig(cmd, "", a.lookupEnv)
			return err
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{cliconf.FlagError(c.Flags(), err)} })
	// EthSigner's -V, --version (cobra would make it -v).
	root.Flags().BoolP("version", "V", false, "Print the version (basalt-signer/<version>/<os>-<arch>/<go version>) and exit")
	root.SetVersionTemplate("{{.Version}}\n")
	addFlags(root.PersistentFlags(), "")

	stores := []struct {
		name, short string
		hidden      bool
	}{
		{cmdFileBased, "Sign with a V3 keystore file (-k) opened with a password file (-p)", false},
		{cmdMultikey, "Sign with the keys described by the <address>.toml files of a directory (-d)", false},
		{cmdHashicorp, "Sign with a key held in Hashicorp Vault (KV v2 secret engine)", false},
		{cmdRaw, "Sign with a hex key given on the command line (tests only)", true},
	}
	for _, st := range stores {
		name := st.name
		sub := &cobra.Command{
			Use:           name,
			Short:         st.short,
			Args:          a.noArgs,
			Hidden:        st.hidden,
			SilenceErrors: true,
			SilenceUsage:  true,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := loadConfig(cmd, name, a.lookupEnv)
				if err != nil {
					return err
				}
				if a.run != nil {
					return a.run(cmd.Context(), cfg)
				}
				return runSigner(cmd.Context(), cfg, a.stderr)
			},
		}
		sub.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{cliconf.FlagError(c.Flags(), err)} })
		addFlags(sub.Flags(), name)
		root.AddCommand(sub)
	}
	return root
}

// noArgs rejects positional arguments (mistyped subcommands).
func (a *app) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())}
	}
	return nil
}

// oneLine joins a multi-line error message into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
