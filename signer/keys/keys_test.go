package keys

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/scrypt"
)

// Web3 Secret Storage test vectors (the wiki page's, as kept in
// go-ethereum's accounts/keystore/testdata/v3_test_vector.json).
var v3Vectors = []struct {
	name, json, password, priv string
	slow                       bool
}{
	{"wiki pbkdf2", `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"6087dab2f9fdbbfaddc31a909735c1e6"},"ciphertext":"5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46","kdf":"pbkdf2","kdfparams":{"c":262144,"dklen":32,"prf":"hmac-sha256","salt":"ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"},"mac":"517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}`,
		"testpassword", "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d", false},
	{"wiki scrypt", `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"83dbcc02d8ccb40e466191a123791e0e"},"ciphertext":"d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c","kdf":"scrypt","kdfparams":{"dklen":32,"n":262144,"r":1,"p":8,"salt":"ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19"},"mac":"2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}`,
		"testpassword", "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d", true},
	{"31-byte key", `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"e0c41130a323adc1446fc82f724bca2f"},"ciphertext":"9517cd5bdbe69076f9bf5057248c6c050141e970efa36ce53692d5d59a3984","kdf":"scrypt","kdfparams":{"dklen":32,"n":2,"r":8,"p":1,"salt":"711f816911c92d649fb4c84b047915679933555030b3552c1212609b38208c63"},"mac":"d5e116151c6aa71470e67a7d42c9620c75c4d23229847dcc127794f0732b0db5"},"id":"fecfc4ce-e956-48fd-953b-30f8b52ed66c","version":3}`,
		"foo", "00fa7b3db73dc7dfdf8c5fbdb796d741e4488628c41fc4febd9160a866ba0f35", false},
	{"30-byte key", `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"3ca92af36ad7c2cd92454c59cea5ef00"},"ciphertext":"108b7d34f3442fc26ab1ab90ca91476ba6bfa8c00975a49ef9051dc675aa","kdf":"scrypt","kdfparams":{"dklen":32,"n":2,"r":8,"p":1,"salt":"d0769e608fb86cda848065642a9c6fa046845c928175662b8e356c77f914cd3b"},"mac":"75d0e6759f7b3cefa319c3be41680ab6beea7d8328653474bd06706d4cc67420"},"id":"a37e1559-5955-450d-8075-7b8931b392b2","version":3}`,
		"foo", "000081c29e8142bb6a81bef5a92bda7a8328a5c85bb2f9542e76f9b0f94fc018", false},
}

func TestDecryptV3Vectors(t *testing.T) {
	for _, v := range v3Vectors {
		if v.slow && (testing.Short() || raceEnabled) {
			continue
		}
		k, err := DecryptV3([]byte(v.json), v.password)
		if err != nil {
			t.Errorf("%s: %v", v.name, err)
			continue
		}
		want, _ := crypto.HexToECDSA(v.priv)
		if k.Address() != crypto.PubkeyToAddress(want.PublicKey) {
			t.Errorf("%s: address %s", v.name, k.Address().Hex())
		}
		if v.slow {
			continue
		}
		if _, err := DecryptV3([]byte(v.json), v.password+"x"); !errors.Is(err, ErrWrongPassword) {
			t.Errorf("%s: wrong password: %v", v.name, err)
		}
	}
}

func TestDecryptV3Malformed(t *testing.T) {
	good := v3Vectors[2].json
	edit := func(old, new string) string { return strings.Replace(good, old, new, 1) }
	cases := map[string]string{
		"not json":        "{",
		"version 1":       edit(`"version":3`, `"version":1`),
		"no version":      edit(`,"version":3`, ``),
		"cipher":          edit(`aes-128-ctr`, `aes-128-cbc`),
		"kdf":             edit(`"kdf":"scrypt"`, `"kdf":"argon2"`),
		"bad mac hex":     edit(`"mac":"d5`, `"mac":"zz`),
		"bad iv":          edit(`"iv":"e0c41130a323adc1446fc82f724bca2f"`, `"iv":"e0c4"`),
		"scrypt n not 2^": edit(`"n":2,`, `"n":3,`),
		"scrypt n huge":   edit(`"n":2,`, `"n":1073741824,`),
		"short dklen":     edit(`"dklen":32`, `"dklen":16`),
		"long ciphertext": edit(`"ciphertext":"`, `"ciphertext":"00000000`),
	}
	for name, js := range cases {
		if _, err := DecryptV3([]byte(js), "foo"); err == nil || errors.Is(err, ErrWrongPassword) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An address field that does not match the key is refused.
	withAddr := strings.Replace(good, `{"crypto"`, `{"address":"627306090abab3a6e1400e9345bc60c78a8bef57","crypto"`, 1)
	if _, err := DecryptV3([]byte(withAddr), "foo"); err == nil || !strings.Contains(err.Error(), "address") {
		t.Errorf("mismatched address: %v", err)
	}
}

// encryptV3 writes a V3 keystore for key with light scrypt parameters.
func encryptV3(t testing.TB, key *ecdsa.PrivateKey, password string) []byte {
	t.Helper()
	salt, iv := make([]byte, 32), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	const n, r, p = 1 << 12, 8, 1
	dk, err := scrypt.Key([]byte(password), salt, n, r, p, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(dk[:16])
	text := make([]byte, 32)
	cipher.NewCTR(block, iv).XORKeyStream(text, crypto.FromECDSA(key))
	mac := crypto.Keccak256(dk[16:32], text)
	js := fmt.Sprintf(`{"address":"%x","crypto":{"cipher":"aes-128-ctr","ciphertext":"%x","cipherparams":{"iv":"%x"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":%d,"p":%d,"r":%d,"salt":"%x"},"mac":"%x"},"id":"00000000-0000-4000-8000-000000000000","version":3}`,
		crypto.PubkeyToAddress(key.PublicKey), text, iv, n, p, r, salt, mac)
	return []byte(js)
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadKeystoreFile(t *testing.T) {
	dir := t.TempDir()
	key, _ := crypto.GenerateKey()
	kf := writeFile(t, filepath.Join(dir, "key.json"), string(encryptV3(t, key, "pa ss")))
	want := crypto.PubkeyToAddress(key.PublicKey)

	for name, content := range map[string]string{
		"bare":        "pa ss",
		"newline":     "pa ss\n",
		"crlf":        "pa ss\r\n",
		"second line": "pa ss\nignored\n",
	} {
		pf := writeFile(t, filepath.Join(dir, "pw"), content)
		k, err := LoadKeystoreFile(kf, pf)
		if err != nil || k.Address() != want {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A password that ends with a newline is found as the whole content.
	kf2 := writeFile(t, filepath.Join(dir, "key2.json"), string(encryptV3(t, key, "line\n")))
	if _, err := LoadKeystoreFile(kf2, writeFile(t, filepath.Join(dir, "pw2"), "line\n")); err != nil {
		t.Errorf("whole-content password: %v", err)
	}

	pf := writeFile(t, filepath.Join(dir, "wrong"), "nope\n")
	_, err := LoadKeystoreFile(kf, pf)
	if !errors.Is(err, ErrWrongPassword) || !strings.Contains(err.Error(), kf) || !strings.Contains(err.Error(), pf) {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := LoadKeystoreFile(filepath.Join(dir, "missing.json"), pf); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing key file: %v", err)
	}
	if _, err := LoadKeystoreFile(kf, filepath.Join(dir, "missing.pw")); err == nil || !strings.Contains(err.Error(), "missing.pw") {
		t.Errorf("missing password file: %v", err)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.json"), "{}")
	if _, err := LoadKeystoreFile(bad, pf); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad key file: %v", err)
	}
}

func TestParseHexKey(t *testing.T) {
	const dev = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	for _, s := range []string{dev, "0x" + dev, " " + dev + "\n"} {
		k, err := ParseHexKey(s)
		if err != nil || k.Address() != common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73") {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "0x", dev[:62], dev + "00", "zz" + dev[2:], strings.Repeat("0", 64),
		"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"} {
		if _, err := ParseHexKey(s); err == nil {
			t.Errorf("%q accepted", s)
		} else if strings.Contains(err.Error(), s[min(2, len(s)):]) && len(s) > 4 {
			t.Errorf("error shows the key: %v", err)
		}
	}
}

// fakeVault is a Hashicorp Vault KV v2 server holding secrets by path.
type fakeVault struct {
	token   string
	secrets map[string]map[string]any
	delay   time.Duration
}

func (v *fakeVault) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(v.delay)
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("X-Vault-Token") != v.token {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"errors":["permission denied"]}`))
		return
	}
	data, ok := v.secrets[r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errors":[]}`))
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"request_id": "1", "lease_duration": 0, "renewable": false,
		"data": map[string]any{"data": data, "metadata": map[string]any{"version": 1}},
	})
}

func vaultConfig(t testing.TB, srvURL, dir, token string) VaultConfig {
	u, _ := url.Parse(srvURL)
	port, _ := strconv.Atoi(u.Port())
	return VaultConfig{
		Host: u.Hostname(), Port: port, SigningKeyPath: DefaultVaultKeyPath,
		AuthFile: writeFile(t, filepath.Join(dir, "token"), token+"\n"), Timeout: 2 * time.Second,
		TLSEnabled: u.Scheme == "https",
	}
}

func TestVault(t *testing.T) {
	const dev = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	devAddr := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	fv := &fakeVault{token: "s.token", secrets: map[string]map[string]any{
		DefaultVaultKeyPath:         {"value": dev},
		"/v1/secret/data/prefixed":  {"value": "0x" + dev},
		"/v1/secret/data/novalue":   {"other": dev},
		"/v1/secret/data/notstring": {"value": 12},
		"/v1/secret/data/badkey":    {"value": "xyz"},
	}}
	srv := httptest.NewServer(fv)
	defer srv.Close()
	dir := t.TempDir()
	ctx := context.Background()

	cfg := vaultConfig(t, srv.URL, dir, "s.token")
	k, err := LoadVaultKey(ctx, cfg)
	if err != nil || k.Address() != devAddr {
		t.Fatalf("load: %v", err)
	}
	cfg.SigningKeyPath = "v1/secret/data/prefixed" // a missing leading slash is added
	if k, err := LoadVaultKey(ctx, cfg); err != nil || k.Address() != devAddr {
		t.Errorf("0x value: %v", err)
	}
	for path, want := range map[string]string{
		"/v1/secret/data/novalue":   `no string field "value"`,
		"/v1/secret/data/notstring": `no string field "value"`,
		"/v1/secret/data/badkey":    "not valid hex",
		"/v1/secret/data/missing":   "HTTP 404",
	} {
		cfg.SigningKeyPath = path
		_, err := LoadVaultKey(ctx, cfg)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), srv.URL+path) {
			t.Errorf("%s: %v", path, err)
		}
		if err != nil && strings.Contains(err.Error(), dev) {
			t.Errorf("%s: error shows the key", path)
		}
	}

	bad := vaultConfig(t, srv.URL, dir, "s.wrong")
	if _, err := LoadVaultKey(ctx, bad); err == nil || !strings.Contains(err.Error(), "HTTP 403: permission denied") || strings.Contains(err.Error(), "s.wrong") {
		t.Errorf("wrong token: %v", err)
	}
	bad.AuthFile = filepath.Join(dir, "none")
	if _, err := LoadVaultKey(ctx, bad); err == nil || !strings.Contains(err.Error(), bad.AuthFile) {
		t.Errorf("missing auth file: %v", err)
	}
	bad.AuthFile = writeFile(t, filepath.Join(dir, "empty"), " \n")
	if _, err := LoadVaultKey(ctx, bad); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty auth file: %v", err)
	}

	slow := &fakeVault{token: "s.token", secrets: fv.secrets, delay: 300 * time.Millisecond}
	ssrv := httptest.NewServer(slow)
	defer ssrv.Close()
	scfg := vaultConfig(t, ssrv.URL, dir, "s.token")
	scfg.Timeout = 50 * time.Millisecond
	if _, err := LoadVaultKey(ctx, scfg); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("timeout: %v", err)
	}

	closed := httptest.NewServer(fv)
	ccfg := vaultConfig(t, closed.URL, dir, "s.token")
	closed.Close()
	if _, err := LoadVaultKey(ctx, ccfg); err == nil || !strings.Contains(err.Error(), closed.URL) {
		t.Errorf("closed: %v", err)
	}
}

func TestVaultTLS(t *testing.T) {
	const dev = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	fv := &fakeVault{token: "t", secrets: map[string]map[string]any{DefaultVaultKeyPath: {"value": dev}}}
	srv := httptest.NewTLSServer(fv)
	defer srv.Close()
	dir := t.TempDir()
	cfg := vaultConfig(t, srv.URL, dir, "t")
	if !cfg.TLSEnabled {
		t.Fatal("not https")
	}
	ctx := context.Background()

	// The test server's certificate is not signed by a system CA.
	if _, err := LoadVaultKey(ctx, cfg); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("unknown CA accepted: %v", err)
	}
	fp := sha256.Sum256(srv.Certificate().Raw)
	hp := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	colons := strings.ToUpper(hex.EncodeToString(fp[:1]))
	for _, b := range fp[1:] {
		colons += ":" + strings.ToUpper(hex.EncodeToString([]byte{b}))
	}
	cfg.TLSKnownServerFile = writeFile(t, filepath.Join(dir, "known"), "# pinned\n\nother:1 "+hex.EncodeToString(make([]byte, 32))+"\n"+hp+" "+colons+"\n")
	if k, err := LoadVaultKey(ctx, cfg); err != nil || k.Address() != common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73") {
		t.Errorf("pinned: %v", err)
	}
	cfg.TLSKnownServerFile = writeFile(t, filepath.Join(dir, "known2"), hp+" "+hex.EncodeToString(make([]byte, 32))+"\n")
	if _, err := LoadVaultKey(ctx, cfg); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("wrong pin: %v", err)
	}
	cfg.TLSKnownServerFile = writeFile(t, filepath.Join(dir, "known3"), "other:1 "+hex.EncodeToString(fp[:])+"\n")
	if _, err := LoadVaultKey(ctx, cfg); err == nil || !strings.Contains(err.Error(), "no entry for") {
		t.Errorf("no entry: %v", err)
	}
	cfg.TLSKnownServerFile = writeFile(t, filepath.Join(dir, "known4"), hp+"\n")
	if _, err := LoadVaultKey(ctx, cfg); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("malformed: %v", err)
	}
}

func newHTTPTestServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }
