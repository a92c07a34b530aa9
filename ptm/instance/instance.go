// Package instance assembles a running basalt-privacy from a Config: keys,
// stores, node table, the two HTTP servers and discovery; and stops it.
package instance

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/ptm/clientapi"
	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/nodeapi"
	"github.com/basaltchain/basalt/ptm/q2tapi"
	"github.com/basaltchain/basalt/ptm/storage"
)

// PortsFile is the file, in workdir, where a running instance writes its
// actual ports (Orion's orion.ports, Java properties format); it is removed
// on a clean stop.
const PortsFile = "orion.ports"

// bodySlack is what a request body may hold beyond the payload limit: Base64
// and JSON around a /send payload (4/3 of it, counted separately), the
// encrypted keys of a pushed payload, or a party-info table.
const bodySlack = 1 << 20

// Options are the start-up settings that are not configuration keys.
type Options struct {
	Log *slog.Logger
	// Version is reported by GET /version.
	Version string
	// ClearKnownNodes empties the persisted node table first
	// (--clear-known-nodes).
	ClearKnownNodes bool
}

// Instance is a running basalt-privacy.
type Instance struct {
	cfg *config.Config
	log *slog.Logger

	Manager *manager.Manager
	Table   *discovery.Table

	store, knownStore  storage.KV
	nodeSrv, clientSrv *http.Server
	nodeURL, clientURL string
	q2tSrv             *http.Server // nil unless q2tenabled
	q2tURL             string
	metricsSrv         *metrics.Server   // nil unless metricsenabled
	metrics            *metrics.Registry // nil unless metricsenabled

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// Start starts an instance. On error everything already opened is closed.
func Start(ctx context.Context, cfg *config.Config, opts Options) (_ *Instance, err error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	in := &Instance{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			in.closeResources()
		}
	}()

	pairs, always, err := loadKeys(cfg)
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		log.Warn("no keys configured (publickeys/privatekeys): this instance can store pushed payloads for no one and send nothing")
	}
	if cfg.LibSodiumPath != "" {
		log.Info("libsodiumpath is ignored: basalt-privacy has its own NaCl implementation", "libsodiumpath", cfg.LibSodiumPath)
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("workdir %s: %w", cfg.WorkDir, err)
	}
	if in.store, err = openStore(ctx, "storage", cfg.StorageSpec, log); err != nil {
		return nil, err
	}
	if in.knownStore, err = openStore(ctx, "knownnodesstorage", cfg.KnownNodesSpec, log); err != nil {
		return nil, err
	}
	reg := newRegistry(cfg)
	in.metrics = reg
	if opts.ClearKnownNodes {
		if err := discovery.Clear(ctx, in.knownStore); err != nil {
			return nil, fmt.Errorf("--clear-known-nodes: %w", err)
		}
	}

	tlsSet, err := newTLS(cfg, log)
	if err != nil {
		return nil, err
	}

	nodeLn, err := listen(cfg.NodeNetworkInterface, cfg.NodePort, "nodeport")
	if err != nil {
		return nil, err
	}
	clientLn, err := listen(cfg.ClientNetworkInterface, cfg.ClientPort, "clientport")
	if err != nil {
		nodeLn.Close()
		return nil, err
	}
	nodePort := nodeLn.Addr().(*net.TCPAddr).Port
	clientPort := clientLn.Addr().(*net.TCPAddr).Port
	in.nodeURL = cfg.NodeURL
	if in.nodeURL == "" {
		in.nodeURL = tlsSet.nodeScheme() + "://" + net.JoinHostPort(cfg.NodeNetworkInterface, strconv.Itoa(nodePort))
		if ip, err := netip.ParseAddr(cfg.NodeNetworkInterface); err == nil && ip.IsUnspecified() {
			log.Warn("nodeurl is not set and nodenetworkinterface is unspecified: peers are told "+in.nodeURL+", which they cannot reach; set nodeurl", "nodeurl", in.nodeURL)
		}
	}
	in.clientURL = tlsSet.clientScheme() + "://" + net.JoinHostPort(cfg.ClientNetworkInterface, strconv.Itoa(clientPort))

	enc := enclave.New(pairs, always)
	tableOpts := discovery.Options{Limits: discovery.Limits{MaxPeers: cfg.MaxPeers, MaxKeysPerPeer: cfg.MaxKeysPerPeer}}
	if !cfg.PeerDiscovery {
		tableOpts.Fixed = append([]string{}, cfg.OtherNodes...)
	}
	if in.Table, err = discovery.NewTable(ctx, meterKV(reg, in.knownStore, "knownnodes"), in.nodeURL, enc.NodeKeys(), tableOpts); err != nil {
		nodeLn.Close()
		clientLn.Close()
		return nil, err
	}
	var tokens *clientapi.Tokens
	if cfg.ClientAPITokens != "" {
		if tokens, err = clientapi.LoadTokens(cfg.ClientAPITokens, enc.Hosts); err != nil {
			nodeLn.Close()
			clientLn.Close()
			return nil, err
		}
		if st, err := os.Stat(cfg.ClientAPITokens); err == nil && st.Mode().Perm()&0o077 != 0 {
			log.Warn("clientapitokens is readable by other users; make it readable by basalt-privacy's user only (chmod 600)", "file", cfg.ClientAPITokens)
		}
	}
	for _, w := range exposureWarnings(cfg, tokens != nil) {
		log.Warn(w)
	}
	peers := nodeapi.NewClient(tlsSet.peerDial)
	reg.GaugeFunc(metrics.PrivacyPeers, "known_nodes", "Node URLs in the node table, this instance's included (GET /peercount)", func() float64 { return float64(len(in.Table.URLs())) })
	reg.GaugeFunc(metrics.PrivacyPeers, "known_keys", "Public keys in the node table", func() float64 { return float64(len(in.Table.Entries())) })
	in.Manager = &manager.Manager{
		Enclave:    enc,
		Store:      meterKV(reg, in.store, "payloads"),
		Table:      in.Table,
		Peers:      meterPeers(reg, peers),
		Log:        log,
		MaxPayload: cfg.MaxPayloadSize,
	}
	var allow []netip.Addr
	for _, ip := range cfg.IPWhitelist {
		allow = append(allow, netip.MustParseAddr(ip)) // validated by config
	}
	if !cfg.PeerDiscovery {
		// Discovery off (Tessera #301): the fixed peers are the only
		// instances that may call, as Tessera #975/#976 ask.
		allow = append(allow, peerAddresses(ctx, cfg.OtherNodes, log)...)
		if len(allow) == 0 {
			// An empty list means "everyone" to the node API; with no
			// fixed peer, nobody may call.
			allow = []netip.Addr{netip.IPv6Unspecified()}
		}
		log.Info("peer discovery is off: only othernodes are used and served", "othernodes", len(cfg.OtherNodes), "allowed addresses", len(allow))
	}
	maxBody := int64(cfg.MaxPayloadSize)/3*4 + 4 + bodySlack
	nodeAPI := &nodeapi.Server{Manager: in.Manager, Table: in.Table, Log: log.With("api", "node"), MaxBody: maxBody, Allow: allow}
	clientAPI := &clientapi.Server{Manager: in.Manager, Table: in.Table, Log: log.With("api", "client"), Version: opts.Version, MaxBody: maxBody, Tokens: tokens}
	clientMetrics, nodeMetrics, q2tMetrics := httpMetrics(reg)
	// /readiness is answered before the client API's token check: probes
	// carry no token, and the answer tells nothing a token protects.
	ready := readiness([]storage.KV{in.store, in.knownStore}, in.Table, cfg.OtherNodes, peers)
	in.nodeSrv = newServer(nodeMetrics(nodeAPI.Handler()), tlsSet.nodeServer, log)
	in.clientSrv = newServer(clientMetrics(withReadiness(clientAPI.Handler(), ready)), tlsSet.clientServer, log)
	var q2tLn net.Listener
	if cfg.Q2TEnabled {
		if q2tLn, err = listen(cfg.Q2TNetworkInterface, cfg.Q2TPort, "q2tport"); err != nil {
			nodeLn.Close()
			clientLn.Close()
			return nil, err
		}
		in.q2tURL = "http://" + q2tLn.Addr().String()
		q2tAPI := &q2tapi.Server{Manager: in.Manager, Table: in.Table, Log: log.With("api", "q2t"), Version: opts.Version, MaxBody: maxBody}
		in.q2tSrv = newServer(q2tMetrics(q2tAPI.Handler()), nil, log)
	}
	closeListeners := func() {
		nodeLn.Close()
		clientLn.Close()
		if q2tLn != nil {
			q2tLn.Close()
		}
	}
	metricsPort := 0
	if cfg.MetricsEnabled {
		if in.metricsSrv, err = reg.Serve(metrics.ServerConfig{Host: cfg.MetricsNetworkInterface, Port: cfg.MetricsPort,
			HostAllowlist: cfg.MetricsHostAllowlist, Logger: log}); err != nil {
			closeListeners()
			return nil, fmt.Errorf("metricsport: %w", err)
		}
		metricsPort = in.metricsSrv.Port()
	}

	runCtx, cancel := context.WithCancel(context.Background())
	in.cancel = cancel
	in.serve(in.nodeSrv, nodeLn, "node")
	in.serve(in.clientSrv, clientLn, "client")
	q2tPort := 0
	if q2tLn != nil {
		in.serve(in.q2tSrv, q2tLn, "Q2T")
		q2tPort = q2tLn.Addr().(*net.TCPAddr).Port
	}
	d := &discovery.Discovery{Table: in.Table, Poller: peers, BootNodes: cfg.OtherNodes, Log: log.With("component", "discovery"),
		EvictAfter: time.Duration(cfg.PeerEvictAfter) * time.Second}
	if cfg.PeerEvictAfter == 0 {
		d.EvictAfter = -1 // never
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		d.Run(runCtx)
	}()

	if err := in.writePortsFile(nodePort, clientPort, metricsPort, q2tPort); err != nil {
		log.Warn("could not write the ports file", "err", err)
	}
	log.Info("basalt-privacy started",
		"nodeurl", in.nodeURL, "node", nodeLn.Addr().String(), "client", clientLn.Addr().String(),
		"keys", len(pairs), "storage", describe(cfg.StorageSpec), "knownnodesstorage", describe(cfg.KnownNodesSpec),
		"othernodes", len(cfg.OtherNodes), "peerdiscovery", cfg.PeerDiscovery, "clientapitokens", tokens.Len(), "metrics", in.metricsSrv.Addr(), "q2t", in.q2tURL)
	for _, k := range enc.NodeKeys() {
		log.Info("hosting key", "publicKey", k.String())
	}
	return in, nil
}

func describe(s storage.Spec) string {
	switch s.Kind {
	case storage.Pebble:
		return "pebble:" + s.Path
	case storage.Postgres:
		return "postgres"
	default:
		return string(s.Kind)
	}
}

func openStore(ctx context.Context, key string, spec storage.Spec, log *slog.Logger) (storage.KV, error) {
	if spec.Alias != "" {
		log.Info(key+": "+spec.Alias+" is served by the embedded Pebble store", "path", spec.Path)
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	kv, err := storage.Open(octx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return kv, nil
}

func listen(iface string, port int, key string) (net.Listener, error) {
	addr := net.JoinHostPort(iface, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", key, addr, err)
	}
	return ln, nil
}

func newServer(h http.Handler, tlsConfig *tls.Config, log *slog.Logger) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		TLSConfig:         tlsConfig, // nil: plain HTTP
	}
	return srv
}

func (in *Instance) serve(srv *http.Server, ln net.Listener, name string) {
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		var err error
		if srv.TLSConfig != nil {
			err = srv.ServeTLS(ln, "", "")
		} else {
			err = srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			in.log.Error(name+" API server stopped", "err", err)
		}
	}()
}

// Metrics returns the instance's metrics registry (nil unless
// metricsenabled).
func (in *Instance) Metrics() *metrics.Registry { return in.metrics }

// NodeURL returns the URL advertised to peers.
func (in *Instance) NodeURL() string { return in.nodeURL }

// ClientURL returns the client API's base URL.
func (in *Instance) ClientURL() string { return in.clientURL }

// Q2TURL returns the Q2T API's base URL ("" unless q2tenabled).
func (in *Instance) Q2TURL() string { return in.q2tURL }

func (in *Instance) writePortsFile(nodePort, clientPort, metricsPort, q2tPort int) error {
	content := fmt.Sprintf("#This file contains the ports used by the running instance of basalt-privacy. This file will be deleted after the node is shutdown.\n#%s\nhttp-node-port=%d\nhttp-client-port=%d\n",
		time.Now().UTC().Format(time.RFC1123), nodePort, clientPort)
	if metricsPort != 0 {
		content += fmt.Sprintf("metrics-port=%d\n", metricsPort)
	}
	if q2tPort != 0 {
		content += fmt.Sprintf("q2t-port=%d\n", q2tPort)
	}
	return os.WriteFile(filepath.Join(in.cfg.WorkDir, PortsFile), []byte(content), 0o644)
}

// Close stops the servers (letting requests in flight finish, up to 10 s),
// discovery, and closes the stores.
func (in *Instance) Close() error {
	var err error
	in.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, srv := range []*http.Server{in.nodeSrv, in.clientSrv, in.q2tSrv} {
			if srv != nil {
				if e := srv.Shutdown(ctx); e != nil {
					srv.Close()
				}
			}
		}
		in.metricsSrv.Close()
		if in.cancel != nil {
			in.cancel()
		}
		in.wg.Wait()
		err = in.closeResources()
		os.Remove(filepath.Join(in.cfg.WorkDir, PortsFile))
	})
	return err
}

func (in *Instance) closeResources() error {
	var errs []error
	for _, kv := range []storage.KV{in.store, in.knownStore} {
		if kv != nil {
			errs = append(errs, kv.Close())
		}
	}
	in.store, in.knownStore = nil, nil
	return errors.Join(errs...)
}
