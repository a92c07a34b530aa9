package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/ptm/discovery"
)

// TestDefaultsOnePlace fails when a key's default and the default a
// constructor fills into a zero field differ (discovery's limits, the Host
// allowlist), and when Load, given no file and no environment, does not
// produce Default() (the key table's defaults) but for the resolved paths.
func TestDefaultsOnePlace(t *testing.T) {
	d := Default()
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"maxpeers vs discovery.Limits", d.MaxPeers, discovery.DefaultMaxPeers},
		{"maxkeysperpeer vs discovery.Limits", d.MaxKeysPerPeer, discovery.DefaultMaxKeysPerPeer},
		{"peerevictafter vs discovery.New", time.Duration(d.PeerEvictAfter) * time.Second, discovery.DefaultEvictAfter},
		{"metricshostallowlist vs httpmw", d.MetricsHostAllowlist, httpmw.DefaultHosts},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: Default() %v, constructor %v", c.key, c.got, c.want)
		}
	}

	loaded, err := Load("", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	if err := want.resolve(); err != nil {
		t.Fatal(err)
	}
	if err := want.validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, want) {
		t.Errorf("Load with nothing given:\n%+v\nDefault():\n%+v", loaded, want)
	}
}
