// Package tesserastore reads the payloads a Tessera node stored and imports
// them into basalt-privacy, so that a Basalt node replacing a GoQuorum node
// finds every payload the GoQuorum node's Tessera held, under the same key
// (Base64 SHA3-512 of the cipher text, the data of GoQuorum's private
// transactions), decryptable with the node's Tessera keys.
//
// Tessera keeps them in the table ENCRYPTED_TRANSACTION (HASH: the 64-byte
// key, ENCODED_PAYLOAD: the payload in the codec named by PAYLOAD_CODEC,
// NULL meaning LEGACY; see package tesserapayload). Two sources are read:
//
//   - Tessera's database on PostgreSQL (OpenPostgres), given by Tessera's
//     JDBC URL (jdbc:postgresql://...) or a postgres:// URL;
//   - Tessera's default H2 database, which Go cannot open, exported with
//     H2's own Script tool (or SQL "SCRIPT TO 'file'") as a SQL script
//     (OpenH2Script).
//
// ENCRYPTED_RAW_TRANSACTION (payloads stored by /storeraw, which reach
// ENCRYPTED_TRANSACTION once their transaction is sent) and PRIVACY_GROUP
// (privacy groups of Besu-with-Tessera and of multiple private states,
// neither served here) are counted, not imported.
package tesserastore

import (
	"context"
)

// Row is a row of Tessera's ENCRYPTED_TRANSACTION.
type Row struct {
	Hash      []byte // the Tessera key: SHA3-512 of the payload's cipher text
	Encoded   []byte // ENCODED_PAYLOAD
	Codec     string // PAYLOAD_CODEC; "" for NULL or a schema without the column
	Timestamp int64  // milliseconds since 1970 (0 when absent)
}

// Source is a Tessera store being read.
type Source interface {
	// Transactions calls fn for each row of ENCRYPTED_TRANSACTION, in the
	// source's order, until fn returns an error.
	Transactions(ctx context.Context, fn func(Row) error) error
	// NotImported counts the rows of the tables that are not imported:
	// ENCRYPTED_RAW_TRANSACTION and PRIVACY_GROUP. For a script it is known
	// once Transactions has read the whole file.
	NotImported(ctx context.Context) (raw, groups int64, err error)
	// String names the source for messages.
	String() string
	// Close releases the source.
	Close() error
}

// Tessera's table and column names, as its DDL (ddls/create-table) and its
// JPA entities spell them.
const (
	tableTx     = "ENCRYPTED_TRANSACTION"
	tableRaw    = "ENCRYPTED_RAW_TRANSACTION"
	tableGroups = "PRIVACY_GROUP"
	colHash     = "HASH"
	colPayload  = "ENCODED_PAYLOAD"
	colCodec    = "PAYLOAD_CODEC"
	colTime     = "TIMESTAMP"
)
