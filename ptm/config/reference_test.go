package config

import (
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// ownKeys are the configuration keys Orion did not have.
var ownKeys = map[string]string{
	"maxpeers":                "discovery is bounded",
	"maxkeysperpeer":          "discovery is bounded",
	"peerevictafter":          "unreachable instances are dropped",
	"clientapitokens":         "the client API can require bearer tokens",
	"metricsenabled":          "Orion exported no metrics",
	"metricsport":             "Orion exported no metrics",
	"metricsnetworkinterface": "Orion exported no metrics",
	"metricscategories":       "Orion exported no metrics",
	"metricshostallowlist":    "Orion exported no metrics",
	"q2tenabled":              "Tessera's Q2T API for GoQuorum nodes, which Orion lacked",
	"q2tport":                 "Tessera's Q2T API for GoQuorum nodes, which Orion lacked",
	"q2tnetworkinterface":     "Tessera's Q2T API for GoQuorum nodes, which Orion lacked",
}

// TestReferenceOptions writes docs/reference/options-basalt-privacy.md:
// every configuration key of basalt-privacy from its table.
func TestReferenceOptions(t *testing.T) {
	keys := map[string]bool{}
	var rows []docgen.OptionRow
	for _, o := range fields.Options() {
		keys[o.Name] = true
		origin := "Orion's"
		if why, ok := ownKeys[o.Name]; ok {
			origin = "Basalt's own (" + why + ")"
		}
		rows = append(rows, docgen.OptionRow{Option: o, Origin: origin})
	}
	for k := range ownKeys {
		if !keys[k] {
			t.Errorf("ownKeys names %q, which is not a key of the table", k)
		}
	}
	page := docgen.Header("Options of basalt-privacy", "ptm/config (the key table)") +
		"`basalt-privacy` takes Orion's configuration: a TOML file named on the command line\n" +
		"(`basalt-privacy orion.conf`) whose keys are below, each of which an environment variable\n" +
		"overrides (`BASALT_PRIVACY_` wins over Orion's `ORION_`; an empty variable counts, as in Orion).\n" +
		"File values must have the key's TOML type, as Orion's schema requires. Relative paths resolve\n" +
		"against `workdir`. How the keys are used: [the privacy manager](../how-to/privacy-manager.md).\n\n" +
		docgen.OptionsTable(rows, []string{EnvPrefix, OrionEnvPrefix})
	docgen.Check(t, "docs/reference/options-basalt-privacy.md", page)
}
