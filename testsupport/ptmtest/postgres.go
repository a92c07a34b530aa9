package ptmtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresEnv names the environment variable with the test database URL.
const PostgresEnv = "BASALT_TEST_POSTGRES_URL"

// PostgresURL returns the test database URL, or skips the test when it is
// not set.
func PostgresURL(t testing.TB) string {
	u := os.Getenv(PostgresEnv)
	if u == "" {
		t.Skip(PostgresEnv + " is not set; start PostgreSQL with ptm/storage/testdata/start-postgres.sh and export the URL it prints")
	}
	return u
}

// PostgresSchema creates an empty schema in the test database for one test
// and returns a URL whose connections use it; the schema is dropped when the
// test ends. It skips the test when no database is configured.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "basalt_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
