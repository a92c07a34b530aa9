package tesserastore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/basaltchain/basalt/ptm/h2script"
)

// An H2 script is what H2's Script tool writes (java -cp h2.jar
// org.h2.tools.Script -url jdbc:h2:<db> -user <u> -script tessera.sql, or
// the SQL statement SCRIPT TO 'tessera.sql'); package h2script reads it.

// H2Script is a Source reading an H2 script file.
type H2Script struct {
	path        string
	f           *os.File
	raw, groups int64
	done        bool
}

// OpenH2Script opens an H2 script.
func OpenH2Script(path string) (*H2Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &H2Script{path: path, f: f}, nil
}

// String implements Source.
func (s *H2Script) String() string { return "H2 script " + s.path }

// Close implements Source.
func (s *H2Script) Close() error { return s.f.Close() }

// NotImported implements Source; it is known after Transactions.
func (s *H2Script) NotImported(context.Context) (int64, int64, error) {
	if !s.done {
		return 0, 0, errors.New("H2 script: the counts are known once the whole script is read")
	}
	return s.raw, s.groups, nil
}

// Transactions implements Source. It reads the script once.
func (s *H2Script) Transactions(ctx context.Context, fn func(Row) error) error {
	if s.done {
		return errors.New("H2 script: already read")
	}
	err := h2script.Read(ctx, s.f, []string{tableTx, tableRaw, tableGroups}, func(table string, row map[string]h2script.Value) error {
		switch table {
		case tableRaw:
			s.raw++
		case tableGroups:
			s.groups++
		case tableTx:
			r, err := txRow(row)
			if err != nil {
				return err
			}
			return fn(r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	s.done = true
	return nil
}

// txRow maps a row of ENCRYPTED_TRANSACTION.
func txRow(row map[string]h2script.Value) (Row, error) {
	var r Row
	h, ok := row[colHash]
	if !ok || h.Kind != h2script.Bytes {
		return r, errors.New("ENCRYPTED_TRANSACTION row without a binary HASH")
	}
	p, ok := row[colPayload]
	if !ok || p.Kind != h2script.Bytes {
		return r, errors.New("ENCRYPTED_TRANSACTION row without a binary ENCODED_PAYLOAD")
	}
	r.Hash, r.Encoded = h.Bytes, p.Bytes
	if c, ok := row[colCodec]; ok && c.Kind != h2script.Null {
		if c.Kind != h2script.Text {
			return r, errors.New("PAYLOAD_CODEC is not text")
		}
		r.Codec = c.Text
	}
	if ts, ok := row[colTime]; ok && ts.Kind == h2script.Number {
		r.Timestamp, _ = strconv.ParseInt(ts.Text, 10, 64)
	}
	return r, nil
}
