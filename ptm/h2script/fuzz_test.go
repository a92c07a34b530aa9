package h2script

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	script := `CREATE TABLE "PUBLIC"."T"("A" BINARY VARYING, "B" CHARACTER VARYING(5), "C" BIGINT);
INSERT INTO "PUBLIC"."T" VALUES (X'0102', 'x''y', -3), (NULL, NULL, 4);
INSERT INTO "PUBLIC"."U" VALUES (1);`
	var rows []map[string]Value
	err := Read(context.Background(), strings.NewReader(script), []string{"T"}, func(table string, row map[string]Value) error {
		if table != "T" {
			t.Errorf("table %s", table)
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	if a := rows[0]["A"]; a.Kind != Bytes || !bytes.Equal(a.Bytes, []byte{1, 2}) {
		t.Errorf("A %+v", a)
	}
	if b := rows[0]["B"]; b.Kind != Text || b.Text != "x'y" {
		t.Errorf("B %+v", b)
	}
	if c := rows[0]["C"]; c.Kind != Number || c.Text != "-3" {
		t.Errorf("C %+v", c)
	}
	if a := rows[1]["A"]; a.Kind != Null {
		t.Errorf("null %+v", a)
	}
}

// FuzzRead: the reader fails cleanly on any script.
func FuzzRead(f *testing.F) {
	f.Add(`CREATE CACHED TABLE "PUBLIC"."T"("A" BINARY VARYING NOT NULL, "B" CHARACTER VARYING(50), "C" BIGINT); -- 1 +/- SELECT COUNT(*) FROM "PUBLIC"."T";
INSERT INTO "PUBLIC"."T" VALUES
(X'0102', 'CBOR', 3);`)
	f.Add(`CREATE TABLE T(A VARBINARY, B BLOB); INSERT INTO SYSTEM_LOB_STREAM VALUES(0, 0, NULL, 'ab'); INSERT INTO T(A, B) VALUES (X'00', SYSTEM_COMBINE_BLOB(0)), (CAST(X'01' AS BINARY LARGE OBJECT(1)), NULL); /* c */`)
	f.Fuzz(func(t *testing.T, script string) {
		Read(context.Background(), strings.NewReader(script), []string{"T"}, func(string, map[string]Value) error { return nil })
	})
}
