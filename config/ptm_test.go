package config

import (
	"strings"
	"testing"
)

// TestPTMURL: --ptm-url, and GoQuorum's PRIVATE_CONFIG on a GoQuorum
// network without it.
func TestPTMURL(t *testing.T) {
	quorum := writeFile(t, "q.json", `{"config":{"chainId":1337,"isQuorum":true},"gasLimit":"0x1000000","difficulty":"0x1","alloc":{}}`)
	plain := writeFile(t, "p.json", `{"config":{"chainId":1337},"gasLimit":"0x1000000","difficulty":"0x1","alloc":{}}`)
	tm := writeFile(t, "tm.toml", "HttpUrl = \"http://127.0.0.1:9101/\"\nTimeout = 5\n")
	sock := writeFile(t, "sock.toml", "Socket = \"/tmp/tm.ipc\"\n")

	if c := mustLoad(t, nil, "--genesis-file="+quorum, "--ptm-url=http://127.0.0.1:9102/"); c.Privacy.PTMURL != "http://127.0.0.1:9102" {
		t.Errorf("--ptm-url: %q", c.Privacy.PTMURL)
	}
	if c := mustLoad(t, map[string]string{"PRIVATE_CONFIG": tm}, "--genesis-file="+quorum); c.Privacy.PTMURL != "http://127.0.0.1:9101" {
		t.Errorf("PRIVATE_CONFIG: %q", c.Privacy.PTMURL)
	}
	if c := mustLoad(t, map[string]string{"PRIVATE_CONFIG": tm}, "--genesis-file="+quorum, "--ptm-url=http://127.0.0.1:9102"); c.Privacy.PTMURL != "http://127.0.0.1:9102" {
		t.Errorf("--ptm-url over PRIVATE_CONFIG: %q", c.Privacy.PTMURL)
	}
	for _, env := range []map[string]string{{"PRIVATE_CONFIG": "ignore"}, {"PRIVATE_CONFIG": ""}} {
		if c := mustLoad(t, env, "--genesis-file="+quorum); c.Privacy.PTMURL != "" {
			t.Errorf("PRIVATE_CONFIG=%q: %q", env["PRIVATE_CONFIG"], c.Privacy.PTMURL)
		}
	}
	if c := mustLoad(t, map[string]string{"PRIVATE_CONFIG": tm}, "--genesis-file="+plain); c.Privacy.PTMURL != "" {
		t.Errorf("PRIVATE_CONFIG on a network that is not GoQuorum's: %q", c.Privacy.PTMURL)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"--ptm-url=https://127.0.0.1:9101"}, "expected an http URL"},
		{nil, []string{"--ptm-url=127.0.0.1:9101"}, "expected an http URL"},
		{map[string]string{"PRIVATE_CONFIG": "/tmp/tm.ipc"}, nil, "not a TOML file"},
		{map[string]string{"PRIVATE_CONFIG": sock}, nil, "no HttpUrl"},
		{nil, []string{"--ptm-url=http://127.0.0.1:9101", "--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0"}, "cannot be combined"},
	} {
		_, err := loadArgs(t, tc.env, append([]string{"--genesis-file=" + quorum}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.env, tc.args, err, tc.want)
		}
	}
}
