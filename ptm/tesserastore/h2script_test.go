package tesserastore

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readScript(t testing.TB, script string) ([]Row, int64, int64, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenH2Script(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows []Row
	err = s.Transactions(context.Background(), func(r Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return rows, 0, 0, err
	}
	raw, groups, err := s.NotImported(context.Background())
	return rows, raw, groups, err
}

// TestH2ScriptForms: the forms H2 writes — 1.4's unquoted names with a
// column list, 2.x's quoted names in table order, a BLOB column (Tessera's
// JPA schema generation) inline as CAST(X'..' AS BINARY LARGE OBJECT) and,
// past the block size, as SYSTEM_COMBINE_BLOB of SYSTEM_LOB_STREAM parts —
// with comments, quotes in strings and other tables around them.
func TestH2ScriptForms(t *testing.T) {
	h := func(s string) string { return hex.EncodeToString([]byte(s)) }
	script := `-- H2 1.4.200;
CREATE USER IF NOT EXISTS SA SALT 'ab' HASH 'cd' ADMIN;
CREATE SEQUENCE PUBLIC.SEQ START WITH 1;
CREATE CACHED TABLE PUBLIC.ENCRYPTED_TRANSACTION(
    ENCODED_PAYLOAD BLOB NOT NULL,
    HASH VARBINARY(255) NOT NULL,
    TIMESTAMP BIGINT,
    PAYLOAD_CODEC VARCHAR(50)
);
ALTER TABLE PUBLIC.ENCRYPTED_TRANSACTION ADD CONSTRAINT PUBLIC.CONSTRAINT_A PRIMARY KEY(HASH);
-- 3 +/- SELECT COUNT(*) FROM PUBLIC.ENCRYPTED_TRANSACTION;
CREATE TABLE IF NOT EXISTS SYSTEM_LOB_STREAM(ID INT NOT NULL, PART INT NOT NULL, CDATA VARCHAR, BDATA BINARY);
INSERT INTO SYSTEM_LOB_STREAM VALUES(0, 0, NULL, '` + h("big-") + `');
INSERT INTO SYSTEM_LOB_STREAM VALUES(0, 1, NULL, '` + h("payload") + `');
INSERT INTO PUBLIC.ENCRYPTED_TRANSACTION(ENCODED_PAYLOAD, HASH, TIMESTAMP, PAYLOAD_CODEC) VALUES
(X'` + h("one") + `', X'` + h("h1") + `', 1, 'CBOR'),
(CAST(X'` + h("two") + `' AS BINARY LARGE OBJECT(3)), X'` + h("h2") + `', -2, NULL),
(SYSTEM_COMBINE_BLOB(0), X'` + h("h3") + `', NULL, 'LEGACY');
CREATE MEMORY TABLE "PUBLIC"."ENCRYPTED_RAW_TRANSACTION"("ENCRYPTED_KEY" BINARY VARYING NOT NULL, "ENCRYPTED_PAYLOAD" BINARY VARYING NOT NULL, "NONCE" BINARY VARYING NOT NULL, "SENDER" BINARY VARYING NOT NULL, "TIMESTAMP" BIGINT, "HASH" BINARY VARYING NOT NULL);
INSERT INTO "PUBLIC"."ENCRYPTED_RAW_TRANSACTION" VALUES
(X'01', X'02', X'03', X'04', 5, X'06'),
(X'11', X'12', X'13', X'14', 15, X'16');
CREATE TABLE "PUBLIC"."OTHER"("A" CHARACTER VARYING);
INSERT INTO "PUBLIC"."OTHER" VALUES ('it''s; not a statement end'), ('/* nor a comment */');
CREATE CACHED TABLE "PUBLIC"."PRIVACY_GROUP"("ID" BINARY VARYING NOT NULL, "LOOKUP_ID" BINARY VARYING NOT NULL, "DATA" BINARY VARYING NOT NULL, "TIMESTAMP" BIGINT);
INSERT INTO "PUBLIC"."PRIVACY_GROUP" VALUES (X'aa', X'bb', X'cc', 1);       
DROP TABLE IF EXISTS SYSTEM_LOB_STREAM;
CALL SYSTEM_COMBINE_BLOB(-1);
/* done */`
	rows, raw, groups, err := readScript(t, script)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Hash: []byte("h1"), Encoded: []byte("one"), Codec: "CBOR", Timestamp: 1},
		{Hash: []byte("h2"), Encoded: []byte("two"), Timestamp: -2},
		{Hash: []byte("h3"), Encoded: []byte("big-payload"), Codec: "LEGACY"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for i, w := range want {
		r := rows[i]
		if !bytes.Equal(r.Hash, w.Hash) || !bytes.Equal(r.Encoded, w.Encoded) || r.Codec != w.Codec || r.Timestamp != w.Timestamp {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
	if raw != 2 || groups != 1 {
		t.Errorf("raw %d groups %d", raw, groups)
	}
}

func TestH2ScriptErrors(t *testing.T) {
	for name, script := range map[string]string{
		"no create":    `INSERT INTO "PUBLIC"."ENCRYPTED_TRANSACTION" VALUES (X'01', NULL, 1, X'02');`,
		"bad hex":      `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES (X'0g', X'01');`,
		"too many":     `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES (X'00', X'01', X'02');`,
		"text hash":    `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES ('00', X'01');`,
		"missing lob":  `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES (X'00', SYSTEM_COMBINE_BLOB(4));`,
		"unterminated": `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES (X'00', 'abc`,
		"function":     `INSERT INTO ENCRYPTED_TRANSACTION(HASH, ENCODED_PAYLOAD) VALUES (X'00', RANDOM_UUID());`,
	} {
		if _, _, _, err := readScript(t, script); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "H2 script") {
			t.Errorf("%s: %v does not name the source", name, err)
		}
	}
}
