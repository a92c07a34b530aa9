package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/internal/cliconf"
	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/instance"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/tesserastore"
)

// h2Help is how an operator turns Tessera's H2 database into what the
// import reads, with the H2 jar Tessera ships.
const h2Help = `Tessera's H2 database cannot be read directly: stop Tessera and export it with H2's Script tool, then import the file:
  java -cp /path/to/tessera/lib/h2-*.jar org.h2.tools.Script -url 'jdbc:h2:/path/to/db' -user <jdbc.username> -password <jdbc.password> -script tessera.sql
  basalt-privacy import-tessera --from tessera.sql [config-file]`

func newImportTesseraCommand() *cobra.Command {
	var from, user, password string
	cmd := &cobra.Command{
		Use:   "import-tessera --from <source> [config-file]",
		Short: "Import the payloads a Tessera node stored (migration from GoQuorum + Tessera)",
		Long: `import-tessera copies every private payload a Tessera node stored (its table
ENCRYPTED_TRANSACTION, both of Tessera's payload codecs) into this instance's
storage, so that the Q2T API serves each under the same key, decrypting to
the same plaintext. The config file is this instance's (the same one it runs
with); its publickeys/privatekeys must be the Tessera node's key pairs.

--from is Tessera's jdbc.url for a Tessera on PostgreSQL
(jdbc:postgresql://host:5432/db, with --from-user/--from-password for
jdbc.username/jdbc.password), or the path of an H2 script: Tessera's default
H2 database exported with H2's Script tool (see
docs/how-to/migrate-from-goquorum.md).

Run it with the instance stopped when storage is embedded (leveldb/pebble);
with a PostgreSQL store it may run while the instance serves. It is
idempotent: payloads already imported are counted and skipped. Rows no
configured key opens, rows using privacy enhancements or mandatory
recipients, and malformed rows are listed and refused (exit status 1); the
others are imported. Payloads of /storeraw (ENCRYPTED_RAW_TRANSACTION) and
privacy groups (PRIVACY_GROUP) are counted, not imported.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageError{errors.New("--from is required: Tessera's jdbc.url (jdbc:postgresql://...) or an H2 script file")}
			}
			cfg, log, err := loadConfig(cmd, args)
			if err != nil {
				return err
			}
			return importTessera(cmd.Context(), cfg, from, user, password, cmd.OutOrStdout(), cmd.ErrOrStderr(), log)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "Tessera's store: its jdbc.url for PostgreSQL (jdbc:postgresql://host:port/db), or an H2 script file written by H2's Script tool")
	cmd.Flags().StringVar(&user, "from-user", "", "user of Tessera's PostgreSQL database (Tessera's jdbc.username), if not in --from")
	cmd.Flags().StringVar(&password, "from-password", "", "password of Tessera's PostgreSQL database (jdbc.password); the environment variable TESSERA_JDBC_PASSWORD is read when this is empty")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{cliconf.FlagError(c.Flags(), err)} })
	return cmd
}

// openSource opens the Tessera store --from names.
func openSource(ctx context.Context, from, user, password string) (tesserastore.Source, error) {
	lower := strings.ToLower(from)
	switch {
	case strings.HasPrefix(lower, "jdbc:postgresql:"), strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		if password == "" {
			password = os.Getenv("TESSERA_JDBC_PASSWORD")
		}
		return tesserastore.OpenPostgres(ctx, from, user, password)
	case strings.HasPrefix(lower, "jdbc:h2:"):
		return nil, usageError{errors.New(h2Help)}
	case strings.HasPrefix(lower, "jdbc:"):
		return nil, usageError{fmt.Errorf("--from %s: only Tessera on PostgreSQL or an H2 script is read; export other databases' ENCRYPTED_TRANSACTION to PostgreSQL first", from)}
	default:
		if _, err := os.Stat(from); err != nil {
			return nil, usageError{fmt.Errorf("--from: %w", err)}
		}
		return tesserastore.OpenH2Script(from)
	}
}

func importTessera(ctx context.Context, cfg *config.Config, from, user, password string, out, errOut io.Writer, log *slog.Logger) error {
	src, err := openSource(ctx, from, user, password)
	if err != nil {
		return err
	}
	defer src.Close()
	pairs, always, err := instance.LoadKeys(cfg)
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		return errors.New("no key pairs configured (publickeys/privatekeys): configure the Tessera node's keys, which open its payloads")
	}
	store, err := storage.Open(ctx, cfg.StorageSpec)
	if err != nil {
		return fmt.Errorf("storage: %w (stop the running instance first when storage is embedded)", err)
	}
	defer store.Close()
	m := &manager.Manager{Enclave: enclave.New(pairs, always), Store: store, Log: log}
	log.Info("importing Tessera payloads", "from", src.String(), "keys", len(pairs))
	last := time.Now()
	rep, err := tesserastore.Import(ctx, src, m, tesserastore.Options{Progress: func(r *tesserastore.Report) {
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			log.Info("import progress", "read", r.Read, "imported", r.Imported, "present", r.Present, "refused", len(r.Refused))
		}
	}})
	if rep != nil {
		for _, r := range rep.Refused {
			fmt.Fprintf(errOut, "refused %s: %s\n", r.Key, r.Reason)
		}
		fmt.Fprintf(out, "read %d payloads from %s: %d imported, %d already present, %d refused (%d for unsupported privacy modes)\n",
			rep.Read, src, rep.Imported, rep.Present, len(rep.Refused), rep.Unsupported)
		if err == nil && (rep.RawNotImported > 0 || rep.GroupsNotImported > 0) {
			fmt.Fprintf(out, "not imported: %d rows of ENCRYPTED_RAW_TRANSACTION (payloads of /storeraw, in ENCRYPTED_TRANSACTION once their transaction was sent), %d rows of PRIVACY_GROUP\n",
				rep.RawNotImported, rep.GroupsNotImported)
		}
	}
	if err != nil {
		return err
	}
	if len(rep.Refused) > 0 {
		return fmt.Errorf("%d payloads refused (listed above); the rest are imported, and a re-run skips them", len(rep.Refused))
	}
	return nil
}
