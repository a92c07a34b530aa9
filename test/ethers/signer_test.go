package ethers

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/scrypt"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/proctest"
)

// startSigner runs basalt-signer in front of the node at nodeURL, holding
// dev account i in a V3 keystore (file-based-signer), and returns its
// JSON-RPC URL once /upcheck answers. It is stopped when the test ends.
func startSigner(t *testing.T, nodeURL string, i int) string {
	t.Helper()
	u, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(config.DevAccounts[i].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kf, pf := writeKeystore(t, dir, key, "dev password")
	data := t.TempDir() // ethsigner.ports
	cmd := exec.Command(proctest.Build(t, "./cmd/basalt-signer"),
		"--chain-id=1337", "--downstream-http-host="+u.Hostname(), "--downstream-http-port="+u.Port(),
		"--http-listen-port=0", "--data-path="+data,
		"file-based-signer", "-k", kf, "-p", pf)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETHSIGNER_") { // no stray configuration
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p := proctest.Start(t, "signer", cmd, new(proctest.LogBuffer))
	t.Cleanup(func() {
		if !p.Stop(os.Interrupt, 10*time.Second) {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("signer logs:\n%s", p.Logs())
		}
	})
	return p.WaitSignerUp(t, data, 30*time.Second)
}

// writeKeystore writes key as a V3 keystore (scrypt, light parameters) and
// its password file, and returns their paths.
func writeKeystore(t *testing.T, dir string, key *ecdsa.PrivateKey, password string) (string, string) {
	t.Helper()
	salt, iv := make([]byte, 32), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	dk, err := scrypt.Key([]byte(password), salt, 1<<12, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		t.Fatal(err)
	}
	text := make([]byte, 32)
	cipher.NewCTR(block, iv).XORKeyStream(text, crypto.FromECDSA(key))
	js := fmt.Sprintf(`{"address":"%x","crypto":{"cipher":"aes-128-ctr","ciphertext":"%x","cipherparams":{"iv":"%x"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":4096,"p":1,"r":8,"salt":"%x"},"mac":"%x"},"id":"00000000-0000-4000-8000-000000000001","version":3}`,
		crypto.PubkeyToAddress(key.PublicKey), text, iv, salt, crypto.Keccak256(dk[16:32], text))
	kf, pf := filepath.Join(dir, "key.json"), filepath.Join(dir, "key.password")
	if err := os.WriteFile(kf, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kf, pf
}
