package node

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
)

// PrivacyExecOptions are the block executor's options for privacy: the
// precompile at its configured address.
func PrivacyExecOptions(cfg config.PrivacyConfig) []chain.ExecOption {
	if !cfg.Enabled {
		return nil
	}
	return []chain.ExecOption{chain.WithPrecompile(cfg.PrecompiledAddress, privacy.Precompile{})}
}

// NewPrivacyClient makes the client of the privacy manager the options
// name.
func NewPrivacyClient(cfg config.PrivacyConfig) (*enclave.Client, error) {
	ec := enclave.Config{URL: cfg.URL}
	if cfg.TLSEnabled {
		u, err := url.Parse(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("--privacy-url: %w", err)
		}
		hostPort := u.Host
		if u.Port() == "" {
			hostPort += ":443"
		}
		if ec.TLS, err = enclave.TLSConfig(enclave.TLSFiles{Keystore: cfg.TLSKeystoreFile, PasswordFile: cfg.TLSPasswordFile,
			KnownEnclaves: cfg.TLSKnownFile}, hostPort); err != nil {
			return nil, err
		}
	}
	return enclave.New(ec)
}

// AttachPrivacy connects c to the privacy manager cfg names and installs
// the processor of private transactions as c's block hook, for tools that
// insert blocks without a node (blocks import). The manager must answer
// /upcheck: without it the first private transaction would stop the chain.
func AttachPrivacy(c *chain.Chain, cfg config.PrivacyConfig, log *slog.Logger) (*enclave.Client, error) {
	client, err := NewPrivacyClient(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), enclave.RequestTimeout)
	defer cancel()
	if err := client.Upcheck(ctx); err != nil {
		return nil, fmt.Errorf("privacy manager at %s (--privacy-url) is not up: %w", cfg.URL, err)
	}
	c.SetBlockHook(privacy.NewProcessor(c, privstate.Open(c.Database()), client, cfg.PrecompiledAddress, cfg.NonceAlwaysIncrements, log))
	return client, nil
}

// newPrivacy builds the node's privacy service and installs its processor
// as the chain's block hook (see AttachPrivacy).
func (n *Node) newPrivacy() (*privacy.Service, error) {
	if err := n.cfg.FreeGasError(); err != nil {
		return nil, err
	}
	cfg := n.cfg.Privacy
	client, err := AttachPrivacy(n.chain, cfg, n.log)
	if err != nil {
		return nil, err
	}
	pc := privacy.Config{Address: cfg.PrecompiledAddress, MultiTenancy: cfg.MultiTenancy, NonceAlwaysIncrements: cfg.NonceAlwaysIncrements}
	if cfg.PublicKeyFile != "" {
		b, err := os.ReadFile(cfg.PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--privacy-public-key-file: %w", err)
		}
		pc.NodeKey = strings.TrimSpace(string(b))
		if _, err := privacy.DecodeGroupID(pc.NodeKey); err != nil {
			return nil, fmt.Errorf("--privacy-public-key-file %s: not a 32-byte key in Base64", cfg.PublicKeyFile)
		}
	}
	if cfg.MarkerSigningKeyFile != "" {
		if pc.MarkerKey, err = loadHexKey(cfg.MarkerSigningKeyFile); err != nil {
			return nil, fmt.Errorf("--privacy-marker-transaction-signing-key-file: %w", err)
		}
	}
	s := privacy.New(pc, n.chain, n.markerPool(), client, n.log)
	n.chain.SetBlockHook(s.Processor())
	// Markers the journal or the save file brought back still hold their
	// senders' private nonces.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	s.Recover(ctx, n.txStore.localTxs())
	cancel()
	n.log.Info("Privacy enabled", "manager", cfg.URL, "precompile", cfg.PrecompiledAddress.Hex(), "multiTenancy", cfg.MultiTenancy)
	return s, nil
}

// loadHexKey reads a hex secp256k1 private key (the node key's format).
func loadHexKey(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(b)), "0x"))
}
