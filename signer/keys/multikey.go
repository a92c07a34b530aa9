package keys

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/ethereum/go-ethereum/common"
)

// Key description types of a multikey directory.
const (
	TypeFileBased = "file-based-signer"
	TypeHashicorp = "hashicorp-signer"
	TypeRaw       = "raw-signer"
	TypeAzure     = "azure-signer" // recognised, not supported
)

// refreshInterval is how old the directory index may be before a lookup
// of a known address rescans the directory (so that removed or changed
// files stop being used).
const refreshInterval = time.Second

// vaultRetryInterval is how long a key file whose Vault could not be read
// waits before a scan tries again (the Vault may have been down).
const vaultRetryInterval = 10 * time.Second

// Dir is the key store of multikey-signer: a directory of TOML files, one
// per account, each named "[prefix]<address>.toml" where <address> is the
// account's hex address without 0x (EthSigner's rule; compared here without
// regard to case). Each file has a [signing] table:
//
//	[signing]
//	type = "file-based-signer"       # a V3 keystore and its password file
//	key-file = "key.json"            # relative paths resolve against the directory
//	password-file = "key.password"
//
//	[signing]
//	type = "hashicorp-signer"        # a Vault KV v2 secret (see VaultConfig)
//	signing-key-path = "/v1/secret/data/ethsignerSigningKey"
//	host = "localhost"               # default localhost
//	port = 8200                      # default 8200
//	auth-file = "vault.token"
//	timeout = 10000                  # milliseconds, default 10000
//	tls-enabled = true               # default true
//	tls-known-server-file = "known-servers"
//
//	[signing]
//	type = "raw-signer"              # the hex key itself: tests and dev networks only
//	key = "0x8f2a5594…"
//
// Other tables (such as EthSigner's [metadata]) are ignored; unknown keys in
// [signing] are an error. The directory is read again when eth_accounts is
// answered, when an address is not found, and when a found key's index is
// older than a second, so files added, changed or removed while the signer
// runs take effect without a restart (EthSigner issue #346). A key whose file
// does not load, whose key is for another address than its file name, or
// whose address has more than one file is not used, and the problem is
// logged once per file version.
type Dir struct {
	dir string
	log *slog.Logger

	idx atomic.Pointer[dirIndex]

	scanMu sync.Mutex           // serialises scans; guards files
	files  map[string]*dirEntry // by file name
}

type dirIndex struct {
	at       time.Time
	keys     map[common.Address]Key
	accounts []common.Address
}

// dirEntry is what a scan learned about one file.
type dirEntry struct {
	mod      time.Time
	size     int64
	loadedAt time.Time
	addr     common.Address // from the file name
	key      Key            // nil when err != nil
	err      error
	// transient marks an error worth retrying without a file change: the
	// Vault could not be read.
	transient bool
}

// OpenDir reads every key file in dir. Unlike a later rescan, which logs and
// skips a bad file, OpenDir fails on the first bad file, naming it, so a
// mistake is seen at start-up.
func OpenDir(dir string, log *slog.Logger) (*Dir, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("multikey directory %s: %w", dir, unwrapPathError(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("multikey directory %s is not a directory", dir)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dir{dir: dir, log: log, files: map[string]*dirEntry{}}
	d.scanMu.Lock()
	defer d.scanMu.Unlock()
	if err := d.scanLocked(true); err != nil {
		return nil, err
	}
	return d, nil
}

// Accounts implements Store: it rescans the directory and lists every
// usable key.
func (d *Dir) Accounts() []common.Address {
	d.scanMu.Lock()
	_ = d.scanLocked(false)
	d.scanMu.Unlock()
	return append([]common.Address(nil), d.idx.Load().accounts...)
}

// Key implements Store.
func (d *Dir) Key(addr common.Address) (Key, bool) {
	idx := d.idx.Load()
	if k, ok := idx.keys[addr]; ok {
		if time.Since(idx.at) >= refreshInterval && d.scanMu.TryLock() {
			// Refresh, but never make a signing request wait for another
			// request's scan: if one is running, use the current index.
			_ = d.scanLocked(false)
			d.scanMu.Unlock()
			k, ok = d.idx.Load().keys[addr]
		}
		return k, ok
	}
	d.scanMu.Lock()
	if d.idx.Load() == idx { // nobody rescanned while we waited
		_ = d.scanLocked(false)
	}
	d.scanMu.Unlock()
	k, ok := d.idx.Load().keys[addr]
	return k, ok
}

// scanLocked reads the directory, loads new and changed files and publishes
// a new index. strict makes the first problem an error instead of a log
// line.
func (d *Dir) scanLocked(strict bool) error {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		err = fmt.Errorf("multikey directory %s: %w", d.dir, unwrapPathError(err))
		if strict {
			return err
		}
		d.log.Error("Cannot read the multikey directory; keeping the keys loaded before", "err", err)
		return err
	}
	seen := make(map[string]bool, len(ents))
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".toml") {
			continue
		}
		path := filepath.Join(d.dir, name)
		st, err := os.Stat(path) // follows symbolic links
		if err != nil || st.IsDir() {
			continue
		}
		seen[name] = true
		if old, ok := d.files[name]; ok && old.mod.Equal(st.ModTime()) && old.size == st.Size() &&
			!(old.transient && time.Since(old.loadedAt) >= vaultRetryInterval) {
			continue
		}
		ent := &dirEntry{mod: st.ModTime(), size: st.Size(), loadedAt: time.Now()}
		d.files[name] = ent
		addr, ok := addressFromFileName(name)
		if !ok {
			ent.err = fmt.Errorf("key file %s: the file name must end with the account's hex address (<address>.toml)", path)
		} else {
			ent.addr = addr
			ent.key, ent.transient, ent.err = loadKeyFile(path, d.dir)
			if ent.err == nil && ent.key.Address() != addr {
				ent.err = fmt.Errorf("key file %s: its key is for address %s, not the one in the file name",
					path, ent.key.Address().Hex())
				ent.key = nil
			}
		}
		if ent.err != nil {
			if strict {
				return ent.err
			}
			d.log.Error("Key file not loaded", "err", ent.err)
		} else {
			d.log.Info("Key file loaded", "file", path, "address", addr.Hex())
		}
	}
	for name := range d.files {
		if !seen[name] {
			delete(d.files, name)
		}
	}

	byAddr := map[common.Address][]string{}
	keys := map[common.Address]Key{}
	for name, e := range d.files {
		if e.err != nil {
			continue
		}
		byAddr[e.addr] = append(byAddr[e.addr], name)
		keys[e.addr] = e.key
	}
	var accounts []common.Address
	for addr, names := range byAddr {
		if len(names) > 1 {
			// EthSigner uses none of several matching files.
			delete(keys, addr)
			err := fmt.Errorf("multikey directory %s: more than one key file for %s (%s); none is used",
				d.dir, addr.Hex(), strings.Join(names, ", "))
			if strict {
				return err
			}
			d.log.Error("Duplicate key files", "err", err)
			continue
		}
		accounts = append(accounts, addr)
	}
	sortAddresses(accounts)
	d.idx.Store(&dirIndex{at: time.Now(), keys: keys, accounts: accounts})
	return nil
}

// addressFromFileName reads the address at the end of "[prefix]<40 hex>.toml".
func addressFromFileName(name string) (common.Address, bool) {
	base := strings.TrimSuffix(name, ".toml")
	if len(base) < 40 {
		return common.Address{}, false
	}
	b, err := hex.DecodeString(base[len(base)-40:])
	if err != nil {
		return common.Address{}, false
	}
	return common.BytesToAddress(b), true
}

// keyFile is the [signing] table of a multikey file.
type keyFile struct {
	Signing *struct {
		Type string `toml:"type"`

		KeyFile      string `toml:"key-file"`
		PasswordFile string `toml:"password-file"`

		SigningKeyPath     string `toml:"signing-key-path"`
		Host               string `toml:"host"`
		Port               *int64 `toml:"port"`
		AuthFile           string `toml:"auth-file"`
		Timeout            *int64 `toml:"timeout"`
		TLSEnabled         *bool  `toml:"tls-enabled"`
		TLSKnownServerFile string `toml:"tls-known-server-file"`

		Key string `toml:"key"`

		// Azure fields are recognised so that the error says the type
		// is unsupported rather than that the keys are unknown.
		KeyVaultName     string `toml:"key-vault-name"`
		KeyName          string `toml:"key-name"`
		KeyVersion       string `toml:"key-version"`
		ClientID         string `toml:"client-id"`
		ClientSecret     string `toml:"client-secret"`
		ClientSecretPath string `toml:"client-secret-path"`
		TenantID         string `toml:"tenant-id"`
	} `toml:"signing"`
}

// loadKeyFile loads the key a multikey TOML file describes. transient
// reports a failure to read a Vault, which may succeed later.
func loadKeyFile(path, dir string) (k Key, transient bool, err error) {
	k, err = loadKeyDescription(path, dir, &transient)
	return k, transient, err
}

func loadKeyDescription(path, dir string, transient *bool) (Key, error) {
	var f keyFile
	md, err := toml.DecodeFile(path, &f)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %v", path, err)
	}
	if f.Signing == nil {
		return nil, fmt.Errorf("key file %s: no [signing] table", path)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "signing" {
			return nil, fmt.Errorf("key file %s: unknown key %q in [signing]", path, k.String())
		}
	}
	s := f.Signing
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	required := func(pairs ...string) error {
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				return fmt.Errorf("key file %s: %s needs %q in [signing]", path, s.Type, pairs[i])
			}
		}
		return nil
	}
	switch s.Type {
	case TypeFileBased:
		if err := required("key-file", s.KeyFile, "password-file", s.PasswordFile); err != nil {
			return nil, err
		}
		k, err := LoadKeystoreFile(abs(s.KeyFile), abs(s.PasswordFile))
		if err != nil {
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		return k, nil
	case TypeHashicorp:
		if err := required("auth-file", s.AuthFile); err != nil {
			return nil, err
		}
		cfg := VaultConfig{
			Host:               s.Host,
			Port:               DefaultVaultPort,
			SigningKeyPath:     s.SigningKeyPath,
			AuthFile:           abs(s.AuthFile),
			Timeout:            DefaultVaultTimeout,
			TLSEnabled:         true,
			TLSKnownServerFile: abs(s.TLSKnownServerFile),
		}
		if cfg.Host == "" {
			cfg.Host = DefaultVaultHost
		}
		if cfg.SigningKeyPath == "" {
			cfg.SigningKeyPath = DefaultVaultKeyPath
		}
		if s.Port != nil {
			if *s.Port <= 0 || *s.Port > 65535 {
				return nil, fmt.Errorf("key file %s: port %d is not a TCP port", path, *s.Port)
			}
			cfg.Port = int(*s.Port)
		}
		if s.Timeout != nil {
			if *s.Timeout <= 0 {
				return nil, fmt.Errorf("key file %s: timeout must be a positive number of milliseconds", path)
			}
			cfg.Timeout = time.Duration(*s.Timeout) * time.Millisecond
		}
		if s.TLSEnabled != nil {
			cfg.TLSEnabled = *s.TLSEnabled
		}
		k, err := LoadVaultKey(context.Background(), cfg)
		if err != nil {
			*transient = true
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		return k, nil
	case TypeRaw:
		if err := required("key", s.Key); err != nil {
			return nil, err
		}
		k, err := ParseHexKey(s.Key)
		if err != nil {
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		return k, nil
	case TypeAzure:
		return nil, fmt.Errorf("key file %s: type %q is not supported by basalt-signer", path, s.Type)
	case "":
		return nil, fmt.Errorf("key file %s: [signing] has no type (%s, %s or %s)", path, TypeFileBased, TypeHashicorp, TypeRaw)
	}
	return nil, fmt.Errorf("key file %s: unknown type %q (want %s, %s or %s)", path, s.Type, TypeFileBased, TypeHashicorp, TypeRaw)
}
