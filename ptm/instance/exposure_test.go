package instance

import (
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/config"
)

func TestExposureWarnings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(*config.Config)
		tokens bool
		want   []string
	}{
		{"defaults: loopback", func(*config.Config) {}, false, nil},
		{"localhost", func(c *config.Config) { c.NodeNetworkInterface, c.ClientNetworkInterface = "localhost", "::1" }, false, nil},
		{"node API public, tls off", func(c *config.Config) { c.NodeNetworkInterface = "0.0.0.0" }, false, []string{"node API listens on 0.0.0.0 with tls = \"off\""}},
		{"node API on a host name", func(c *config.Config) { c.NodeNetworkInterface = "node.example" }, false, []string{"node API listens on node.example"}},
		{"node API public, strict", func(c *config.Config) { c.NodeNetworkInterface, c.TLS = "10.0.0.1", "strict" }, false, nil},
		{"node API public, insecure trust", func(c *config.Config) {
			c.NodeNetworkInterface, c.TLS, c.TLSServerTrust = "10.0.0.1", "strict", "insecure-no-validation"
		}, false, []string{"insecure TLS trust mode"}},
		{"client API public", func(c *config.Config) { c.ClientNetworkInterface = "0.0.0.0" }, false, []string{"client API listens on 0.0.0.0 without authentication"}},
		{"client API public with tokens", func(c *config.Config) { c.ClientNetworkInterface = "0.0.0.0" }, true, nil},
		{"client API public with mutual TLS", func(c *config.Config) { c.ClientNetworkInterface, c.ClientConnectionTLS = "0.0.0.0", "strict" }, false, nil},
	} {
		c := config.Default()
		tc.set(c)
		got := exposureWarnings(c, tc.tokens)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q", tc.name, got)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: %q lacks %q", tc.name, got[i], w)
			}
		}
	}
}
