package node

import (
	"testing"

	"github.com/basaltchain/basalt/config"
)

// TestDataPathInUse: a second node on a data path in use says why it
// cannot start, instead of Pebble's "resource temporarily unavailable".
func TestDataPathInUse(t *testing.T) {
	dir := t.TempDir()
	db, c, err := OpenChain(dir, config.DevGenesis(), config.PrivacyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer c.Close()
	_, _, err = OpenChain(dir, config.DevGenesis(), config.PrivacyConfig{})
	if err == nil {
		t.Fatal("opened twice")
	}
	want := "data path " + dir + " is in use: another basalt holds its lock " + dir + "/database/LOCK; stop that one, or give this node its own --data-path"
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
