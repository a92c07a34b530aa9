package storage

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The table is Orion's (database/postgres_ddl.sql): the key is the Base64 of
// the key bytes, so a 44-byte payload key fills char(60) exactly. It is
// created when missing.
const (
	createTable = `CREATE TABLE IF NOT EXISTS store (key char(60) PRIMARY KEY, value bytea)`
	maxKeyChars = 60
	// defaultMaxConns is the pool size when the URL sets no pool_max_conns:
	// enough for a few dozen concurrent requests, each holding a
	// connection for one statement.
	defaultMaxConns = 16
	// schemaLockID serializes CREATE TABLE IF NOT EXISTS across instances
	// starting together (it is not atomic on its own).
	schemaLockID = 0x6261736c74707472 // "basltptr"
)

// PostgresKV is a KV in the PostgreSQL table "store", which several
// instances can share (Orion's high-availability setup). A write is durable
// when its transaction commits (with the server's default
// synchronous_commit=on). Update holds a transaction-scoped advisory lock on
// the key, so read-modify-writes of one key are serialized across instances.
type PostgresKV struct {
	pool *pgxpool.Pool
}

// OpenPostgres connects to the database at url and creates the table if
// needed. Pool settings (pool_max_conns, ...) may be given in the URL.
func OpenPostgres(ctx context.Context, url string) (*PostgresKV, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL at %s: %w", where, err)
	}
	s := &PostgresKV{pool: pool}
	if err := s.createTable(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("PostgreSQL at %s: %w", where, err)
	}
	return s, nil
}

func (s *PostgresKV) createTable(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockID)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, createTable)
		return err
	})
}

func encodeKey(key []byte) (string, error) {
	k := base64.StdEncoding.EncodeToString(key)
	if len(k) > maxKeyChars {
		return "", fmt.Errorf("key of %d bytes is too long for the store table", len(key))
	}
	return k, nil
}

// Get implements KV.
func (s *PostgresKV) Get(ctx context.Context, key []byte) ([]byte, error) {
	k, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	var v []byte
	err = s.pool.QueryRow(ctx, `SELECT value FROM store WHERE key = $1`, k).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

const upsert = `INSERT INTO store (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`

// Put implements KV.
func (s *PostgresKV) Put(ctx context.Context, key, value []byte) error {
	k, err := encodeKey(key)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, upsert, k, nonNil(value))
	return err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Update implements KV.
func (s *PostgresKV) Update(ctx context.Context, key []byte, fn func([]byte, bool) ([]byte, bool, error)) error {
	k, err := encodeKey(key)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, k); err != nil {
			return err
		}
		var old []byte
		found := true
		err := tx.QueryRow(ctx, `SELECT value FROM store WHERE key = $1`, k).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
		} else if err != nil {
			return err
		}
		v, write, err := fn(old, found)
		if err != nil || !write {
			return err
		}
		_, err = tx.Exec(ctx, upsert, k, nonNil(v))
		return err
	})
}

// Delete implements KV.
func (s *PostgresKV) Delete(ctx context.Context, key []byte) error {
	k, err := encodeKey(key)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `DELETE FROM store WHERE key = $1`, k)
	return err
}

// ForEach implements KV.
func (s *PostgresKV) ForEach(ctx context.Context, fn func(key, value []byte) error) error {
	rows, err := s.pool.Query(ctx, `SELECT key, value FROM store`)
	if err != nil {
		return err
	}
	type entry struct{ k, v []byte }
	var all []entry
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		kb, err := base64.StdEncoding.DecodeString(strings.TrimRight(k, " "))
		if err != nil {
			continue // a row another program wrote; not ours to interpret
		}
		all = append(all, entry{kb, nonNil(v)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range all {
		if err := fn(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}

// Close implements KV.
func (s *PostgresKV) Close() error {
	s.pool.Close()
	return nil
}
