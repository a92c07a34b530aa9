package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/signer"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
	"github.com/basaltchain/basalt/signer/tessera"
)

// portsFile is written to --data-path while the signer runs, as EthSigner
// does, so that tools (and tests) can find a port chosen with
// --http-listen-port=0.
const portsFile = "ethsigner.ports"

// runSigner opens the key store, starts the server and serves until ctx
// ends.
func runSigner(ctx context.Context, cfg *config, stderr io.Writer) error {
	log := newLogger(cfg, stderr)
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	reg := newRegistry(cfg)
	ds := downstream.New(downstream.Config{
		Host: cfg.DownstreamHost, Port: cfg.DownstreamPort, Path: cfg.DownstreamPath, Timeout: cfg.DownstreamTimeout,
		Observe: signer.DownstreamObserver(reg),
	})
	defer ds.Close()
	var tm *tessera.Client
	if cfg.TesseraURL != "" {
		// The manager is bounded by the node's timeout: it stands in for
		// the node's own call to it.
		if tm, err = tessera.New(tessera.Config{URL: cfg.TesseraURL, Timeout: cfg.DownstreamTimeout}); err != nil {
			return fmt.Errorf("--tessera-url: %v", err)
		}
		defer tm.Close()
	}
	srv, err := signer.New(signer.Config{
		ChainID:       cfg.ChainID,
		Keys:          store,
		Downstream:    ds,
		Tessera:       tm,
		CORSOrigins:   cfg.CORSOrigins,
		HostAllowlist: cfg.HostAllowlist,
		Logger:        log,
		Metrics:       reg,
	})
	if err != nil {
		return err
	}
	var metricsPort int
	if cfg.MetricsEnabled {
		ms, err := reg.Serve(metrics.ServerConfig{Host: cfg.MetricsHost, Port: cfg.MetricsPort, HostAllowlist: cfg.MetricsHostAllowlist, Logger: log})
		if err != nil {
			return fmt.Errorf("--metrics-host/--metrics-port: %v", err)
		}
		defer ms.Close()
		metricsPort = ms.Port()
		log.Info("Metrics service started", "address", ms.Addr())
	}

	addr := net.JoinHostPort(cfg.ListenHost, strconv.Itoa(cfg.ListenPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http-listen-host/--http-listen-port: %v", err)
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	port := ln.Addr().(*net.TCPAddr).Port
	log.Info("Server is up", "version", clientID, "address", ln.Addr().String(), "downstream", ds.URL(), "tessera", cfg.TesseraURL,
		"chainId", cfg.ChainID.String(), "keyStore", cfg.Store, "accounts", len(store.Accounts()))
	if cfg.DataPath != "" {
		path := filepath.Join(cfg.DataPath, portsFile)
		if err := writePortsFile(path, port, metricsPort); err != nil {
			log.Warn("Cannot write the ports file", "err", err)
		} else {
			defer os.Remove(path)
		}
	}

	var wg sync.WaitGroup
	checkCtx, cancelCheck := context.WithCancel(ctx)
	wg.Go(func() { checkChainID(checkCtx, ds, cfg, log) })
	defer func() {
		cancelCheck()
		wg.Wait()
	}()

	select {
	case err := <-served:
		return fmt.Errorf("HTTP server: %v", err)
	case <-ctx.Done():
	}
	log.Info("Shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		_ = hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("HTTP server: %v", err)
	}
	return nil
}

// newRegistry returns the signer's metrics registry, nil (no metrics kept)
// without --metrics-enabled.
func newRegistry(cfg *config) *metrics.Registry {
	if !cfg.MetricsEnabled {
		return nil
	}
	cats := cfg.MetricsCategories
	if cats == nil {
		cats = metrics.SignerCategories
	}
	return metrics.New(metrics.Config{Categories: cats})
}

// newLogger returns the logger --logging asks for, writing to stderr.
func newLogger(cfg *config, stderr io.Writer) *slog.Logger {
	if cfg.LogOff {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
}

// openStore loads the key store the subcommand names. Errors name the file
// (or Vault URL) at fault.
func openStore(ctx context.Context, cfg *config, log *slog.Logger) (keys.Store, error) {
	switch cfg.Store {
	case cmdFileBased:
		k, err := keys.LoadKeystoreFile(cfg.KeyFile, cfg.PasswordFile)
		if err != nil {
			return nil, err
		}
		return keys.NewSingle(k), nil
	case cmdMultikey:
		return keys.OpenDir(cfg.Directory, log)
	case cmdHashicorp:
		k, err := keys.LoadVaultKey(ctx, cfg.Vault)
		if err != nil {
			return nil, err
		}
		return keys.NewSingle(k), nil
	case cmdRaw:
		k, err := keys.ParseHexKey(cfg.RawKey)
		if err != nil {
			return nil, fmt.Errorf("--key: %v", err)
		}
		return keys.NewSingle(k), nil
	}
	return nil, fmt.Errorf("unknown key store %q", cfg.Store)
}

// writePortsFile writes EthSigner's ports file (Java properties); the
// metrics port only when the metrics service runs (metricsPort 0: not).
func writePortsFile(path string, port, metricsPort int) error {
	content := "# The ports used by the running basalt-signer. This file is deleted when it stops.\n" +
		"http-jsonrpc=" + strconv.Itoa(port) + "\n"
	if metricsPort != 0 {
		content += "metrics-port=" + strconv.Itoa(metricsPort) + "\n"
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// checkChainID warns when the node's eth_chainId differs from --chain-id:
// the node would refuse every transaction the signer signs ("Wrong
// chainId"). A node that does not answer yet is not an error.
func checkChainID(ctx context.Context, ds *downstream.Client, cfg *config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := ds.Do(ctx, &downstream.Request{
		Method: http.MethodPost, Path: "/",
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   []byte(`{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":1}`),
	})
	if err != nil {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			log.Warn("The downstream node does not answer yet", "downstream", ds.URL(), "tessera", cfg.TesseraURL, "err", err)
		}
		return
	}
	var res struct {
		Result string `json:"result"`
	}
	if json.Unmarshal(resp.Body, &res) != nil || res.Result == "" {
		return
	}
	id, err := strconv.ParseUint(res.Result, 0, 64)
	if err != nil {
		return
	}
	if !cfg.ChainID.IsUint64() || cfg.ChainID.Uint64() != id {
		log.Warn("The downstream node's chain ID differs from --chain-id; it will refuse the transactions signed here",
			"node", id, "chainId", cfg.ChainID.String())
	}
}
