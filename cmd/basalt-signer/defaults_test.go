package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
)

// Each default is written once: defaults() (the table's Option.Default, which
// help prints) agrees with what the constructors do with a zero field, and a
// run given only the required options gets exactly defaults().
func TestDefaultsOnePlace(t *testing.T) {
	d := defaults()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"--downstream-http-request-timeout vs downstream.New", d.DownstreamTimeout, downstream.DefaultTimeout},
		{"hashicorp-signer --timeout vs keys.LoadVaultKey", d.Vault.Timeout, keys.DefaultVaultTimeout},
		{"hashicorp-signer --host", d.Vault.Host, keys.DefaultVaultHost},
		{"hashicorp-signer --port", d.Vault.Port, keys.DefaultVaultPort},
		{"hashicorp-signer --signing-key-path", d.Vault.SigningKeyPath, keys.DefaultVaultKeyPath},
		{"--http-host-allowlist vs httpmw", strings.Join(d.HostAllowlist, ","), strings.Join(httpmw.DefaultHosts, ",")},
		{"--metrics-host-allowlist vs httpmw", strings.Join(d.MetricsHostAllowlist, ","), strings.Join(httpmw.DefaultHosts, ",")},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: defaults() %v, constructor %v", c.name, c.got, c.want)
		}
	}

	code, errOut, c := runCLI(t, nil, "--chain-id=1", "--downstream-http-port=8546", "hashicorp-signer", "--auth-file=tok")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := defaults()
	want.ChainID, want.DownstreamPort, want.Store, want.Vault.AuthFile = c.ChainID, 8546, cmdHashicorp, "tok"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("loaded with no optional option:\n%+v\ndefaults():\n%+v", c, want)
	}
}
