package keys

import (
	"bytes"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func addrHex(k *ecdsa.PrivateKey) string {
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex()[2:])
}

func rawFile(t testing.TB, dir, name string, k *ecdsa.PrivateKey) string {
	return writeFile(t, filepath.Join(dir, name), fmt.Sprintf("[metadata]\ndescription = \"test\"\n\n[signing]\ntype = \"raw-signer\"\nkey = \"0x%x\"\n", crypto.FromECDSA(k)))
}

// logBuf collects log lines (the test logs from one goroutine).
type logBuf struct{ bytes.Buffer }

func TestDirLoadsEveryType(t *testing.T) {
	dir := t.TempDir()
	k1, _ := crypto.GenerateKey()
	k2, _ := crypto.GenerateKey()
	k3, _ := crypto.GenerateKey()
	rawFile(t, dir, "prefix_"+addrHex(k1)+".toml", k1)

	writeFile(t, filepath.Join(dir, "k2.json"), string(encryptV3(t, k2, "pw")))
	writeFile(t, filepath.Join(dir, "k2.pw"), "pw\n")
	writeFile(t, filepath.Join(dir, strings.ToUpper(addrHex(k2))+".toml"),
		"[signing]\ntype = \"file-based-signer\"\nkey-file = \"k2.json\"\npassword-file = \""+filepath.Join(dir, "k2.pw")+"\"\n")

	fv := &fakeVault{token: "tok", secrets: map[string]map[string]any{"/v1/secret/data/k3": {"value": fmt.Sprintf("%x", crypto.FromECDSA(k3))}}}
	vcfg := vaultConfig(t, startVault(t, fv), dir, "tok")
	writeFile(t, filepath.Join(dir, addrHex(k3)+".toml"), fmt.Sprintf(
		"[signing]\ntype = \"hashicorp-signer\"\nsigning-key-path = \"/v1/secret/data/k3\"\nhost = %q\nport = %d\nauth-file = \"token\"\ntimeout = 2000\ntls-enabled = false\n",
		vcfg.Host, vcfg.Port))
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a key")

	d, err := OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []common.Address{crypto.PubkeyToAddress(k1.PublicKey), crypto.PubkeyToAddress(k2.PublicKey), crypto.PubkeyToAddress(k3.PublicKey)}
	sortAddresses(want)
	got := d.Accounts()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	for _, k := range []*ecdsa.PrivateKey{k1, k2, k3} {
		key, ok := d.Key(crypto.PubkeyToAddress(k.PublicKey))
		if !ok {
			t.Fatalf("no key for %s", addrHex(k))
		}
		h := crypto.Keccak256([]byte("x"))
		sig, err := key.Sign(h)
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := crypto.SigToPub(h, sig)
		if crypto.PubkeyToAddress(*pub) != key.Address() {
			t.Error("signature does not recover")
		}
	}
	if _, ok := d.Key(common.Address{1}); ok {
		t.Error("unknown address found")
	}
}

func startVault(t testing.TB, fv *fakeVault) string {
	srv := newHTTPTestServer(fv)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestOpenDirRefusesBadFiles(t *testing.T) {
	k, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"bad toml":        {map[string]string{addrHex(k) + ".toml": "[signing\n"}, ".toml"},
		"no signing":      {map[string]string{addrHex(k) + ".toml": "[metadata]\n"}, "no [signing] table"},
		"unknown type":    {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"hsm\"\n"}, `unknown type "hsm"`},
		"no type":         {map[string]string{addrHex(k) + ".toml": "[signing]\nkey = \"00\"\n"}, "has no type"},
		"azure":           {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"azure-signer\"\nkey-vault-name = \"v\"\n"}, "not supported"},
		"unknown key":     {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"raw-signer\"\nkey = \"00\"\nkeyfile = \"x\"\n"}, `unknown key "signing.keyfile"`},
		"missing field":   {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"file-based-signer\"\nkey-file = \"x\"\n"}, `needs "password-file"`},
		"bad raw key":     {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"raw-signer\"\nkey = \"0xzz\"\n"}, "not valid hex"},
		"missing keyfile": {map[string]string{addrHex(k) + ".toml": "[signing]\ntype = \"file-based-signer\"\nkey-file = \"none.json\"\npassword-file = \"pw\"\n"}, "none.json"},
		"name mismatch":   {map[string]string{addrHex(other) + ".toml": fmt.Sprintf("[signing]\ntype = \"raw-signer\"\nkey = \"%x\"\n", crypto.FromECDSA(k))}, "not the one in the file name"},
		"bad name":        {map[string]string{"key.toml": fmt.Sprintf("[signing]\ntype = \"raw-signer\"\nkey = \"%x\"\n", crypto.FromECDSA(k))}, "must end with the account's hex address"},
		"duplicate": {map[string]string{
			"a" + addrHex(k) + ".toml": fmt.Sprintf("[signing]\ntype = \"raw-signer\"\nkey = \"%x\"\n", crypto.FromECDSA(k)),
			"b" + addrHex(k) + ".toml": fmt.Sprintf("[signing]\ntype = \"raw-signer\"\nkey = \"%x\"\n", crypto.FromECDSA(k)),
		}, "more than one key file"},
	}
	for name, tc := range cases {
		dir := t.TempDir()
		var file string
		for n, c := range tc.files {
			file = writeFile(t, filepath.Join(dir, n), c)
		}
		_, err := OpenDir(dir, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name != "duplicate" && !strings.Contains(err.Error(), file) {
			t.Errorf("%s: error does not name %s: %v", name, file, err)
		}
	}
	if _, err := OpenDir(filepath.Join(t.TempDir(), "none"), nil); err == nil {
		t.Error("missing directory accepted")
	}
	f := writeFile(t, filepath.Join(t.TempDir(), "f"), "")
	if _, err := OpenDir(f, nil); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as directory: %v", err)
	}
}

func TestDirPicksUpChanges(t *testing.T) {
	dir := t.TempDir()
	var logs logBuf
	d, err := OpenDir(dir, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Accounts()) != 0 {
		t.Fatal("empty directory has accounts")
	}
	k1, _ := crypto.GenerateKey()
	a1 := crypto.PubkeyToAddress(k1.PublicKey)

	// Added at runtime: usable at once, by lookup or by listing.
	rawFile(t, dir, addrHex(k1)+".toml", k1)
	if _, ok := d.Key(a1); !ok {
		t.Fatal("new key file not found by Key")
	}
	if got := d.Accounts(); len(got) != 1 || got[0] != a1 {
		t.Fatalf("accounts %v", got)
	}

	// A bad file added at runtime is logged and skipped.
	k2, _ := crypto.GenerateKey()
	bad := writeFile(t, filepath.Join(dir, addrHex(k2)+".toml"), "[signing]\ntype = \"raw-signer\"\nkey = \"0x00\"\n")
	if len(d.Accounts()) != 1 {
		t.Fatal("bad file used")
	}
	if !strings.Contains(logs.String(), bad) {
		t.Errorf("bad file not logged: %s", logs.String())
	}
	// Fixed: picked up (the size changes).
	rawFile(t, dir, addrHex(k2)+".toml", k2)
	if _, ok := d.Key(crypto.PubkeyToAddress(k2.PublicKey)); !ok {
		t.Error("fixed file not picked up")
	}

	// Removed: gone from the list at once, and from lookups once the index
	// is a second old.
	if err := os.Remove(filepath.Join(dir, addrHex(k1)+".toml")); err != nil {
		t.Fatal(err)
	}
	if len(d.Accounts()) != 1 {
		t.Error("removed file still listed")
	}
	rawFile(t, dir, addrHex(k1)+".toml", k1)
	d.Accounts()
	os.Remove(filepath.Join(dir, addrHex(k1)+".toml"))
	if _, ok := d.Key(a1); !ok {
		t.Error("a fresh index should still hold the key")
	}
	time.Sleep(refreshInterval + 50*time.Millisecond)
	if _, ok := d.Key(a1); ok {
		t.Error("removed key still usable after the refresh interval")
	}
}

func TestDirVaultRetry(t *testing.T) {
	dir := t.TempDir()
	k, _ := crypto.GenerateKey()
	fv := &fakeVault{token: "tok", secrets: map[string]map[string]any{}}
	vcfg := vaultConfig(t, startVault(t, fv), dir, "tok")
	writeFile(t, filepath.Join(dir, addrHex(k)+".toml"), fmt.Sprintf(
		"[signing]\ntype = \"hashicorp-signer\"\nsigning-key-path = \"/v1/secret/data/k\"\nhost = %q\nport = %d\nauth-file = \"token\"\ntls-enabled = false\n",
		vcfg.Host, vcfg.Port))
	if _, err := OpenDir(dir, nil); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("missing secret: %v", err)
	}
	// At runtime a Vault failure is retried without a file change.
	os.Rename(filepath.Join(dir, addrHex(k)+".toml"), filepath.Join(dir, "later"))
	d, err := OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "later"), filepath.Join(dir, addrHex(k)+".toml"))
	if len(d.Accounts()) != 0 {
		t.Fatal("key without secret listed")
	}
	fv.secrets["/v1/secret/data/k"] = map[string]any{"value": fmt.Sprintf("%x", crypto.FromECDSA(k))}
	d.scanMu.Lock()
	for _, e := range d.files {
		e.loadedAt = e.loadedAt.Add(-vaultRetryInterval)
	}
	d.scanMu.Unlock()
	if len(d.Accounts()) != 1 {
		t.Error("Vault not asked again")
	}
}
