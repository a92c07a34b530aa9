package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/internal/genconfig"
	"github.com/basaltchain/basalt/ptm/keys"
)

// The output of generate-blockchain-config becomes the chart's values
// (genesis, each validator's address and enode ID, privacy public keys)
// and a Secret whose keys match them: the node keys, privacy key pairs
// that read back, and a keystore the password opens to the signer's key.
func TestChartConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := genconfig.Parse([]byte(`{"genesis":{"config":{"chainId":1337,"qbft":{"blockperiodseconds":1}},"gasLimit":"0x1fffffffffffff","difficulty":"0x1","alloc":{}},
		"blockchain":{"nodes":{"generate":true,"count":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := genconfig.Generate(cfg, filepath.Join(dir, "net"), genconfig.DefaultFiles)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := crypto.GenerateKey()
	keyFile := filepath.Join(dir, "signer.key")
	if err := os.WriteFile(keyFile, []byte("0x"+hex.EncodeToString(crypto.FromECDSA(signer))), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "chart")
	if err := run(options{from: filepath.Join(dir, "net"), to: out, secret: "keys", namespace: "chain", privacy: true, signerKey: keyFile}); err != nil {
		t.Fatal(err)
	}
	var values struct {
		Network struct {
			Genesis    string
			ChainID    uint64 `json:"chainId"`
			Consensus  string
			KeysSecret string `json:"keysSecret"`
			Validators []Validator
		}
	}
	var secret struct {
		Kind       string
		Metadata   struct{ Name, Namespace string }
		StringData map[string]string `json:"stringData"`
	}
	for f, v := range map[string]any{"network-values.json": &values, "network-keys.json": &secret} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || json.Unmarshal(data, v) != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	n := values.Network
	if n.ChainID != 1337 || n.Consensus != "qbft" || n.KeysSecret != "keys" || !strings.Contains(n.Genesis, `"extraData"`) || len(n.Validators) != 3 {
		t.Fatalf("values %+v", n)
	}
	if secret.Kind != "Secret" || secret.Metadata.Name != "keys" || secret.Metadata.Namespace != "chain" || len(secret.StringData) != 3*3+2 {
		t.Fatalf("secret %s %+v, %d keys", secret.Kind, secret.Metadata, len(secret.StringData))
	}
	generated := map[string]bool{}
	for _, g := range nodes {
		generated[strings.ToLower(g.Address.Hex())] = true
	}
	for i, v := range n.Validators {
		name := fmt.Sprintf("validator-%d", i)
		key, err := crypto.HexToECDSA(strings.TrimPrefix(secret.StringData[name+".key"], "0x"))
		if err != nil || strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()) != v.Address || !generated[v.Address] {
			t.Errorf("%s: key %v, address %s", name, err, v.Address)
		}
		if hex.EncodeToString(crypto.FromECDSAPub(&key.PublicKey)[1:]) != v.EnodeID {
			t.Errorf("%s: enode ID %s", name, v.EnodeID)
		}
		os.WriteFile(filepath.Join(dir, "tm.pub"), []byte(secret.StringData[name+".tm.pub"]), 0o600)
		os.WriteFile(filepath.Join(dir, "tm.key"), []byte(secret.StringData[name+".tm.key"]), 0o600)
		pub, err := keys.ReadPublicKeyFile(filepath.Join(dir, "tm.pub"))
		if err != nil || pub.String() != v.PrivacyPublicKey {
			t.Errorf("%s: privacy public key %v %s", name, err, v.PrivacyPublicKey)
		}
		priv, err := keys.ReadPrivateKeyFile(filepath.Join(dir, "tm.key"), nil)
		derived, derr := keys.PublicFor(priv)
		if err != nil || derr != nil || derived != pub {
			t.Errorf("%s: privacy private key %v", name, err)
		}
	}
	k, err := keystore.DecryptKey([]byte(secret.StringData["signer.keystore"]), secret.StringData["signer.password"])
	if err != nil || !k.PrivateKey.Equal(signer) {
		t.Errorf("signer keystore: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(out, "network-keys.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("network-keys.json mode %v %v", fi, err)
	}
	if err := run(options{from: filepath.Join(dir, "missing"), to: out}); err == nil {
		t.Error("a missing folder was accepted")
	}
}
