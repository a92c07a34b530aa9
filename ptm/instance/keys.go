package instance

import (
	"fmt"

	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/keys"
)

// LoadKeys reads the key pairs and always-send-to keys cfg names, as the
// instance does at start-up (for commands that work on the store offline,
// such as the Tessera import).
func LoadKeys(cfg *config.Config) ([]keys.KeyPair, []keys.PublicKey, error) { return loadKeys(cfg) }

// loadKeys reads the key pairs and always-send-to keys a Config names. Every
// error names the configuration key and file.
func loadKeys(cfg *config.Config) ([]keys.KeyPair, []keys.PublicKey, error) {
	passwords, err := cfg.ReadPasswords()
	if err != nil {
		return nil, nil, err
	}
	pairs := make([]keys.KeyPair, len(cfg.PublicKeys))
	seen := map[keys.PublicKey]int{}
	for i := range cfg.PublicKeys {
		pub, err := keys.ReadPublicKeyFile(cfg.PublicKeys[i])
		if err != nil {
			return nil, nil, fmt.Errorf("publickeys[%d]: %w", i, err)
		}
		priv, err := keys.ReadPrivateKeyFile(cfg.PrivateKeys[i], passwords[i])
		if err != nil {
			return nil, nil, fmt.Errorf("privatekeys[%d]: %w", i, err)
		}
		derived, err := keys.PublicFor(priv)
		if err != nil || derived != pub {
			return nil, nil, fmt.Errorf("privatekeys[%d] (%s) is not the private key of publickeys[%d] (%s)", i, cfg.PrivateKeys[i], i, cfg.PublicKeys[i])
		}
		if j, dup := seen[pub]; dup {
			return nil, nil, fmt.Errorf("publickeys[%d] is the same key as publickeys[%d] (%s)", i, j, pub)
		}
		seen[pub] = i
		pairs[i] = keys.KeyPair{Public: pub, Private: priv}
	}
	always := make([]keys.PublicKey, len(cfg.AlwaysSendTo))
	for i, path := range cfg.AlwaysSendTo {
		k, err := keys.ReadPublicKeyFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("alwayssendto[%d]: %w", i, err)
		}
		always[i] = k
	}
	return pairs, always, nil
}
