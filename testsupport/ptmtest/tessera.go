package ptmtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/instance"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/tesserastore"
)

// Helpers for tests of the migration from Tessera: they turn the payloads
// an instance holds into a Tessera store (as the Tessera of a GoQuorum node
// holding the same payloads would have it) and import such a store with
// the basalt-privacy binary, as an operator replacing Tessera does.

// OpenManager opens the store and keys of a stopped instance described by
// c (its embedded store is locked while it runs), for Export; closed when
// the test ends.
func OpenManager(t testing.TB, c Conf) *manager.Manager {
	t.Helper()
	path, _ := c.Write(t)
	cfg, err := config.Load(path, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	pairs, always, err := instance.LoadKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := storage.Open(context.Background(), cfg.StorageSpec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kv.Close() })
	return &manager.Manager{Enclave: enclave.New(pairs, always), Store: kv}
}

// WriteTesseraScript writes the payloads m holds (tesserastore.Export) to
// path as the H2 script of a Tessera database, and returns how many.
func WriteTesseraScript(t testing.TB, m *manager.Manager, path string) int {
	t.Helper()
	rows, err := tesserastore.Export(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tesserastore.WriteH2Script(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// ImportTessera writes c's config (creating its key files if missing: give
// it the key files of the node being replaced) and runs `basalt-privacy
// import-tessera --from source` on it with the binary; it returns the
// command's output and fails the test unless it succeeds. source is an H2
// script or a Tessera PostgreSQL URL.
func ImportTessera(t testing.TB, c Conf, source string) string {
	t.Helper()
	path, _ := c.Write(t)
	out, err := exec.Command(Binary(t), "import-tessera", "--from", source, path).CombinedOutput()
	if err != nil {
		t.Fatalf("basalt-privacy import-tessera --from %s: %v\n%s", source, err, out)
	}
	return string(out)
}
