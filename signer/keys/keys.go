// Package keys holds the signing keys of basalt-signer and the key stores
// they come from: a V3 keystore file with its password file
// (file-based-signer), a Hashicorp Vault KV v2 secret (hashicorp-signer), a
// raw hex key (raw-signer, for tests) and a directory of TOML key
// descriptions, one per address, read again while the signer runs
// (multikey-signer).
//
// Every loader reports errors that name the file (or the Vault URL) they
// come from, so that a bad key file or password stops basalt-signer at
// start-up with a message that says which file is wrong.
package keys

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Key signs 32-byte hashes with one secp256k1 private key.
type Key interface {
	// Address is the account address of the key.
	Address() common.Address
	// Sign signs a 32-byte hash and returns the 65-byte signature
	// r ‖ s ‖ v with v = 0 or 1 (the recovery id), as crypto.Sign does.
	Sign(hash []byte) ([]byte, error)
}

// Store is a set of keys, looked up by address.
type Store interface {
	// Accounts returns the addresses of the usable keys, sorted.
	Accounts() []common.Address
	// Key returns the key for addr, if the store has one.
	Key(addr common.Address) (Key, bool)
}

// PrivateKey is a Key held in memory.
type PrivateKey struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewPrivateKey wraps k.
func NewPrivateKey(k *ecdsa.PrivateKey) *PrivateKey {
	return &PrivateKey{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
}

// Address implements Key.
func (k *PrivateKey) Address() common.Address { return k.addr }

// Sign implements Key.
func (k *PrivateKey) Sign(hash []byte) ([]byte, error) { return crypto.Sign(hash, k.key) }

// ParseHexKey parses a hex secp256k1 private key, with or without 0x and
// surrounding white space. The error never contains the key.
func ParseHexKey(s string) (*PrivateKey, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("the private key is not valid hex")
	}
	if len(b) != 32 {
		return nil, fmt.Errorf("the private key is %d bytes, want 32", len(b))
	}
	k, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, errors.New("the private key is not a valid secp256k1 key")
	}
	return NewPrivateKey(k), nil
}

// Single is a Store of one key.
type Single struct{ key Key }

// NewSingle returns a store holding only k.
func NewSingle(k Key) *Single { return &Single{key: k} }

// Accounts implements Store.
func (s *Single) Accounts() []common.Address { return []common.Address{s.key.Address()} }

// Key implements Store.
func (s *Single) Key(addr common.Address) (Key, bool) {
	if addr == s.key.Address() {
		return s.key, true
	}
	return nil, false
}

// sortAddresses sorts addresses by their lower-case hex, the order of
// EthSigner's eth_accounts.
func sortAddresses(a []common.Address) {
	slices.SortFunc(a, func(x, y common.Address) int { return x.Cmp(y) })
}
