package main

import (
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// ownOptions are the options EthSigner does not have.
var ownOptions = map[string]string{
	"http-host-allowlist":    "a Host header allowlist, as the node has",
	"metrics-host-allowlist": "a Host header allowlist for the metrics service",
	"tessera-url":            "GoQuorum private transactions; EthSigner used Besu's goquorum_storeRaw, which GoQuorum lacks",
}

// TestReferenceOptions writes docs/reference/options-basalt-signer.md:
// every option of basalt-signer and its key stores from its table.
func TestReferenceOptions(t *testing.T) {
	names := map[string]bool{}
	var rows []docgen.OptionRow
	for _, o := range options.Options() {
		names[o.Name] = true
		origin := "EthSigner's"
		if why, ok := ownOptions[o.Name]; ok {
			origin = "Basalt's own (" + why + ")"
		}
		rows = append(rows, docgen.OptionRow{Option: o, Flags: true, Origin: origin})
	}
	for k := range ownOptions {
		if !names[k] {
			t.Errorf("ownOptions names %q, which is not an option of the table", k)
		}
	}
	page := docgen.Header("Options of basalt-signer", "cmd/basalt-signer/options.go (the option table)") +
		"`basalt-signer` takes EthSigner's options: global options before the key store subcommand\n" +
		"(`file-based-signer`, `multikey-signer`, `hashicorp-signer`, `raw-signer`), the key store's\n" +
		"after it. Each is also an environment variable (`ETHSIGNER_`, with the subcommand for a key\n" +
		"store's option) and a key of the TOML file given by `--config-file` (a key store's options in\n" +
		"a table named after it). The command line wins over the environment, which wins over the file.\n" +
		"How they are used: [the signer](../how-to/signer.md).\n\n" +
		docgen.OptionsTable(rows, []string{EnvPrefix})
	docgen.Check(t, "docs/reference/options-basalt-signer.md", page)
}
