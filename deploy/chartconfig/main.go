// Command chartconfig turns the output of `basalt operator
// generate-blockchain-config` into what the basalt-network Helm chart
// (deploy/helm/basalt-network) takes: a values file with the genesis and
// each validator's public identity, and a Secret manifest with the keys.
//
//	go run ./deploy/chartconfig --from networkFiles --to chart-config [--privacy] [--signer-key FILE]
//
// writes chart-config/network-values.json (give it to helm with -f) and
// chart-config/network-keys.json (kubectl apply -f it once, before the
// release). Both are JSON, which Helm and kubectl read as YAML. With
// --privacy each validator gets a basalt-privacy key pair; --signer-key
// (a hex secp256k1 key file) gives basalt-signer a V3 keystore and its
// password. The keys are new for every run: run it once per network.
package main

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/ptm/keys"
)

func main() {
	var o options
	flag.StringVar(&o.from, "from", "", "Output folder of basalt operator generate-blockchain-config (genesis.json, keys/<address>/key.priv)")
	flag.StringVar(&o.to, "to", "", "Folder to write network-values.json and network-keys.json into")
	flag.StringVar(&o.secret, "secret-name", "basalt-network-keys", "Name of the Secret holding the keys (the chart's network.keysSecret)")
	flag.StringVar(&o.namespace, "namespace", "", "Namespace of the Secret (default: kubectl's)")
	flag.BoolVar(&o.privacy, "privacy", false, "Generate a basalt-privacy key pair per validator")
	flag.StringVar(&o.signerKey, "signer-key", "", "Hex secp256k1 key file for basalt-signer (stored as a V3 keystore)")
	flag.Parse()
	if o.from == "" || o.to == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: chartconfig --from DIR --to DIR [--privacy] [--signer-key FILE] [--secret-name NAME] [--namespace NS]")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "chartconfig:", err)
		os.Exit(1)
	}
}

type options struct {
	from, to, secret, namespace, signerKey string
	privacy                                bool
}

// Validator is one validator's public identity in the values file.
type Validator struct {
	Address          string `json:"address"`
	EnodeID          string `json:"enodeId"`
	PrivacyPublicKey string `json:"privacyPublicKey,omitempty"`
}

func run(o options) error {
	genesis, err := os.ReadFile(filepath.Join(o.from, "genesis.json"))
	if err != nil {
		return err
	}
	var g struct {
		Config map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(genesis, &g); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(o.from, "genesis.json"), err)
	}
	var chainID uint64
	if err := json.Unmarshal(g.Config["chainId"], &chainID); err != nil {
		return fmt.Errorf("genesis.json has no chainId")
	}
	consensus := ""
	for _, c := range []string{"qbft", "ibft2", "clique", "ethash"} {
		if _, ok := g.Config[c]; ok {
			consensus = c
		}
	}
	dirs, err := filepath.Glob(filepath.Join(o.from, "keys", "0x*"))
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return fmt.Errorf("no keys/<address>/ folder in %s: generate the keys with the nodes' \"generate\": true", o.from)
	}
	secret := map[string]string{}
	var vals []Validator
	for i, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "key.priv"))
		if err != nil {
			return err
		}
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(raw)), "0x"))
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(d, "key.priv"), err)
		}
		v := Validator{Address: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()),
			EnodeID: hex.EncodeToString(crypto.FromECDSAPub(&key.PublicKey)[1:])}
		name := fmt.Sprintf("validator-%d", i)
		secret[name+".key"] = strings.TrimSpace(string(raw))
		if o.privacy {
			pub, priv, err := privacyKeys()
			if err != nil {
				return err
			}
			secret[name+".tm.pub"], secret[name+".tm.key"] = pub, priv
			v.PrivacyPublicKey = pub
		}
		vals = append(vals, v)
	}
	if o.signerKey != "" {
		raw, err := os.ReadFile(o.signerKey)
		if err != nil {
			return err
		}
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(raw)), "0x"))
		if err != nil {
			return fmt.Errorf("%s: %v", o.signerKey, err)
		}
		pw := make([]byte, 24)
		if _, err := rand.Read(pw); err != nil {
			return err
		}
		password := hex.EncodeToString(pw)
		ks, err := keystoreJSON(key, password)
		if err != nil {
			return err
		}
		secret["signer.keystore"], secret["signer.password"] = string(ks), password
	}
	values := map[string]any{"network": map[string]any{
		"genesis": string(genesis), "chainId": chainID, "consensus": consensus,
		"validators": vals, "keysSecret": o.secret,
	}}
	meta := map[string]any{"name": o.secret, "labels": map[string]string{"app.kubernetes.io/part-of": "basalt-network"}}
	if o.namespace != "" {
		meta["namespace"] = o.namespace
	}
	manifest := map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": meta, "stringData": secret}
	if err := os.MkdirAll(o.to, 0o700); err != nil {
		return err
	}
	return errors.Join(writeJSON(filepath.Join(o.to, "network-values.json"), values, 0o644),
		writeJSON(filepath.Join(o.to, "network-keys.json"), manifest, 0o600))
}

// privacyKeys makes a basalt-privacy key pair and returns its files'
// contents (tm.pub, tm.key).
func privacyKeys() (pub, priv string, err error) {
	kp, err := keys.Generate(nil)
	if err != nil {
		return "", "", err
	}
	dir, err := os.MkdirTemp("", "chartconfig")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(dir)
	if err := keys.WriteKeyPairFiles(filepath.Join(dir, "tm"), kp, ""); err != nil {
		return "", "", err
	}
	p, err := os.ReadFile(filepath.Join(dir, "tm.pub"))
	if err != nil {
		return "", "", err
	}
	k, err := os.ReadFile(filepath.Join(dir, "tm.key"))
	return strings.TrimSpace(string(p)), string(k), err
}

// keystoreJSON is key as a V3 keystore file locked by password.
func keystoreJSON(key *ecdsa.PrivateKey, password string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "chartconfig")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	acct, err := keystore.NewKeyStore(dir, keystore.StandardScryptN, keystore.StandardScryptP).ImportECDSA(key, password)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(acct.URL.Path)
}

func writeJSON(path string, v any, mode os.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), mode)
}
