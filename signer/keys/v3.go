package keys

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/scrypt"
)

// V3 keystores (the Web3 Secret Storage Definition, as written by geth,
// web3j and Besu tooling) are decrypted here rather than with go-ethereum's
// accounts/keystore: that package also watches directories and pulls in
// modules (fsnotify, uuid) that are not part of Basalt's module graph.
// The format is small and fixed: a KDF (scrypt or PBKDF2-HMAC-SHA256) turns
// the password into a 32-byte derived key; keccak256(dk[16:32] ‖ ciphertext)
// must equal the MAC; AES-128-CTR with dk[0:16] and the IV decrypts the
// private key.

// ErrWrongPassword is returned (wrapped) when the password does not open a
// keystore: the MAC does not match.
var ErrWrongPassword = errors.New("wrong password (the key file's MAC does not match)")

// maxScryptMemory bounds the memory a key file's scrypt parameters may ask
// for (128·r·n bytes), so a hostile file cannot exhaust memory. geth's
// standard parameters need 256 MiB.
const maxScryptMemory = 1 << 30

type v3File struct {
	Address string   `json:"address"`
	Crypto  v3Crypto `json:"crypto"`
	Version json.RawMessage
}

type v3Crypto struct {
	Cipher       string `json:"cipher"`
	CipherText   string `json:"ciphertext"`
	CipherParams struct {
		IV string `json:"iv"`
	} `json:"cipherparams"`
	KDF       string          `json:"kdf"`
	KDFParams json.RawMessage `json:"kdfparams"`
	MAC       string          `json:"mac"`
}

type scryptParams struct {
	N     int    `json:"n"`
	R     int    `json:"r"`
	P     int    `json:"p"`
	DKLen int    `json:"dklen"`
	Salt  string `json:"salt"`
}

type pbkdf2Params struct {
	C     int    `json:"c"`
	DKLen int    `json:"dklen"`
	PRF   string `json:"prf"`
	Salt  string `json:"salt"`
}

// DecryptV3 decrypts a V3 keystore JSON document with password.
func DecryptV3(keyJSON []byte, password string) (*PrivateKey, error) {
	var f v3File
	if err := json.Unmarshal(keyJSON, &f); err != nil {
		return nil, fmt.Errorf("not a V3 keystore: %v", err)
	}
	if v := strings.TrimSpace(string(f.Version)); v != "3" {
		if v == "" {
			v = "missing"
		}
		return nil, fmt.Errorf("unsupported keystore version %s, want 3", v)
	}
	c := f.Crypto
	if c.Cipher != "aes-128-ctr" {
		return nil, fmt.Errorf("unsupported cipher %q, want aes-128-ctr", c.Cipher)
	}
	mac, err := hexField("crypto.mac", c.MAC)
	if err != nil {
		return nil, err
	}
	iv, err := hexField("crypto.cipherparams.iv", c.CipherParams.IV)
	if err != nil {
		return nil, err
	}
	if len(iv) != aes.BlockSize {
		return nil, fmt.Errorf("crypto.cipherparams.iv is %d bytes, want %d", len(iv), aes.BlockSize)
	}
	text, err := hexField("crypto.ciphertext", c.CipherText)
	if err != nil {
		return nil, err
	}
	if len(text) == 0 || len(text) > 32 {
		return nil, fmt.Errorf("crypto.ciphertext is %d bytes, want at most 32", len(text))
	}
	dk, err := deriveKey(c.KDF, c.KDFParams, password)
	if err != nil {
		return nil, err
	}
	want := crypto.Keccak256(dk[16:32], text)
	if subtle.ConstantTimeCompare(want, mac) != 1 {
		return nil, ErrWrongPassword
	}
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		return nil, err
	}
	plain := make([]byte, 32)
	// Keys shorter than 32 bytes (leading zeros dropped by old writers) are
	// left-padded.
	cipher.NewCTR(block, iv).XORKeyStream(plain[32-len(text):], text)
	k, err := crypto.ToECDSA(plain)
	if err != nil {
		return nil, errors.New("the decrypted private key is not a valid secp256k1 key")
	}
	key := NewPrivateKey(k)
	if f.Address != "" {
		if a, err := hex.DecodeString(strings.TrimPrefix(f.Address, "0x")); err == nil && len(a) == 20 &&
			common.BytesToAddress(a) != key.Address() {
			return nil, fmt.Errorf("the key file says address 0x%x but its key is for %s", a, key.Address().Hex())
		}
	}
	return key, nil
}

func deriveKey(kdf string, raw json.RawMessage, password string) ([]byte, error) {
	switch kdf {
	case "scrypt":
		var p scryptParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("crypto.kdfparams: %v", err)
		}
		salt, err := hexField("crypto.kdfparams.salt", p.Salt)
		if err != nil {
			return nil, err
		}
		if p.DKLen < 32 {
			return nil, fmt.Errorf("crypto.kdfparams.dklen is %d, want at least 32", p.DKLen)
		}
		if p.N <= 1 || p.N&(p.N-1) != 0 || p.R <= 0 || p.P <= 0 {
			return nil, fmt.Errorf("invalid scrypt parameters n=%d r=%d p=%d", p.N, p.R, p.P)
		}
		if int64(128)*int64(p.R)*int64(p.N) > maxScryptMemory {
			return nil, fmt.Errorf("scrypt parameters n=%d r=%d need more than %d bytes of memory", p.N, p.R, maxScryptMemory)
		}
		dk, err := scrypt.Key([]byte(password), salt, p.N, p.R, p.P, p.DKLen)
		if err != nil {
			return nil, fmt.Errorf("scrypt: %v", err)
		}
		return dk, nil
	case "pbkdf2":
		var p pbkdf2Params
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("crypto.kdfparams: %v", err)
		}
		if p.PRF != "hmac-sha256" {
			return nil, fmt.Errorf("unsupported PBKDF2 PRF %q, want hmac-sha256", p.PRF)
		}
		salt, err := hexField("crypto.kdfparams.salt", p.Salt)
		if err != nil {
			return nil, err
		}
		if p.DKLen < 32 || p.C <= 0 {
			return nil, fmt.Errorf("invalid PBKDF2 parameters c=%d dklen=%d", p.C, p.DKLen)
		}
		return pbkdf2.Key(sha256.New, password, salt, p.C, p.DKLen)
	}
	return nil, fmt.Errorf("unsupported KDF %q, want scrypt or pbkdf2", kdf)
}

func hexField(name, s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%s is not valid hex", name)
	}
	return b, nil
}

// PasswordCandidates returns the passwords a password file may hold, most
// likely first: its first line without the line break (what `echo pw > f`
// and most tools write), then, if different, the whole content as is
// (EthSigner 0.4.0 used the entire file).
func PasswordCandidates(content []byte) []string {
	first := content
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	first = bytes.TrimSuffix(first, []byte("\r"))
	out := []string{string(first)}
	if !bytes.Equal(first, content) {
		out = append(out, string(content))
	}
	return out
}

// LoadKeystoreFile decrypts the V3 keystore keyFile with the password in
// passwordFile (see PasswordCandidates). Errors name the file at fault.
func LoadKeystoreFile(keyFile, passwordFile string) (*PrivateKey, error) {
	keyJSON, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", keyFile, unwrapPathError(err))
	}
	pw, err := os.ReadFile(passwordFile)
	if err != nil {
		return nil, fmt.Errorf("password file %s: %w", passwordFile, unwrapPathError(err))
	}
	var lastErr error
	for _, p := range PasswordCandidates(pw) {
		k, err := DecryptV3(keyJSON, p)
		if err == nil {
			return k, nil
		}
		lastErr = err
		if !errors.Is(err, ErrWrongPassword) {
			break // a malformed file does not get better with another password
		}
	}
	if errors.Is(lastErr, ErrWrongPassword) {
		return nil, fmt.Errorf("key file %s: the password in %s does not open it: %w", keyFile, passwordFile, lastErr)
	}
	return nil, fmt.Errorf("key file %s: %w", keyFile, lastErr)
}

// unwrapPathError drops the path from an *os.PathError, which the caller
// already names.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
