package chain

import (
	"encoding/binary"
	"strings"
	"testing"
)

// A database records the schema version it was written with; one written
// before the key existed gets it on open; one a later release wrote (a
// higher version) is refused, not misread.
func TestSchemaVersion(t *testing.T) {
	db := NewMemoryDatabase()
	if _, err := Open(db, testGenesis(), testEngine{}); err != nil {
		t.Fatal(err)
	}
	data, err := db.Get(keySchema)
	if v, _ := binary.Uvarint(data); err != nil || v != schemaVersion {
		t.Fatalf("schema key %x (%v), want version %d", data, err, schemaVersion)
	}

	// A database from before the key: same layout, reopens and gains it.
	if err := db.Delete(keySchema); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, testGenesis(), testEngine{}); err != nil {
		t.Fatalf("reopen without the key: %v", err)
	}
	if has, _ := db.Has(keySchema); !has {
		t.Fatal("the schema key was not recorded on reopen")
	}

	if err := db.Put(keySchema, binary.AppendUvarint(nil, schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, testGenesis(), testEngine{}); err == nil || !strings.Contains(err.Error(), "newer than this Basalt's") {
		t.Fatalf("a later schema: err %v", err)
	}
	if err := db.Put(keySchema, []byte{0x80}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(db, testGenesis(), testEngine{}); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("an unreadable schema key: err %v", err)
	}
}
