package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/internal/cliconf"
)

// PrivacyConfig holds the --privacy-* options (reference/privacy.md §11).
type PrivacyConfig struct {
	// Enabled is --privacy-enabled: the EEA and PRIV groups, the privacy
	// precompile and private state.
	Enabled bool
	// URL is --privacy-url: the privacy manager's client API.
	URL string
	// PublicKeyFile is --privacy-public-key-file: the node's key at the
	// manager (Base64, one line).
	PublicKeyFile string
	// PrecompiledAddress is --privacy-precompiled-address (an integer,
	// default 126 = 0x…7e).
	PrecompiledAddress common.Address
	// MarkerSigningKeyFile is
	// --privacy-marker-transaction-signing-key-file: the hex secp256k1 key
	// that signs privacy marker transactions; "" signs each with a fresh
	// key (free-gas networks only).
	MarkerSigningKeyFile string
	// MultiTenancy is --privacy-multi-tenancy-enabled: the enclave key of a
	// request is the privacyPublicKey claim of its JWT.
	MultiTenancy bool
	// NonceAlwaysIncrements is --privacy-nonce-always-increments: a failed
	// private transaction still bumps its sender's private nonce.
	NonceAlwaysIncrements bool
	// TLSEnabled is --privacy-tls-enabled; the files are the keystore
	// (PKCS#12), its password file and the known-enclave file.
	TLSEnabled                                     bool
	TLSKeystoreFile, TLSPasswordFile, TLSKnownFile string
	// PTMURL is --ptm-url (GoQuorum's --ptm.url): the Tessera Q2T API of
	// the privacy manager (basalt-privacy) of a node that is a GoQuorum
	// party; "" runs GoQuorum private transactions as a non-party.
	PTMURL string
}

// DefaultPrivacyURL is Besu's --privacy-url default.
const DefaultPrivacyURL = "http://localhost:8888"

// privacyOptions are the --privacy-* options. They are persistent: `blocks
// import` rebuilds private state with them.
func privacyOptions() []option {
	str := func(dst func(c *Config) *string) func(c *Config, v string) error {
		return func(c *Config, v string) error { *dst(c) = strings.TrimSpace(v); return nil }
	}
	boolean := func(dst func(c *Config) *bool) func(c *Config, v string) error {
		return func(c *Config, v string) (err error) { *dst(c), err = parseBoolValue(v); return err }
	}
	return []option{
		{Option: cliconf.Option{Name: "privacy-enabled", Kind: kindBool, Default: "false",
			Usage: "Enable private transactions (EEA and PRIV methods, the privacy precompile, private state)"}, persistent: true,
			apply: boolean(func(c *Config) *bool { return &c.Privacy.Enabled })},
		{Option: cliconf.Option{Name: "privacy-url", Type: "url", Default: DefaultPrivacyURL,
			Usage: "Client API URL of the privacy manager (basalt-privacy, Orion)"}, persistent: true,
			apply: func(c *Config, v string) error {
				v = strings.TrimSpace(v)
				u, err := url.Parse(v)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return errors.New("expected an http or https URL")
				}
				c.Privacy.URL = v
				return nil
			}},
		{Option: cliconf.Option{Name: "privacy-public-key-file", Type: "file",
			Usage: "File holding the node's privacy manager public key (Base64)"}, persistent: true,
			apply: str(func(c *Config) *string { return &c.Privacy.PublicKeyFile })},
		{Option: cliconf.Option{Name: "privacy-precompiled-address", Type: "integer", Default: "126",
			Usage: "Address of the privacy precompile, as an integer (Besu 1.4)"}, persistent: true,
			apply: func(c *Config, v string) error {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if err != nil || n < 1 || n > math.MaxInt32 {
					return errors.New("expected a positive integer")
				}
				c.Privacy.PrecompiledAddress = common.BigToAddress(bigOf(n))
				return nil
			}},
		{Option: cliconf.Option{Name: "privacy-marker-transaction-signing-key-file", Type: "file",
			Usage: "Hex private key that signs privacy marker transactions (default: fresh keys, one per sender and group while its markers wait; only where gas is free: --min-gas-price=0 and no base fee or config.zeroBaseFee)"}, persistent: true,
			apply: str(func(c *Config) *string { return &c.Privacy.MarkerSigningKeyFile })},
		{Option: cliconf.Option{Name: "privacy-multi-tenancy-enabled", Kind: kindBool, Default: "false",
			Usage: "Take the enclave key of each request from its JWT's privacyPublicKey claim (needs RPC authentication)"}, persistent: true,
			apply: boolean(func(c *Config) *bool { return &c.Privacy.MultiTenancy })},
		{Option: cliconf.Option{Name: "privacy-nonce-always-increments", Kind: kindBool, Default: "false",
			Usage: "Increment the sender's private nonce even when the private transaction fails"}, persistent: true,
			apply: boolean(func(c *Config) *bool { return &c.Privacy.NonceAlwaysIncrements })},
		{Option: cliconf.Option{Name: "privacy-tls-enabled", Kind: kindBool, Default: "false",
			Usage: "Reach the privacy manager over TLS"}, persistent: true,
			apply: boolean(func(c *Config) *bool { return &c.Privacy.TLSEnabled })},
		{Option: cliconf.Option{Name: "privacy-tls-keystore-file", Type: "file",
			Usage: "PKCS#12 keystore with the client certificate presented to the privacy manager"}, persistent: true,
			apply: str(func(c *Config) *string { return &c.Privacy.TLSKeystoreFile })},
		{Option: cliconf.Option{Name: "privacy-tls-keystore-password-file", Type: "file",
			Usage: "File holding the password of --privacy-tls-keystore-file"}, persistent: true,
			apply: str(func(c *Config) *string { return &c.Privacy.TLSPasswordFile })},
		{Option: cliconf.Option{Name: "privacy-tls-known-enclave-file", Type: "file",
			Usage: "Known privacy managers: \"host:port sha256-fingerprint\" lines; the manager's certificate must be listed"}, persistent: true,
			apply: str(func(c *Config) *string { return &c.Privacy.TLSKnownFile })},
		{Option: cliconf.Option{Name: "ptm-url", Type: "url",
			Usage: "GoQuorum networks (genesis isQuorum): Tessera Q2T API URL of the node's privacy manager (basalt-privacy's q2tport), as GoQuorum's --ptm.url; the node then runs the GoQuorum private transactions it is a party to into its private state"},
			persistent: true, status: own,
			apply: func(c *Config, v string) error {
				v = strings.TrimSpace(v)
				if v == "" {
					c.Privacy.PTMURL = ""
					return nil
				}
				u, err := url.Parse(v)
				if err != nil || u.Scheme != "http" || u.Host == "" {
					return errors.New("expected an http URL (GoQuorum's unix socket and TLS connections are not supported)")
				}
				c.Privacy.PTMURL = strings.TrimRight(v, "/")
				return nil
			}},
		{Option: cliconf.Option{Name: "privacy-flexible-groups-enabled", Aliases: []string{"privacy-onchain-groups-enabled"}, Kind: kindBool, Default: "false"},
			status: refused, check: refuseTrue("Basalt has no flexible (on-chain) privacy groups: use privacy groups made with priv_createPrivacyGroup, or privateFor"),
			basalt: "Basalt has no flexible (on-chain) privacy groups"},
		{Option: cliconf.Option{Name: "privacy-enable-database-migration", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt's private state has one storage layout: there is nothing to migrate"},
	}
}

// checkPrivacy applies Besu's start-up rules of the --privacy-* options
// (PrivacyOptions / BesuCommand), with its wording. The free-gas rule
// (no marker signing key needs --min-gas-price=0) is the node's
// (FreeGasError): it does not concern `blocks import`.
func (c *Config) checkPrivacy() error {
	p := &c.Privacy
	if p.URL == "" {
		p.URL = DefaultPrivacyURL
	}
	if p.PrecompiledAddress == (common.Address{}) {
		p.PrecompiledAddress = common.BigToAddress(bigOf(126))
	}
	if p.PTMURL == "" && c.privateConfigEnv != nil && c.Genesis != nil && c.Genesis.Quorum {
		u, err := ptmURLFromPrivateConfig(*c.privateConfigEnv)
		if err != nil {
			return err
		}
		p.PTMURL = u
	}
	if p.PTMURL != "" && p.Enabled {
		return errors.New("--ptm-url (a GoQuorum party) and --privacy-enabled (Besu-style privacy) cannot be combined: a GoQuorum network's private transactions need --ptm-url alone")
	}
	if !p.Enabled {
		return nil
	}
	switch {
	case p.MultiTenancy && p.PublicKeyFile != "":
		return errors.New("Privacy multi-tenancy and privacy public key cannot be used together: give --privacy-multi-tenancy-enabled or --privacy-public-key-file")
	case !p.MultiTenancy && p.PublicKeyFile == "":
		return errors.New("Please specify Enclave public key file path to enable privacy (--privacy-public-key-file)")
	case p.MultiTenancy && !c.RPC.HTTPAuth.Enabled && !c.RPC.WSAuth.Enabled:
		return errors.New("Privacy multi-tenancy requires either http authentication to be enabled or WebSocket authentication to be enabled")
	case !p.TLSEnabled && (p.TLSKeystoreFile != "" || p.TLSKnownFile != ""):
		return errors.New("--privacy-tls-keystore-file and --privacy-tls-known-enclave-file need --privacy-tls-enabled")
	case p.TLSEnabled && !strings.HasPrefix(strings.ToLower(p.URL), "https://"):
		return fmt.Errorf("--privacy-tls-enabled needs an https --privacy-url, got %s", p.URL)
	}
	return nil
}

func bigOf(n int64) *big.Int { return big.NewInt(n) }

// FreeGasError is Besu's refusal to start a node that would sign privacy
// marker transactions with fresh, unfunded keys on a network where gas has
// a price; nil when the options are fine. Gas has a price when
// --min-gas-price is above 0 (Besu's rule) or when the chain's fee market
// charges a base fee: London (EIP-1559) is scheduled and the genesis does
// not set config.zeroBaseFee. Such a marker, at the private transaction's
// gas price (0 from a signer), would be acknowledged and then wait in the
// pool forever. Basalt does not implement Besu's config.fixedBaseFee (its
// London blocks follow EIP-1559), so that key does not make a chain free.
func (c *Config) FreeGasError() error {
	p := c.Privacy
	if !p.Enabled || p.MarkerSigningKeyFile != "" {
		return nil
	}
	const besu = "Not a free gas network. --privacy-marker-transaction-signing-key-file must be specified and must be a funded account. Private transactions cannot be signed by random (non-funded) accounts in paid gas networks"
	if c.MinGasPrice != nil && c.MinGasPrice.Sign() > 0 {
		return fmt.Errorf("%s (--min-gas-price is %s)", besu, c.MinGasPrice)
	}
	g := c.Genesis
	if g == nil || g.Core == nil || g.Core.Config == nil || g.Core.Config.LondonBlock == nil || g.ZeroBaseFee {
		return nil
	}
	source := "the genesis file"
	if c.Network != "" {
		source = "--network=" + c.Network
	}
	fixed := ""
	if g.FixedBaseFee {
		fixed = "; Basalt does not implement config.fixedBaseFee"
	}
	return fmt.Errorf("%s (%s activates London at block %s: every block has an EIP-1559 base fee, so a marker signed by a fresh key at the private transaction's gas price would never be mined%s; for a free gas network set config.zeroBaseFee in the genesis and --min-gas-price=0)",
		besu, source, g.Core.Config.LondonBlock, fixed)
}

// PrivateConfigEnv is GoQuorum's environment variable naming its
// transaction manager's connection. On a GoQuorum network (genesis
// isQuorum) without --ptm-url, Basalt reads it too, so that a GoQuorum
// node's start script works unchanged.
const PrivateConfigEnv = "PRIVATE_CONFIG"

// ptmURLFromPrivateConfig is the manager URL a PRIVATE_CONFIG value names
// (GoQuorum's common/http/config.go): "" or "ignore" name none; a TOML file
// gives its HttpUrl. GoQuorum's other form, a unix socket path, is not
// served by basalt-privacy.
func ptmURLFromPrivateConfig(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "ignore") {
		return "", nil
	}
	fi, err := os.Stat(v)
	if err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s=%s: not a TOML file; Basalt reaches its privacy manager over HTTP only: name a TOML file with HttpUrl, or give --ptm-url", PrivateConfigEnv, v)
	}
	var tm struct {
		HttpUrl string
		Socket  string
	}
	if _, err := toml.DecodeFile(v, &tm); err != nil {
		return "", fmt.Errorf("%s=%s: %v", PrivateConfigEnv, v, err)
	}
	if tm.HttpUrl == "" {
		return "", fmt.Errorf("%s=%s: no HttpUrl; Basalt reaches its privacy manager over HTTP only (a Socket is not served by basalt-privacy)", PrivateConfigEnv, v)
	}
	u, err := url.Parse(tm.HttpUrl)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", fmt.Errorf("%s=%s: HttpUrl %q is not an http URL", PrivateConfigEnv, v, tm.HttpUrl)
	}
	return strings.TrimRight(tm.HttpUrl, "/"), nil
}
