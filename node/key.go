package node

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// LoadOrCreateKey reads the node key file (Besu format: one line, 0x + 64
// hex digits, optional 0x and shorter values left-padded) or, when the file
// does not exist, generates a key and writes it there with mode 0600.
func LoadOrCreateKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key, err := crypto.GenerateKey()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create node key directory: %w", err)
		}
		enc := hexutil.Encode(crypto.FromECDSA(key))
		if err := os.WriteFile(path, []byte(enc), 0o600); err != nil {
			return nil, fmt.Errorf("write node key %s: %w", path, err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read node key %s: %w", path, err)
	}
	text := strings.TrimSpace(string(data))
	if strings.Contains(text, "\n") {
		return nil, fmt.Errorf("node key %s: expected one line", path)
	}
	text = strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X")
	if len(text) > 64 || len(text) == 0 {
		return nil, fmt.Errorf("node key %s: expected 32 bytes of hex", path)
	}
	text = strings.Repeat("0", 64-len(text)) + text
	key, err := crypto.HexToECDSA(text)
	if err != nil {
		return nil, fmt.Errorf("node key %s: %w", path, err)
	}
	return key, nil
}
