package keys

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/basaltchain/basalt/ptm"
	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/nacl/secretbox"
)

// Private key file types (the "type" field of a .key file).
const (
	TypeUnlocked = "unlocked"
	TypeLocked   = "sodium-encrypted"
)

// The key derivation of a "sodium-encrypted" key file: libsodium's
// crypto_pwhash with argon2i13 and the "moderate" limits, which Orion fixes
// in code rather than reading them from the file. libsodium's argon2i uses a
// single lane.
const (
	argonOps     = 3
	argonMemKiB  = 256 * 1024 // 268435456 bytes
	argonThreads = 1
	nonceSize    = 24
	saltSize     = 16
)

// storedKey is the JSON of a .key file: {"data":{"bytes":"<b64>"},"type":"<type>"}.
type storedKey struct {
	Data struct {
		Bytes string `json:"bytes"`
	} `json:"data"`
	Type string `json:"type"`
}

// ReadPublicKeyFile reads a .pub file: its first line is the Base64 public
// key (Orion writes no trailing newline; one is accepted).
func ReadPublicKeyFile(path string) (PublicKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return PublicKey{}, fmt.Errorf("read public key file %q: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return PublicKey{}, fmt.Errorf("read public key file %q: %w", path, err)
	}
	k, err := ParsePublicKey(strings.TrimRight(line, "\r\n"))
	if err != nil {
		return PublicKey{}, fmt.Errorf("public key file %q: %w", path, err)
	}
	return k, nil
}

// ReadPrivateKeyFile reads a .key file. A "sodium-encrypted" key needs
// password; the error of a failure carries Orion's code
// (EnclaveMissingPrivateKeyPasswords, EnclaveStorageDecrypt,
// EnclaveUnsupportedPrivateKeyType) as a *ptm.Error.
func ReadPrivateKeyFile(path string, password *string) (PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("read private key file %q: %w", path, err)
	}
	k, err := ParsePrivateKey(data, password)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("private key file %q: %w", path, err)
	}
	return k, nil
}

// ParsePrivateKey decodes the JSON of a .key file.
func ParsePrivateKey(data []byte, password *string) (PrivateKey, error) {
	var sk PrivateKey
	var sf storedKey
	if err := json.Unmarshal(data, &sf); err != nil {
		return sk, fmt.Errorf("not a private key file: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(sf.Data.Bytes)
	if err != nil {
		return sk, fmt.Errorf("data.bytes: %w", err)
	}
	switch sf.Type {
	case TypeUnlocked:
		if len(raw) != Size {
			return sk, fmt.Errorf("data.bytes: %w (got %d)", ErrKeyLength, len(raw))
		}
		copy(sk[:], raw)
		return sk, nil
	case TypeLocked:
		if password == nil {
			return sk, ptm.Errorf(ptm.EnclaveMissingPrivateKeyPasswords, "the key is locked (type %q) and no password is given", TypeLocked)
		}
		return unlock(raw, *password)
	default:
		return sk, ptm.Errorf(ptm.EnclaveUnsupportedPrivateKeyType, "unsupported private key type %q", sf.Type)
	}
}

// unlock opens nonce(24) ‖ secretbox(sk, nonce, K) with K derived from the
// password and the first 16 bytes of the nonce.
func unlock(raw []byte, password string) (PrivateKey, error) {
	var sk PrivateKey
	if len(raw) != nonceSize+secretbox.Overhead+Size {
		return sk, ptm.Errorf(ptm.EnclaveStorageDecrypt, "locked key is %d bytes, want %d", len(raw), nonceSize+secretbox.Overhead+Size)
	}
	var nonce [nonceSize]byte
	copy(nonce[:], raw[:nonceSize])
	k := deriveKey(password, nonce[:saltSize])
	out, ok := secretbox.Open(nil, raw[nonceSize:], &nonce, &k)
	if !ok {
		return sk, ptm.Errorf(ptm.EnclaveStorageDecrypt, "wrong password")
	}
	copy(sk[:], out)
	clear(out)
	return sk, nil
}

func deriveKey(password string, salt []byte) [32]byte {
	var k [32]byte
	copy(k[:], argon2.Key([]byte(password), salt, argonOps, argonMemKiB, argonThreads, 32))
	return k
}

// MarshalPrivateKey returns the .key file JSON for sk: unlocked when password
// is empty, else "sodium-encrypted" under an argon2i key of the password.
func MarshalPrivateKey(sk PrivateKey, password string) ([]byte, error) {
	var sf storedKey
	if password == "" {
		sf.Type = TypeUnlocked
		sf.Data.Bytes = base64.StdEncoding.EncodeToString(sk[:])
	} else {
		var nonce [nonceSize]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return nil, err
		}
		k := deriveKey(password, nonce[:saltSize])
		sealed := secretbox.Seal(nonce[:], sk[:], &nonce, &k)
		sf.Type = TypeLocked
		sf.Data.Bytes = base64.StdEncoding.EncodeToString(sealed)
	}
	// Field order as Orion writes it: data, then type.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sf); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// WriteKeyPairFiles writes base+".pub" (the Base64 public key, no newline)
// and base+".key" (see MarshalPrivateKey). Neither file may exist already;
// the private key file is readable by its owner only.
func WriteKeyPairFiles(base string, kp KeyPair, password string) error {
	for _, p := range []string{base + ".pub", base + ".key"} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("write %s: %w", p, os.ErrExist)
		}
	}
	keyJSON, err := MarshalPrivateKey(kp.Private, password)
	if err != nil {
		return err
	}
	if err := writeNew(base+".pub", []byte(kp.Public.String()), 0o644); err != nil {
		return err
	}
	return writeNew(base+".key", keyJSON, 0o600)
}

func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
