package h2script

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestReadNested: a LOB in parts, column definitions and CAST types with
// nested parentheses and commas, constraints, skipped statements and a last
// statement without ";" are read as H2 writes them; a parenthesis or CAST
// left open, or a column or value list without its commas, is an error
// naming it, not a row.
func TestReadNested(t *testing.T) {
	script := `CREATE SEQUENCE "PUBLIC"."S" START WITH 1;
CREATE INDEX "I" ON "T"("A");
CREATE MEMORY TABLE IF NOT EXISTS "PUBLIC"."T"("A" NUMERIC(10, 2) DEFAULT (1 + (2)), CONSTRAINT "K" PRIMARY KEY("A", "B"), "B" CHARACTER VARYING(5) CHECK ("B" IN ('x', 'y')));
CREATE TABLE "PUBLIC"."U"("Z" INT);
SET DB_CLOSE_DELAY -1;
INSERT INTO "PUBLIC"."SYSTEM_LOB_STREAM" VALUES (0, 0, NULL, '01 02'), (0, 1, NULL, '03');
INSERT INTO "T" VALUES (5, SYSTEM_COMBINE_BLOB(0));
INSERT INTO "T"("B", "A") VALUES ('z', 7);
INSERT INTO "PUBLIC"."T" VALUES (CAST(12.5 AS NUMERIC(10, 2)), 'x'), (1, CAST('y' AS CHARACTER VARYING(5)))`
	var rows []map[string]Value
	err := Read(context.Background(), strings.NewReader(script), []string{"T"}, func(table string, row map[string]Value) error {
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || len(rows[0]) != 2 {
		t.Fatalf("rows %v", rows)
	}
	if b := rows[0]["B"]; b.Kind != Bytes || !bytes.Equal(b.Bytes, []byte{1, 2, 3}) {
		t.Errorf("LOB %+v", b)
	}
	rows = rows[1:]
	for i, want := range [][2]string{{"7", "z"}, {"12.5", "x"}, {"1", "y"}} {
		if a, b := rows[i]["A"], rows[i]["B"]; a.Kind != Number || a.Text != want[0] || b.Kind != Text || b.Text != want[1] {
			t.Errorf("row %d %+v, want %v", i, rows[i], want)
		}
	}

	for script, want := range map[string]string{
		`CREATE TABLE T("A" NUMERIC(10, 2`:                             "CREATE TABLE T: unexpected end of script",
		`CREATE TABLE T("A" INT); INSERT INTO T VALUES (CAST(1 AS INT`: "unterminated CAST",
		`CREATE TABLE T("A" INT); INSERT INTO T VALUES (1 2)`:          `INSERT INTO T: expected "," or ")", got "2"`,
		`INSERT INTO T("A" "B") VALUES (1, 2)`:                         `INSERT INTO T: expected "," or ")", got "B"`,
	} {
		err := Read(context.Background(), strings.NewReader(script), []string{"T"}, func(string, map[string]Value) error { return nil })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", script, err, want)
		}
	}
}
