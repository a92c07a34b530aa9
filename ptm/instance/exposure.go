package instance

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/basaltchain/basalt/ptm/config"
)

// loopback reports whether a listener on iface is reachable from this host
// only. A host name other than localhost may resolve to anything and counts
// as beyond loopback.
func loopback(iface string) bool {
	if strings.EqualFold(iface, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(iface)
	return err == nil && ip.IsLoopback()
}

// exposureWarnings returns what is unsafe in how the two APIs are exposed:
// basalt-privacy keeps Orion's defaults (plain HTTP, no authentication), which
// are only safe on loopback.
func exposureWarnings(cfg *config.Config, clientTokens bool) []string {
	var out []string
	if !loopback(cfg.NodeNetworkInterface) {
		switch {
		case cfg.TLS == "off":
			out = append(out, fmt.Sprintf("the node API listens on %s with tls = \"off\": its traffic is readable on the network and any host that reaches it is served; "+
				"set tls = \"strict\" with tlsservertrust and tlsclienttrust = \"whitelist\" or \"ca\", and ipwhitelist (see docs/how-to/privacy-manager.md, Running it in production)", cfg.NodeNetworkInterface))
		case strings.HasPrefix(cfg.TLSServerTrust, "insecure-") || strings.HasPrefix(cfg.TLSClientTrust, "insecure-"):
			out = append(out, fmt.Sprintf("the node API listens on %s with an insecure TLS trust mode (tlsservertrust = %q, tlsclienttrust = %q): any certificate is accepted", cfg.NodeNetworkInterface, cfg.TLSServerTrust, cfg.TLSClientTrust))
		}
	}
	if !loopback(cfg.ClientNetworkInterface) && cfg.ClientConnectionTLS == "off" && !clientTokens {
		out = append(out, fmt.Sprintf("the client API listens on %s without authentication: whoever reaches it can read any payload whose key it knows; "+
			"keep it on loopback, or set clientapitokens or clientconnectiontls = \"strict\"", cfg.ClientNetworkInterface))
	}
	if cfg.Q2TEnabled && !loopback(cfg.Q2TNetworkInterface) {
		out = append(out, fmt.Sprintf("the Q2T API listens on %s without authentication (GoQuorum sends none): whoever reaches it can send as this instance's keys and read any payload whose key it knows; "+
			"keep it on loopback or on the network between GoQuorum and basalt-privacy only", cfg.Q2TNetworkInterface))
	}
	return out
}

// peerAddresses resolves the hosts of the fixed peers (othernodes), whose
// addresses are the only ones the node API serves when discovery is off
// (besides ipwhitelist). A host that does not resolve is logged: its
// instance will be refused until basalt-privacy restarts.
func peerAddresses(ctx context.Context, peers []string, log *slog.Logger) []netip.Addr {
	var out []netip.Addr
	for _, p := range peers {
		u, err := url.Parse(p)
		if err != nil {
			continue // validated by config
		}
		host := u.Hostname()
		if ip, err := netip.ParseAddr(host); err == nil {
			out = append(out, ip.Unmap())
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ips, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
		if err != nil || len(ips) == 0 {
			log.Warn("peerdiscovery = false: cannot resolve a peer of othernodes; the node API will refuse it", "peer", p, "err", err)
			continue
		}
		for _, ip := range ips {
			out = append(out, ip.Unmap())
		}
	}
	return out
}
