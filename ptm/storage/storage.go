// Package storage holds the key-value stores basalt-privacy keeps its
// payloads, privacy groups and (optionally) its node table in: an in-memory
// map, an embedded Pebble database, and a PostgreSQL table that several
// instances can share for high availability.
//
// Keys and values are opaque bytes; the layout above them is Orion's (see
// package manager), so a PostgreSQL store written by Orion can be read.
//
// Durability: when Put or Update returns nil the write is on stable storage
// (Pebble: the write-ahead log is synced; PostgreSQL: the transaction has
// committed). A crash at any moment therefore loses no acknowledged write,
// and an unacknowledged one is either wholly there or not at all.
package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("not found")

// KV is a key-value store. Implementations are safe for concurrent use.
type KV interface {
	// Get returns the value of key, or ErrNotFound.
	Get(ctx context.Context, key []byte) ([]byte, error)
	// Put stores value under key, durably.
	Put(ctx context.Context, key, value []byte) error
	// Update atomically reads key and, if fn says so, writes a new value,
	// durably. fn gets the current value (found=false if absent); when it
	// returns write=false nothing is written. No other Update of the
	// same key interleaves — across processes, for a shared store.
	// (A concurrent Put of the same key is not ordered against it.)
	Update(ctx context.Context, key []byte, fn func(old []byte, found bool) (value []byte, write bool, err error)) error
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key []byte) error
	// ForEach calls fn for every entry, in no particular order, until fn
	// returns an error. fn must not modify the store.
	ForEach(ctx context.Context, fn func(key, value []byte) error) error
	// Close releases the store.
	Close() error
}

// Kind is a storage engine.
type Kind string

// Storage engines.
const (
	Memory   Kind = "memory"
	Pebble   Kind = "pebble"
	Postgres Kind = "postgres"
)

// Spec is a parsed storage setting.
type Spec struct {
	Kind Kind
	// Path is the Pebble directory (absolute once resolved by Parse).
	Path string
	// URL is the PostgreSQL connection URL (postgres://...).
	URL string
	// Alias is set when the setting named an Orion engine that maps to
	// another one here ("leveldb", "mapdb").
	Alias string
}

// Parse reads a storage setting as Orion writes it:
//
//	memory                 contents are lost when the process exits
//	leveldb[:name]         embedded store in workdir/name (Pebble here)
//	pebble[:name]          the same
//	mapdb[:name]           the same (Orion's other embedded engine)
//	sql:<url>              PostgreSQL; <url> is postgres://..., postgresql://...
//	                       or Orion's jdbc:postgresql://host:port/db?user=..&password=..
//
// defaultName is the directory when none is given (Orion: "routerdb" for
// payloads, "nodedb" for the node table); relative names resolve against
// workdir.
func Parse(setting, workdir, defaultName string) (Spec, error) {
	engine, arg, hasArg := strings.Cut(setting, ":")
	switch strings.ToLower(engine) {
	case "memory":
		if hasArg {
			return Spec{}, fmt.Errorf("storage %q: memory takes no argument", setting)
		}
		return Spec{Kind: Memory}, nil
	case "leveldb", "mapdb", "pebble":
		name := arg
		if !hasArg || name == "" {
			name = defaultName
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(workdir, name)
		}
		s := Spec{Kind: Pebble, Path: name}
		if e := strings.ToLower(engine); e != "pebble" {
			s.Alias = e
		}
		return s, nil
	case "sql":
		u, err := postgresURL(arg)
		if err != nil {
			return Spec{}, fmt.Errorf("storage %q: %w", setting, err)
		}
		return Spec{Kind: Postgres, URL: u}, nil
	default:
		return Spec{}, fmt.Errorf("storage %q: unknown engine %q (want memory, leveldb[:path], pebble[:path] or sql:postgres://...)", setting, engine)
	}
}

// postgresURL accepts postgres:// and postgresql:// URLs and Orion's JDBC
// form, and returns a URL pgx understands.
func postgresURL(s string) (string, error) {
	if rest, ok := strings.CutPrefix(s, "jdbc:"); ok {
		s = rest
	}
	lower := strings.ToLower(s)
	if !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
		return "", errors.New("only PostgreSQL is supported: want sql:postgres://user:password@host:port/db")
	}
	return s, nil
}

// Open opens the store a Spec names.
func Open(ctx context.Context, s Spec) (KV, error) {
	switch s.Kind {
	case Memory:
		return NewMemory(), nil
	case Pebble:
		return OpenPebble(s.Path)
	case Postgres:
		return OpenPostgres(ctx, s.URL)
	default:
		return nil, fmt.Errorf("unknown storage kind %q", s.Kind)
	}
}
