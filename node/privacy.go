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
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/goquorum"
	"github.com/basaltchain/basalt/privacy/privstate"
)

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

// newPrivacyProcessor makes the processor of private transactions over
// db's private state, with the client of the manager cfg names, which must
// answer /upcheck.
func newPrivacyProcessor(cfg config.PrivacyConfig, db ethdb.Database, log *slog.Logger) (*privacy.Processor, error) {
	client, err := NewPrivacyClient(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), enclave.RequestTimeout)
	defer cancel()
	if err := client.Upcheck(ctx); err != nil {
		return nil, fmt.Errorf("privacy manager at %s (--privacy-url) is not up: %w", cfg.URL, err)
	}
	return privacy.NewProcessor(privstate.Open(db), client, cfg.PrecompiledAddress, cfg.NonceAlwaysIncrements, log), nil
}

// chainHooks are the chain's block hooks openChain made (nil: not
// enabled).
type chainHooks struct {
	privacy  *privacy.Processor  // Besu-style private transactions
	goQuorum *goquorum.Processor // a GoQuorum party's
}

// newGoQuorumProcessor makes the processor of a GoQuorum party's private
// transactions over db's GoQuorum private state, with the client of the
// manager's Q2T API at url, which must answer /upcheck (GoQuorum, too,
// refuses to start without its manager).
func newGoQuorumProcessor(url string, db ethdb.Database, log *slog.Logger) (*goquorum.Processor, error) {
	client, err := goquorum.NewClient(url)
	if err != nil {
		return nil, fmt.Errorf("--ptm-url: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), enclave.RequestTimeout)
	defer cancel()
	if err := client.Upcheck(ctx); err != nil {
		return nil, fmt.Errorf("privacy manager at %s (--ptm-url) is not up: %w", url, err)
	}
	if log == nil {
		log = slog.Default()
	}
	log.Info("GoQuorum party: private transactions run with the privacy manager's payloads", "manager", url)
	return goquorum.NewProcessor(privstate.OpenPrefix(db, privstate.GoQuorumPrefix), client, log), nil
}

// newPrivacy builds the node's privacy service over proc, the chain's
// block hook (openChain).
func (n *Node) newPrivacy(proc *privacy.Processor) (*privacy.Service, error) {
	cfg := n.cfg.Privacy
	var err error
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
	s := privacy.New(pc, n.chain, n.submit, proc, n.log)
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
