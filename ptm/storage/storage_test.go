package storage_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/storage/storagetest"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/jackc/pgx/v5"
)

func TestMemory(t *testing.T) {
	storagetest.Run(t, storagetest.Opener{
		Open: func(t *testing.T) storage.KV { return storage.NewMemory() },
	})
}

func TestPebble(t *testing.T) {
	// One directory per subtest, reused by the reopen within it.
	dirs := map[string]string{}
	storagetest.Run(t, storagetest.Opener{
		Persistent: true,
		Open: func(t *testing.T) storage.KV {
			dir, ok := dirs[t.Name()]
			if !ok {
				dir = t.TempDir()
				dirs[t.Name()] = dir
			}
			kv, err := storage.OpenPebble(filepath.Join(dir, "db"))
			if err != nil {
				t.Fatal(err)
			}
			return kv
		},
	})
}

func TestPostgres(t *testing.T) {
	ptmtest.PostgresURL(t)
	schemas := map[string]string{}
	storagetest.Run(t, storagetest.Opener{
		Persistent: true,
		Shared:     true,
		Open: func(t *testing.T) storage.KV {
			u, ok := schemas[t.Name()]
			if !ok {
				u = ptmtest.PostgresSchema(t)
				schemas[t.Name()] = u
			}
			kv, err := storage.OpenPostgres(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			return kv
		},
	})
}

func TestPostgresOrionKeyFormat(t *testing.T) {
	u := ptmtest.PostgresSchema(t)
	ctx := context.Background()
	kv, err := storage.OpenPostgres(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	// A payload key (44 Base64 characters) is stored Base64-encoded again,
	// filling Orion's char(60) column.
	key := []byte("xnK40e9W7Sirh8NiLFEUBpvdOte4+XN0mNDAHs7wlno=")
	if err := kv.Put(ctx, key, []byte{1}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var k string
	if err := conn.QueryRow(ctx, "SELECT key FROM store").Scan(&k); err != nil {
		t.Fatal(err)
	}
	if k != "eG5LNDBlOVc3U2lyaDhOaUxGRVVCcHZkT3RlNCtYTjBtTkRBSHM3d2xubz0=" {
		t.Errorf("stored key %q", k)
	}
	if err := kv.Put(ctx, make([]byte, 46), nil); err == nil {
		t.Error("a key too long for char(60) was accepted")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want storage.Spec
		bad  bool
	}{
		{in: "memory", want: storage.Spec{Kind: storage.Memory}},
		{in: "leveldb", want: storage.Spec{Kind: storage.Pebble, Path: "/w/routerdb", Alias: "leveldb"}},
		{in: "leveldb:db", want: storage.Spec{Kind: storage.Pebble, Path: "/w/db", Alias: "leveldb"}},
		{in: "LevelDB:/abs/db", want: storage.Spec{Kind: storage.Pebble, Path: "/abs/db", Alias: "leveldb"}},
		{in: "pebble:x", want: storage.Spec{Kind: storage.Pebble, Path: "/w/x"}},
		{in: "mapdb", want: storage.Spec{Kind: storage.Pebble, Path: "/w/routerdb", Alias: "mapdb"}},
		{in: "sql:postgres://u:p@h:5432/db", want: storage.Spec{Kind: storage.Postgres, URL: "postgres://u:p@h:5432/db"}},
		{in: "sql:postgresql://h/db", want: storage.Spec{Kind: storage.Postgres, URL: "postgresql://h/db"}},
		{in: "sql:jdbc:postgresql://h:5432/payloaddb?user=orion&password=x", want: storage.Spec{Kind: storage.Postgres, URL: "postgresql://h:5432/payloaddb?user=orion&password=x"}},
		{in: "sql:jdbc:oracle:thin:@h:1521:db", bad: true},
		{in: "sql:", bad: true},
		{in: "memory:x", bad: true},
		{in: "redis", bad: true},
		{in: "", bad: true},
	}
	for _, tc := range tests {
		got, err := storage.Parse(tc.in, "/w", "routerdb")
		if tc.bad {
			if err == nil {
				t.Errorf("Parse(%q) = %+v, want error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
