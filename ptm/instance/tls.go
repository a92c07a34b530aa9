package instance

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/basaltchain/basalt/internal/tlstrust"
	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/nodeapi"
)

// tlsSet is the TLS of the three connections: the node API server, the client
// API server, and calls to peers. Nil members mean plain HTTP.
type tlsSet struct {
	nodeServer   *tls.Config
	clientServer *tls.Config
	peerDial     nodeapi.DialTLSFunc
}

func (t *tlsSet) nodeScheme() string {
	if t.nodeServer != nil {
		return "https"
	}
	return "http"
}

func (t *tlsSet) clientScheme() string {
	if t.clientServer != nil {
		return "https"
	}
	return "http"
}

// newTLS builds the TLS configurations of tls = "strict" and
// clientconnectiontls = "strict", creating self-signed certificates where
// the files are missing (as Orion does).
func newTLS(cfg *config.Config, log *slog.Logger) (*tlsSet, error) {
	set := &tlsSet{}
	host := "localhost"
	if cfg.NodeURL != "" {
		if u, err := url.Parse(cfg.NodeURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
	}
	ensure := func(label, cert, key string) error {
		created, err := tlstrust.EnsureCertificate(cert, key, host)
		if err != nil {
			return fmt.Errorf("%s TLS certificate: %w", label, err)
		}
		if created {
			log.Info("created a self-signed "+label+" TLS certificate", "cert", cert, "key", key, "cn", host)
		}
		return nil
	}
	if cfg.TLS == "strict" {
		if err := ensure("server", cfg.TLSServerCert, cfg.TLSServerKey); err != nil {
			return nil, err
		}
		if err := ensure("client", cfg.TLSClientCert, cfg.TLSClientKey); err != nil {
			return nil, err
		}
		var err error
		if set.nodeServer, err = tlstrust.ServerConfig(cfg.TLSServerCert, cfg.TLSServerKey, cfg.TLSServerChain, cfg.TLSServerTrust, cfg.TLSKnownClients); err != nil {
			return nil, fmt.Errorf("tls (node API server): %w", err)
		}
		d, err := tlstrust.NewDialer(cfg.TLSClientCert, cfg.TLSClientKey, cfg.TLSClientChain, cfg.TLSClientTrust, cfg.TLSKnownServers)
		if err != nil {
			return nil, fmt.Errorf("tls (client to peers): %w", err)
		}
		set.peerDial = d.DialTLSContext
	}
	if cfg.ClientConnectionTLS == "strict" {
		if err := ensure("client API", cfg.ClientConnectionTLSServerCert, cfg.ClientConnectionTLSServerKey); err != nil {
			return nil, err
		}
		var err error
		set.clientServer, err = tlstrust.ServerConfig(cfg.ClientConnectionTLSServerCert, cfg.ClientConnectionTLSServerKey,
			cfg.ClientConnectionTLSServerChain, cfg.ClientConnectionTLSServerTrust, cfg.ClientConnectionTLSKnownClients)
		if err != nil {
			return nil, fmt.Errorf("clientconnectiontls: %w", err)
		}
	}
	return set, nil
}
