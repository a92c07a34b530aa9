package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/storage"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "orion.conf")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if c.NodePort != 8080 || c.ClientPort != 8888 || c.NodeNetworkInterface != "127.0.0.1" || c.WorkDir != wd ||
		c.StorageSpec != (storage.Spec{Kind: storage.Pebble, Path: filepath.Join(wd, "routerdb"), Alias: "leveldb"}) ||
		c.KnownNodesSpec.Kind != storage.Memory || c.TLS != "off" || c.TLSClientTrust != "ca-or-tofu" || c.Verbosity != 1 ||
		c.MaxPayloadSize != DefaultMaxPayloadSize || c.TLSServerCert != filepath.Join(wd, "tls-server-cert.pem") {
		t.Errorf("defaults: %+v", c)
	}
}

func TestOrionSampleConfig(t *testing.T) {
	// docker/ha/orion.conf from ConsenSys/orion.
	p := write(t, `nodeurl = "http://load_balancer:8080/"
nodeport = 8080
nodenetworkinterface = "0.0.0.0"
clienturl = "http://load_balancer:8888/"
clientport = 8888
clientnetworkinterface = "0.0.0.0"
publickeys = ["/var/keys/nodeKey.pub"]
privatekeys = ["/var/keys/nodeKey.key"]
passwords = "/var/keys/passwordFile"
workdir = "/data"
tls = "off"
storage = "sql:jdbc:postgresql://postgres:5432/payloaddb"
knownnodesstorage = "sql:jdbc:postgresql://postgres:5432/knownnodes"
`)
	c, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeURL != "http://load_balancer:8080/" || c.WorkDir != "/data" || c.Passwords != "/var/keys/passwordFile" ||
		c.StorageSpec.Kind != storage.Postgres || c.StorageSpec.URL != "postgresql://postgres:5432/payloaddb" ||
		c.KnownNodesSpec.URL != "postgresql://postgres:5432/knownnodes" || c.NodeNetworkInterface != "0.0.0.0" {
		t.Errorf("%+v", c)
	}
}

func TestPathsAndEnv(t *testing.T) {
	p := write(t, `workdir = "/w"
publickeys = ["a.pub", "/abs/b.pub"]
privatekeys = ["a.key", "b.key"]
othernodes = ["http://x:8080/"]
storage = "leveldb:payloads"
`)
	c, err := Load(p, env(map[string]string{
		"ORION_NODEPORT":          "9000",
		"BASALT_PRIVACY_NODEPORT": "9001", // Basalt's name wins
		"ORION_OTHERNODES":        "http://y:1/, http://z:2/",
		"ORION_TLSCLIENTTRUST":    "WhiteList",
		"BASALT_PRIVACY_STORAGE":  "memory",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.PublicKeys, []string{"/w/a.pub", "/abs/b.pub"}) || !slices.Equal(c.PrivateKeys, []string{"/w/a.key", "/w/b.key"}) {
		t.Errorf("paths: %v %v", c.PublicKeys, c.PrivateKeys)
	}
	if c.NodePort != 9001 || !slices.Equal(c.OtherNodes, []string{"http://y:1/", "http://z:2/"}) ||
		c.TLSClientTrust != "whitelist" || c.StorageSpec.Kind != storage.Memory {
		t.Errorf("env: %+v", c)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"bad toml", "nodeport = = 1", nil, "config file"},
		{"unknown key", "nodeprot = 1", nil, `unknown key "nodeprot"`},
		{"wrong type", `nodeport = "x"`, nil, "nodeport: want an integer"},
		{"wrong list", `othernodes = "http://x/"`, nil, "othernodes: want a list"},
		{"port range", "nodeport = 70000", nil, "nodeport: must be between 0 and 65535"},
		{"same ports", "nodeport = 9000\nclientport = 9000", nil, "clientport: must be different from nodeport"},
		{"same ports zero ok", "nodeport = 0\nclientport = 0", nil, ""},
		{"key count", `publickeys = ["a.pub"]`, nil, "privatekeys: has 0 entries but publickeys has 1"},
		{"bad nodeurl", `nodeurl = "localhost:8080"`, nil, "nodeurl:"},
		{"bad othernode", `othernodes = ["ftp://x/"]`, nil, "othernodes: entry 0"},
		{"bad storage", `storage = "redis"`, nil, "storage:"},
		{"oracle", `storage = "sql:jdbc:oracle:thin:@h:1521:x"`, nil, "only PostgreSQL"},
		{"same db", "storage = \"leveldb:x\"\nknownnodesstorage = \"pebble:x\"", nil, "knownnodesstorage: must not be the same"},
		{"bad tls", `tls = "on"`, nil, "tls: must be off or strict"},
		{"bad trust", `tlsclienttrust = "insecure-tofa"`, nil, "tlsclienttrust: must be one of"},
		{"bad ip", `ipwhitelist = ["localhost"]`, nil, "ipwhitelist: entry 0"},
		{"verbosity", "verbosity = 9", nil, "verbosity: must be between 0 and 4"},
		{"max payload", "maxpayloadsize = 0", nil, "maxpayloadsize: must be positive"},
		{"env not int", "", map[string]string{"ORION_CLIENTPORT": "x"}, "ORION_CLIENTPORT (key clientport)"},
	}
	for _, tc := range tests {
		_, err := Load(write(t, tc.file), env(tc.env))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.conf"), nil); err == nil || !strings.Contains(err.Error(), "missing.conf") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadPasswords(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "passwords")
	os.WriteFile(pw, []byte("secret\n\nother"), 0o600)
	c := &Config{PrivateKeys: []string{"a", "b", "c", "d"}, Passwords: pw}
	got, err := c.ReadPasswords()
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || *got[0] != "secret" || got[1] != nil || got[2] == nil || *got[2] != "other" || got[3] != nil {
		t.Errorf("passwords: %v", got)
	}
	c.Passwords = filepath.Join(dir, "missing")
	if _, err := c.ReadPasswords(); err == nil || !strings.Contains(err.Error(), "passwords:") {
		t.Errorf("missing passwords file: %v", err)
	}
	if len(Keys()) != len(fields) || Keys()[0] != "workdir" {
		t.Error("Keys")
	}
}

// TestDiscoveryAndAccessKeys covers Basalt's keys for discovery limits,
// discovery off and client API tokens.
func TestDiscoveryAndAccessKeys(t *testing.T) {
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.PeerDiscovery || c.MaxPeers != 128 || c.MaxKeysPerPeer != 256 || c.PeerEvictAfter != 600 || c.ClientAPITokens != "" {
		t.Errorf("defaults: %+v", c)
	}
	p := write(t, "workdir = \"/w\"\npeerdiscovery = false\nmaxpeers = 4\nmaxkeysperpeer = 2\npeerevictafter = 0\nclientapitokens = \"tokens\"\n")
	if c, err = Load(p, nil); err != nil {
		t.Fatal(err)
	}
	if c.PeerDiscovery || c.MaxPeers != 4 || c.MaxKeysPerPeer != 2 || c.PeerEvictAfter != 0 || c.ClientAPITokens != "/w/tokens" {
		t.Errorf("file: %+v", c)
	}
	if c, err = Load(p, env(map[string]string{"BASALT_PRIVACY_PEERDISCOVERY": "true", "ORION_MAXPEERS": "9"})); err != nil || !c.PeerDiscovery || c.MaxPeers != 9 {
		t.Errorf("env: %+v %v", c, err)
	}
	for content, want := range map[string]string{
		"peerdiscovery = \"no\"\n": "peerdiscovery",
		"maxpeers = 0\n":           "maxpeers: must be positive",
		"maxkeysperpeer = -1\n":    "maxkeysperpeer: must be positive",
		"peerevictafter = -5\n":    "peerevictafter",
	} {
		if _, err := Load(write(t, content), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", content, err)
		}
	}
	if _, err := Load("", env(map[string]string{"ORION_PEERDISCOVERY": "maybe"})); err == nil || !strings.Contains(err.Error(), "ORION_PEERDISCOVERY") {
		t.Errorf("bad env bool: %v", err)
	}
}
