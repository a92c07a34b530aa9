package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs the command line with a fake signer and returns the exit
// code, stderr and the config the signer would have got.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, *config) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var got *config
	a := &app{
		stdout: &stdout, stderr: &stderr,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		run:       func(_ context.Context, c *config) error { got = c; return nil },
	}
	code := a.execute(context.Background(), args)
	return code, stderr.String(), got
}

var base = []string{"--chain-id=1337", "--downstream-http-port=8545", "--http-listen-port=9545"}

func TestOptionsDefaults(t *testing.T) {
	code, errOut, c := runCLI(t, nil, append(base, "raw-signer", "--key=0x01")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if c.ChainID.Int64() != 1337 || c.DownstreamHost != "127.0.0.1" || c.DownstreamPort != 8545 ||
		c.DownstreamPath != "/" || c.DownstreamTimeout != 5*time.Second || c.ListenHost != "127.0.0.1" ||
		c.ListenPort != 9545 || c.CORSOrigins != nil || strings.Join(c.HostAllowlist, ",") != "localhost,127.0.0.1" ||
		c.Store != cmdRaw || c.RawKey != "0x01" {
		t.Errorf("config %+v", c)
	}
	_, errOut, c = runCLI(t, nil, "--chain-id=1", "--downstream-http-port=8546", "hashicorp-signer", "--auth-file=tok")
	if c == nil {
		t.Fatal(errOut)
	}
	v := c.Vault
	if c.ListenPort != 8545 || v.Host != "localhost" || v.Port != 8200 || v.Timeout != 10*time.Second ||
		v.SigningKeyPath != "/v1/secret/data/ethsignerSigningKey" || !v.TLSEnabled || v.AuthFile != "tok" {
		t.Errorf("hashicorp defaults %+v", c)
	}
}

func TestOptionsSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "signer.toml")
	os.WriteFile(file, []byte(`
chain-id = 2018
downstream-http-port = 7000
downstream-http-request-timeout = 250
http-cors-origins = ["http://a.example", "http://b.example"]

[file-based-signer]
key-file = "/k.json"
password-file = "/p"
`), 0o600)
	code, errOut, c := runCLI(t, map[string]string{"ETHSIGNER_DOWNSTREAM_HTTP_PORT": "7001", "ETHSIGNER_FILE_BASED_SIGNER_PASSWORD_FILE": "/env-p"},
		"--config-file", file, "--http-listen-port=0", "file-based-signer", "-k", "/flag.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if c.ChainID.Int64() != 2018 || c.DownstreamPort != 7001 || c.DownstreamTimeout != 250*time.Millisecond ||
		strings.Join(c.CORSOrigins, " ") != "http://a.example http://b.example" || c.KeyFile != "/flag.json" || c.PasswordFile != "/env-p" {
		t.Errorf("config %+v", c)
	}
	// The config file may also come from the environment.
	code, _, c = runCLI(t, map[string]string{"ETHSIGNER_CONFIG_FILE": file}, "--http-listen-port=0", "file-based-signer")
	if code != 0 || c.KeyFile != "/k.json" {
		t.Errorf("config file from env: %d %+v", code, c)
	}
	// Dotted keys are the same thing.
	os.WriteFile(file, []byte("chain-id = 5\ndownstream-http-port = 7000\nmultikey-signer.directory = \"/keys\"\n"), 0o600)
	if code, errOut, c = runCLI(t, nil, "--config-file="+file, "multikey-signer"); code != 0 || c.Directory != "/keys" {
		t.Errorf("dotted key: %d %s", code, errOut)
	}
}

func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("chain-id = 1\nno-such-option = 2\n[file-based-signer]\nkeyfile = \"x\"\n"), 0o600)
	for _, tc := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, []string{"raw-signer", "--key=1"}, 1, "--chain-id is required; --downstream-http-port is required"},
		{nil, []string{"--chain-id=1", "--downstream-http-port=1"}, 1, "no key store: run basalt-signer with one of file-based-signer, multikey-signer or hashicorp-signer"},
		{nil, append(base, "file-based-signer"), 1, "--key-file is required; --password-file is required"},
		{nil, []string{"--chain-id=0", "--downstream-http-port=1", "raw-signer", "--key=1"}, 1, `invalid value "0" for --chain-id`},
		{map[string]string{"ETHSIGNER_CHAIN_ID": "x"}, []string{"--downstream-http-port=1", "raw-signer", "--key=1"}, 1, `invalid value "x" for --chain-id (from environment variable ETHSIGNER_CHAIN_ID)`},
		{nil, []string{"--chain-id=1", "--downstream-http-port=70000", "raw-signer", "--key=1"}, 1, "--downstream-http-port: want a TCP port"},
		{nil, append(base, "--downstream-http-request-timeout=0", "raw-signer", "--key=1"), 1, "--downstream-http-request-timeout: want a positive number"},
		{nil, append(base, "--logging=LOUD", "raw-signer", "--key=1"), 1, "--logging: want one of"},
		{nil, append(base, "hashicorp-signer", "--auth-file=a", "--tls-enabled=maybe"), 1, "--tls-enabled: want true or false"},
		{nil, []string{"--chain-id=1", "--downstream-http-port=8545", "raw-signer", "--key=1"}, 1, "must differ from --downstream-http-host:--downstream-http-port"},
		{nil, []string{"--chain-id=1", "--downstream-http-port=8545", "--http-listen-host=0.0.0.0", "--downstream-http-host=localhost", "raw-signer", "--key=1"}, 1, "must differ"},
		{nil, []string{"--config-file=" + bad, "raw-signer"}, 1, "unknown or invalid keys: file-based-signer.keyfile, no-such-option"},
		{nil, []string{"--config-file=" + filepath.Join(dir, "none.toml"), "raw-signer"}, 1, "none.toml"},
		{nil, append(base, "--no-such-flag"), 2, "unknown flag: --no-such-flag"},
		{nil, append(base, "file-signer"), 2, `unknown command "file-signer"`},
		{nil, append(base, "raw-signer", "--key=1", "extra"), 2, `unknown command "extra"`},
	} {
		code, errOut, _ := runCLI(t, tc.env, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// picocli style: a separate value for --tls-enabled.
	code, errOut, c := runCLI(t, nil, append(base, "hashicorp-signer", "--auth-file", "a", "--tls-enabled", "false")...)
	if code != 0 || c.Vault.TLSEnabled {
		t.Errorf("--tls-enabled false: %d %s", code, errOut)
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out, lookupEnv: func(string) (string, bool) { return "", false }}
	if code := a.execute(context.Background(), []string{"--help"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"file-based-signer", "multikey-signer", "hashicorp-signer", "--chain-id", "--downstream-http-request-timeout", "ETHSIGNER_"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %s", want)
		}
	}
	if strings.Contains(out.String(), "raw-signer") {
		t.Error("raw-signer is listed")
	}
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-V"} {
		var stdout, stderr bytes.Buffer
		a := &app{stdout: &stdout, stderr: &stderr}
		if code := a.execute(context.Background(), []string{flag}); code != 0 || stdout.String() != clientID+"\n" ||
			!strings.HasPrefix(clientID, "basalt-signer/v") {
			t.Errorf("%s: exit %d, %q %q", flag, code, stdout.String(), stderr.String())
		}
	}
	// A misspelled option is named with the closest one.
	if code, errOut, _ := runCLI(t, nil, "--chain-idd=1337"); code != exitUsage || !strings.Contains(errOut, "did you mean --chain-id?") {
		t.Errorf("misspelled: %d %q", code, errOut)
	}
}

// TestOptionTesseraURL: --tessera-url (or ETHSIGNER_TESSERA_URL) takes an
// http(s) URL, and a bad one is named at start-up.
func TestOptionTesseraURL(t *testing.T) {
	code, errOut, c := runCLI(t, nil, append(base, "raw-signer", "--key=0x01")...)
	if code != 0 || c.TesseraURL != "" {
		t.Fatalf("default: exit %d %q: %s", code, c.TesseraURL, errOut)
	}
	code, errOut, c = runCLI(t, map[string]string{"ETHSIGNER_TESSERA_URL": "http://127.0.0.1:9101"}, append(base, "raw-signer", "--key=0x01")...)
	if code != 0 || c.TesseraURL != "http://127.0.0.1:9101" {
		t.Fatalf("from the environment: exit %d: %s", code, errOut)
	}
	for _, bad := range []string{"127.0.0.1:9101", "ftp://h/", "http://", "http://h/?x=1", "http://u:p@h/"} {
		code, errOut, _ = runCLI(t, nil, append(base, "--tessera-url="+bad, "raw-signer", "--key=0x01")...)
		if code == 0 || !strings.Contains(errOut, "tessera-url") {
			t.Errorf("--tessera-url=%s: exit %d: %s", bad, code, errOut)
		}
	}
}
