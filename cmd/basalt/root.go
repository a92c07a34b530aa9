package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/version"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command failed: bad option value, unreadable file, node error
	exitUsage = 2 // the command line could not be parsed: unknown flag or command, missing flag value
)

// usageError marks an error in the command line's syntax.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// newRootCommand returns the basalt command with every option and
// subcommand. Options shared with subcommands (--data-path, --genesis-file,
// --network, --config-file, --node-private-key-file, --logging) are
// persistent flags, so they may come before or after the subcommand name:
// `basalt --data-path=x public-key export`. A subcommand reads them, with
// the environment and config file, through config.Load(cmd).
func newRootCommand() *cobra.Command {
	return buildRootCommand(runNode)
}

// nodeRunner runs the node until ctx ends, logging to log: runNode, or a
// fake in tests.
type nodeRunner func(ctx context.Context, cfg *config.Config, log *slog.Logger) error

// buildRootCommand is newRootCommand with the node runner as a parameter.
func buildRootCommand(run nodeRunner) *cobra.Command {
	root := &cobra.Command{
		Use:   "basalt",
		Short: "Basalt, a Besu-compatible Ethereum node",
		Long: `Basalt is an Ethereum node compatible with Hyperledger Besu: same options,
genesis format and JSON-RPC interface.

Every option can also be set by an environment variable, BASALT_ followed by the
option name in upper case with dashes as underscores (BASALT_RPC_HTTP_PORT=8545;
Besu's BESU_RPC_HTTP_PORT works too), or by a key in the TOML file given by
--config-file (rpc-http-port=8545). The command line wins over the environment,
which wins over the config file.

Every other option of Besu's command-line reference is accepted as well, so a
Besu configuration starts unchanged: the node says at start-up what it does
instead for each one given (docs/reference/configuration.md lists them all). Run
basalt --Xhelp for the hidden options.`,
		Version:       version.ClientID(config.ClientName, ""),
		Args:          noArgs,
		SilenceErrors: true, // execute prints one line
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if x, _ := cmd.Flags().GetBool(xhelpFlag); x {
				fmt.Fprint(cmd.OutOrStdout(), config.UnstableHelp())
				return nil
			}
			cfg, err := config.Load(cmd)
			if err != nil {
				return err
			}
			if cfg.PrintPathsAndExit {
				printPaths(cmd.OutOrStdout(), cfg)
				return nil
			}
			if _, err := cfg.RequireGenesis(); err != nil {
				return err
			}
			if cfg.PIDPath != "" {
				remove, err := writePIDFile(cfg.PIDPath)
				if err != nil {
					return err
				}
				defer remove()
			}
			return run(cmd.Context(), cfg, newLogger(cmd.ErrOrStderr(), cfg))
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{cliconf.FlagError(c.Flags(), err)} })
	// Besu's -V, --version and -X, --Xhelp (cobra would make --version -v).
	root.Flags().BoolP("version", "V", false, "Print the version (basalt/<version>/<os>-<arch>/<go version>) and exit")
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP(xhelpFlag, "X", false, "Print the hidden options (Besu's early-access --X options) and exit")
	config.AddFlags(root)
	root.AddCommand(subcommands()...)
	return root
}

// xhelpFlag is Besu's --Xhelp.
const xhelpFlag = "Xhelp"

// noArgs rejects positional arguments (which are mistyped subcommands).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())}
	}
	return nil
}

// commandGroup is a subcommand that only groups others (`basalt blocks`,
// `basalt network`, ...): it takes no arguments and runs nothing itself.
func commandGroup(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Args: noArgs}
	cmd.AddCommand(subs...)
	return cmd
}

// execute runs root with args and returns the process exit code. Errors are
// printed to stderr as one line.
func execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "basalt: %s (see '%s --help')\n", oneLine(err), cmd.CommandPath())
		return exitUsage
	}
	fmt.Fprintf(stderr, "basalt: %s\n", oneLine(err))
	return exitError
}

// oneLine joins a multi-line error message into one line.
func oneLine(err error) string {
	lines := strings.Fields(strings.ReplaceAll(err.Error(), "\n", " \x00 "))
	var b strings.Builder
	for _, f := range lines {
		if f == "\x00" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}
