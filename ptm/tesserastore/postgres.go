package tesserastore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Postgres is a Source reading Tessera's tables in PostgreSQL.
type Postgres struct {
	conn  *pgx.Conn
	where string
}

// OpenPostgres connects to Tessera's database. dbURL is Tessera's
// jdbc.url (jdbc:postgresql://host:port/db[?currentSchema=s&...]) or a
// postgres:// URL; user and password, when not empty, are Tessera's
// jdbc.username and jdbc.password and override the URL's.
func OpenPostgres(ctx context.Context, dbURL, user, password string) (*Postgres, error) {
	u, schema, err := pgURL(dbURL)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return nil, fmt.Errorf("Tessera database URL: %w", err)
	}
	if user != "" {
		cfg.User = user
	}
	if password != "" {
		cfg.Password = password
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = schema
	}
	where := fmt.Sprintf("PostgreSQL %s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to Tessera's %s: %w", where, err)
	}
	return &Postgres{conn: conn, where: where}, nil
}

// pgURL turns Tessera's JDBC URL into one pgx reads. JDBC's currentSchema
// parameter, which PostgreSQL does not know, becomes the search path.
func pgURL(s string) (string, string, error) {
	s = strings.TrimPrefix(s, "jdbc:")
	lower := strings.ToLower(s)
	if !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
		return "", "", errors.New("not a PostgreSQL URL: want jdbc:postgresql://host:port/db or postgres://user@host:port/db")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("Tessera database URL: %w", err)
	}
	q := u.Query()
	schema := q.Get("currentSchema")
	q.Del("currentSchema")
	u.RawQuery = q.Encode()
	return u.String(), schema, nil
}

// String implements Source.
func (p *Postgres) String() string { return "Tessera's " + p.where }

// Close implements Source.
func (p *Postgres) Close() error { return p.conn.Close(context.Background()) }

// columns returns the columns of a table in the search path (lower-case, as
// PostgreSQL folds Tessera's unquoted names); none if it does not exist.
func (p *Postgres) columns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := p.conn.Query(ctx, `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, strings.ToLower(table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out[strings.ToUpper(c)] = true
	}
	return out, rows.Err()
}

// Transactions implements Source. Rows stream from one query; fn may write
// elsewhere meanwhile (another connection).
func (p *Postgres) Transactions(ctx context.Context, fn func(Row) error) error {
	cols, err := p.columns(ctx, tableTx)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if !cols[colHash] || !cols[colPayload] {
		return fmt.Errorf("%s: no table %s with columns %s and %s in schema search path (give the schema as ?currentSchema=)", p, tableTx, colHash, colPayload)
	}
	codec, ts := "NULL", "0"
	if cols[colCodec] {
		codec = colCodec
	}
	if cols[colTime] {
		ts = "COALESCE(" + colTime + ", 0)::bigint"
	}
	rows, err := p.conn.Query(ctx, "SELECT "+colHash+", "+colPayload+", "+codec+"::text, "+ts+" FROM "+tableTx)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		var c *string
		if err := rows.Scan(&r.Hash, &r.Encoded, &c, &r.Timestamp); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if c != nil {
			r.Codec = *c
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// NotImported implements Source.
func (p *Postgres) NotImported(ctx context.Context) (int64, int64, error) {
	count := func(table string) (int64, error) {
		cols, err := p.columns(ctx, table)
		if err != nil || len(cols) == 0 {
			return 0, err
		}
		var n int64
		err = p.conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
		return n, err
	}
	raw, err := count(tableRaw)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p, err)
	}
	groups, err := count(tableGroups)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p, err)
	}
	return raw, groups, nil
}
