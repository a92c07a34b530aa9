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
	// TypeArgon2SBox is Tessera's (and Constellation's) password-locked
	// key: the key in a NaCl secretbox under an Argon2 hash of the
	// password, with the Argon2 options in the file.
	TypeArgon2SBox = "argon2sbox"
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

// storedKey is the JSON of a .key file: {"data":{"bytes":"<b64>"},"type":"<type>"},
// or Tessera's locked form {"data":{"aopts":{…},"snonce":…,"asalt":…,"sbox":…},"type":"argon2sbox"}.
type storedKey struct {
	Data struct {
		Bytes  string     `json:"bytes"`
		AOpts  *argonOpts `json:"aopts,omitempty"`
		SNonce string     `json:"snonce,omitempty"`
		ASalt  string     `json:"asalt,omitempty"`
		SBox   string     `json:"sbox,omitempty"`
	} `json:"data"`
	Type string `json:"type"`
}

// argonOpts are an argon2sbox key's Argon2 options, as Tessera writes them
// (memory in KiB).
type argonOpts struct {
	Variant     string `json:"variant"`
	Memory      uint32 `json:"memory"`
	Iterations  uint32 `json:"iterations"`
	Parallelism uint32 `json:"parallelism"`
}

// Bounds on an argon2sbox key's options: a key file names them, and a
// mistyped one must not make the start-up take all memory or hours.
// Tessera's defaults are 1 GiB, 10 iterations, 4 lanes.
const (
	maxArgonMemKiB     = 4 << 20 // 4 GiB
	maxArgonIterations = 1000
)

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

// ReadPrivateKeyFile reads a .key file. A "sodium-encrypted" (Orion) or
// "argon2sbox" (Tessera) key needs password; the error of a failure carries Orion's code
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
	if sf.Type == TypeArgon2SBox {
		if password == nil {
			return sk, ptm.Errorf(ptm.EnclaveMissingPrivateKeyPasswords, "the key is locked (type %q) and no password is given", TypeArgon2SBox)
		}
		return unlockSBox(&sf, *password)
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

// unlockSBox opens Tessera's argon2sbox key: secretbox(sk, snonce, K) with
// K the 32-byte Argon2 hash (version 1.3, the file's variant and options)
// of the password, as UTF-8, and asalt. Tessera hashes with libargon2's
// raw hash; Argon2d, which Tessera allows but never writes by default, has
// no Go implementation here and is refused.
func unlockSBox(sf *storedKey, password string) (PrivateKey, error) {
	var sk PrivateKey
	o := sf.Data.AOpts
	if o == nil {
		return sk, fmt.Errorf("data.aopts: missing")
	}
	nonce, err1 := base64.StdEncoding.DecodeString(sf.Data.SNonce)
	salt, err2 := base64.StdEncoding.DecodeString(sf.Data.ASalt)
	box, err3 := base64.StdEncoding.DecodeString(sf.Data.SBox)
	switch {
	case err1 != nil || len(nonce) != nonceSize:
		return sk, fmt.Errorf("data.snonce: want %d bytes in Base64", nonceSize)
	case err2 != nil || len(salt) == 0:
		return sk, fmt.Errorf("data.asalt: want a salt in Base64")
	case err3 != nil || len(box) != secretbox.Overhead+Size:
		return sk, fmt.Errorf("data.sbox: want %d bytes in Base64", secretbox.Overhead+Size)
	case o.Memory == 0 || o.Memory > maxArgonMemKiB:
		return sk, fmt.Errorf("data.aopts.memory: %d KiB, want 1 to %d", o.Memory, maxArgonMemKiB)
	case o.Iterations == 0 || o.Iterations > maxArgonIterations:
		return sk, fmt.Errorf("data.aopts.iterations: %d, want 1 to %d", o.Iterations, maxArgonIterations)
	case o.Parallelism == 0 || o.Parallelism > 255:
		return sk, fmt.Errorf("data.aopts.parallelism: %d, want 1 to 255", o.Parallelism)
	}
	var hash []byte
	switch o.Variant {
	case "i":
		hash = argon2.Key([]byte(password), salt, o.Iterations, o.Memory, uint8(o.Parallelism), 32)
	case "id":
		hash = argon2.IDKey([]byte(password), salt, o.Iterations, o.Memory, uint8(o.Parallelism), 32)
	case "d":
		return sk, ptm.Errorf(ptm.EnclaveUnsupportedPrivateKeyType, "Argon2d keys are not supported: lock the key again with variant \"id\" or \"i\" (tessera -updatepassword)")
	default:
		return sk, fmt.Errorf("data.aopts.variant: %q, want \"id\" or \"i\"", o.Variant)
	}
	var n [nonceSize]byte
	var k [32]byte
	copy(n[:], nonce)
	copy(k[:], hash)
	clear(hash)
	out, ok := secretbox.Open(nil, box, &n, &k)
	clear(k[:])
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
