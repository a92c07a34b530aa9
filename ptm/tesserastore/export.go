package tesserastore

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/tesserapayload"
	"github.com/jackc/pgx/v5"
)

// Export returns the payloads m stores that the Q2T API serves under the
// key of their own cipher text (every payload sent or received here; not
// payloads imported from Tessera, which keep Tessera's key) as rows of
// Tessera's ENCRYPTED_TRANSACTION, in the CBOR codec, sorted by key: what a
// Tessera holding the same payloads would store. An Orion payload is a
// Tessera payload whose cipher-text nonce is zero: the same cipher text
// (so the same key), the same boxes under the same nonce. Each box is
// matched to the key it is for, as Tessera lists them.
//
// It serves tests that need a Tessera store of known payloads, and moving
// a node's payloads back to Tessera.
func Export(ctx context.Context, m *manager.Manager) ([]Row, error) {
	var out []Row
	var errs []error
	err := m.Store.ForEach(ctx, func(k, v []byte) error {
		p, err := payload.DecodeEncryptedPayload(v)
		if err != nil || string(k) != p.Digest() {
			return nil // not a payload (a group, an index entry, ...)
		}
		tk := payload.TesseraKey(p.CipherText)
		xd, err := m.Store.Get(ctx, []byte(payload.TesseraIndexKey(tk[:])))
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		x, err := payload.DecodeTesseraIndex(xd)
		if err != nil || x.Digest != p.Digest() {
			return nil
		}
		tp := &tesserapayload.Payload{
			Sender:          bytes.Clone(p.Sender[:]),
			CipherText:      p.CipherText,
			CipherTextNonce: make([]byte, tesserapayload.NonceSize),
			RecipientBoxes:  p.EncryptedKeys,
			RecipientNonce:  bytes.Clone(p.Nonce[:]),
		}
		tp.Recipients = boxOwners(m, p, x.Participants)
		enc, err := tesserapayload.EncodeCBOR(tp)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		out = append(out, Row{Hash: tk[:], Encoded: enc, Codec: string(tesserapayload.CBOR)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Hash, out[j].Hash) < 0 })
	return out, errors.Join(errs...)
}

// boxOwners names the key each box of p is for, by opening it: with the
// sender's key against each candidate when the sender is hosted, else with
// each hosted key against the sender. If a box cannot be matched the copy
// lists no recipients, as Tessera's oldest payloads do.
func boxOwners(m *manager.Manager, p *payload.EncryptedPayload, participants []string) [][]byte {
	var cands []keys.PublicKey
	for _, s := range participants {
		if k, err := keys.ParsePublicKey(s); err == nil {
			cands = append(cands, k)
		}
	}
	cands = append(cands, m.Enclave.NodeKeys()...)
	cands = append(cands, p.Sender)
	senderHosted := m.Enclave.Hosts(p.Sender)
	var out [][]byte
	for _, bx := range p.EncryptedKeys {
		found := false
		for _, c := range cands {
			var ok bool
			if senderHosted {
				_, ok = m.Enclave.Open(p.Sender, c, &p.Nonce, bx)
			} else if m.Enclave.Hosts(c) {
				_, ok = m.Enclave.Open(c, p.Sender, &p.Nonce, bx)
			}
			if ok {
				out = append(out, bytes.Clone(c[:]))
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

// PostgresDDL is Tessera's PostgreSQL schema (ddls/create-table/
// postgresql-ddl.sql of Tessera 24.x), the tables a Tessera node on
// PostgreSQL has.
const PostgresDDL = `CREATE TABLE ENCRYPTED_TRANSACTION (ENCODED_PAYLOAD BYTEA NOT NULL, PAYLOAD_CODEC VARCHAR(50), HASH BYTEA NOT NULL, TIMESTAMP DECIMAL(19), PRIMARY KEY (HASH));
CREATE TABLE ENCRYPTED_RAW_TRANSACTION (ENCRYPTED_KEY BYTEA NOT NULL, ENCRYPTED_PAYLOAD BYTEA NOT NULL, NONCE BYTEA NOT NULL, SENDER BYTEA NOT NULL, TIMESTAMP DECIMAL(19), HASH BYTEA NOT NULL, PRIMARY KEY (HASH));
CREATE TABLE PRIVACY_GROUP(ID BYTEA NOT NULL, LOOKUP_ID BYTEA NOT NULL, DATA BYTEA NOT NULL, TIMESTAMP DECIMAL(19), PRIMARY KEY (ID));
CREATE TABLE ST_TRANSACTION(ID BIGINT NOT NULL CONSTRAINT ST_TRANSACTION_PKEY PRIMARY KEY, PAYLOAD_CODEC VARCHAR(50), HASH VARCHAR(255) NOT NULL, PAYLOAD BYTEA, PRIVACY_MODE INTEGER, TIMESTAMP BIGINT,VALIDATION_STAGE BIGINT);
CREATE TABLE ST_AFFECTED_TRANSACTION(ID BIGINT NOT NULL CONSTRAINT ST_AFFECTED_TRANSACTION_PKEY PRIMARY KEY, AFFECTED_HASH VARCHAR(255) NOT NULL, TXN_ID BIGINT NOT NULL CONSTRAINT FK_ST_AFFECTED_TRANSACTION_TXN_ID REFERENCES ST_TRANSACTION);
CREATE INDEX IF NOT EXISTS ST_TRANSACTION_VALSTG ON ST_TRANSACTION (VALIDATION_STAGE);`

// WritePostgres creates Tessera's tables (PostgresDDL) in the database at
// dbURL (a postgres:// URL or Tessera's JDBC URL) and inserts rows into
// ENCRYPTED_TRANSACTION, as a Tessera node on PostgreSQL holds them.
func WritePostgres(ctx context.Context, dbURL string, rows []Row) error {
	u, schema, err := pgURL(dbURL)
	if err != nil {
		return err
	}
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return err
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = schema
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, stmt := range strings.Split(PostgresDDL, ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("Tessera DDL: %w", err)
			}
		}
		for _, r := range rows {
			var codec any
			if r.Codec != "" {
				codec = r.Codec
			}
			if _, err := tx.Exec(ctx, `INSERT INTO ENCRYPTED_TRANSACTION (ENCODED_PAYLOAD, PAYLOAD_CODEC, HASH, TIMESTAMP) VALUES ($1, $2, $3, $4)`,
				r.Encoded, codec, r.Hash, r.Timestamp); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteH2Script writes rows as H2 2.x's Script tool writes a Tessera H2
// database with Tessera's H2 schema (ddls/create-table/h2-ddl.sql): the
// CREATE TABLE statements, then INSERT ... VALUES with the rows in column
// order, each statement padded with spaces to H2's 16-byte blocks.
func WriteH2Script(w io.Writer, rows []Row) error {
	stmts := []string{
		`CREATE CACHED TABLE "PUBLIC"."ENCRYPTED_TRANSACTION"(
    "ENCODED_PAYLOAD" BINARY VARYING NOT NULL,
    "PAYLOAD_CODEC" CHARACTER VARYING(50),
    "TIMESTAMP" BIGINT,
    "HASH" BINARY VARYING NOT NULL
)`,
		`ALTER TABLE "PUBLIC"."ENCRYPTED_TRANSACTION" ADD CONSTRAINT "PUBLIC"."CONSTRAINT_A" PRIMARY KEY("HASH")`,
		fmt.Sprintf(`-- %d +/- SELECT COUNT(*) FROM "PUBLIC"."ENCRYPTED_TRANSACTION";`+"\n", len(rows)),
	}
	if len(rows) > 0 {
		var b strings.Builder
		b.WriteString(`INSERT INTO "PUBLIC"."ENCRYPTED_TRANSACTION" VALUES` + "\n")
		for i, r := range rows {
			if i > 0 {
				b.WriteString(",\n")
			}
			codec := "NULL"
			if r.Codec != "" {
				codec = "'" + strings.ReplaceAll(r.Codec, "'", "''") + "'"
			}
			fmt.Fprintf(&b, "(X'%s', %s, %d, X'%s')", hex.EncodeToString(r.Encoded), codec, r.Timestamp, hex.EncodeToString(r.Hash))
		}
		stmts = append(stmts, b.String())
	}
	stmts = append(stmts,
		`CREATE CACHED TABLE "PUBLIC"."ENCRYPTED_RAW_TRANSACTION"(
    "ENCRYPTED_KEY" BINARY VARYING NOT NULL,
    "ENCRYPTED_PAYLOAD" BINARY VARYING NOT NULL,
    "NONCE" BINARY VARYING NOT NULL,
    "SENDER" BINARY VARYING NOT NULL,
    "TIMESTAMP" BIGINT,
    "HASH" BINARY VARYING NOT NULL
)`,
		`CREATE CACHED TABLE "PUBLIC"."PRIVACY_GROUP"(
    "ID" BINARY VARYING NOT NULL,
    "LOOKUP_ID" BINARY VARYING NOT NULL,
    "DATA" BINARY VARYING NOT NULL,
    "TIMESTAMP" BIGINT
)`)
	for _, s := range stmts {
		if strings.HasPrefix(s, "--") {
			if _, err := io.WriteString(w, s); err != nil {
				return err
			}
			continue
		}
		s += ";"
		n := (len(s) + 1 + 15) / 16 * 16 // H2 pads a statement and its newline to 16-byte blocks
		if _, err := io.WriteString(w, s+strings.Repeat(" ", n-len(s)-1)+"\n"); err != nil {
			return err
		}
	}
	return nil
}
