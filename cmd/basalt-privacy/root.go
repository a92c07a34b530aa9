package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/internal/version"
	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/instance"
	"github.com/basaltchain/basalt/ptm/keys"
)

// clientID is what --version prints, GET /version answers and the start-up
// line logs: basalt-privacy/<version>/<os>-<arch>/<go version>, the version
// being the build's, the same as basalt's and basalt-signer's (package
// internal/version).
var clientID = version.ClientID("basalt-privacy", "")

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// execute runs the command line and returns the exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newRootCommand(stdin)
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "basalt-privacy:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		return exitError
	}
	return exitOK
}

func newRootCommand(stdin io.Reader) *cobra.Command {
	var generate []string
	var clearKnown bool
	root := &cobra.Command{
		Use:   "basalt-privacy [config-file]",
		Short: "Basalt's Orion-compatible private transaction manager",
		Long: `basalt-privacy stores and distributes the encrypted payloads of private
transactions between the parties named by their keys, and manages privacy
groups. It reads Orion's TOML configuration (orion.conf); every key can be
overridden by an environment variable BASALT_PRIVACY_<KEY> or ORION_<KEY>
(lists comma-separated). Without a config file the defaults apply: node API on
127.0.0.1:8080, client API on 127.0.0.1:8888, storage leveldb (Pebble) in the
current directory. Before exposing the node API to other organisations, read
"Running it in production" in docs/how-to/privacy-manager.md (mutual TLS, allowlists, client
API tokens).`,
		Args:          cobra.MaximumNArgs(1),
		Version:       clientID,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, log, err := loadConfig(cmd, args)
			if err != nil {
				return err
			}
			if len(generate) > 0 {
				return generateKeys(cmd.OutOrStdout(), stdin, generate)
			}
			return run(cmd.Context(), cfg, log, clearKnown)
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{cliconf.FlagError(c.Flags(), err)} })
	root.Flags().StringSliceVarP(&generate, "generatekeys", "g", nil,
		"generate key pairs name.pub/name.key for each comma-separated name, prompting on stdin for a password for each (empty: not locked), and exit")
	root.Flags().BoolVar(&clearKnown, "clear-known-nodes", false, "clear the persisted table of known nodes (knownnodesstorage) at start-up")
	root.AddCommand(newImportTesseraCommand())
	return root
}

// loadConfig reads the configuration file args names (none: the defaults)
// with its environment overrides, and makes the logger its verbosity
// asks for, writing to the command's standard error.
func loadConfig(cmd *cobra.Command, args []string) (*config.Config, *slog.Logger, error) {
	path := ""
	if len(args) == 1 {
		path = args[0]
	}
	cfg, err := config.Load(path, os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: logLevel(cfg.Verbosity)}))
	return cfg, log, nil
}

// logLevel maps Orion's verbosity (0..4) to a log level.
func logLevel(v int) slog.Level {
	switch {
	case v <= 0:
		return slog.LevelError
	case v == 1:
		return slog.LevelInfo
	case v == 2:
		return slog.LevelDebug
	default:
		return slog.LevelDebug - 4
	}
}

func run(ctx context.Context, cfg *config.Config, log *slog.Logger, clearKnown bool) error {
	log.Info("Starting basalt-privacy", "version", clientID)
	in, err := instance.Start(ctx, cfg, instance.Options{Log: log, Version: clientID, ClearKnownNodes: clearKnown})
	if err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("stopping")
	return in.Close()
}

// generateKeys writes a key pair per name, asking for a password for each
// on stdin (Orion's -g).
func generateKeys(out io.Writer, stdin io.Reader, names []string) error {
	in := bufio.NewReader(stdin)
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			return usageError{errors.New("--generatekeys: empty key name")}
		}
		fmt.Fprintf(out, "Enter password for key pair [%s] : ", name)
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read password: %w", err)
		}
		fmt.Fprintln(out)
		kp, err := keys.Generate(nil)
		if err != nil {
			return err
		}
		if err := keys.WriteKeyPairFiles(name, kp, strings.TrimSpace(line)); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s.pub and %s.key (public key %s)\n", name, name, kp.Public)
	}
	return nil
}
