package keys

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm"
)

// Key files from ConsenSys/orion (keys/tm1.*, keys/tm1a.*, docker/ha/keys/*).
const (
	tm1Pub  = "BULeR8JyUWhiuuCMU/HLA0Q5pzkYT+cHII3ZKBey3Bo="
	tm1Key  = `{"data":{"bytes":"Wl+xSyXVuuqzpvznOS7dOobhcn4C5auxkFRi7yLtgtA="},"type":"unlocked"}`
	tm1aPub = "8SjRHlUBe4hAmTk3KDeJ96RhN+s10xRrHDrxEi1O5W0="
	tm1aKey = `{"data":{"bytes":"wGEar7J9G0JAgdisp61ZChyrJWeW2QPyKvecjjeVHOY="},"type":"unlocked"}`
	haPub   = "m1O1hgfEhGnhOJnu4+ZcGfUdwkokqkje+c+dD0rPrQM="
	haKey   = `{"data":{"bytes":"blPR7FvzHf80uGDrf/bBoN1VONkgWGqeL0JZWDj1n/MSXg3X6Ct5aHLZ0pBlpnx1qk5DFEy1yz8bAS+3iv6K8Eeq0BOOM7MR"},"type":"sodium-encrypted"}`
	haPass  = "123456"
)

func TestParsePublicKey(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{tm1Pub, true},
		{strings.TrimSuffix(tm1Pub, "="), true}, // Java's decoder takes unpadded input
		{"", false},
		{"not base64!", false},
		{tm1Pub + "=", false},
		{" " + tm1Pub, false},
		{"AAAA", false},                               // 3 bytes
		{strings.ReplaceAll(tm1Pub, "/", "_"), false}, // URL-safe alphabet
		{"BULeR8JyUWhiuuCMU/HLA0Q5pzkYT+cHII3ZKBey3Bo=BULe", false},
	}
	for _, tc := range tests {
		k, err := ParsePublicKey(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParsePublicKey(%q): err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && k.String() != tm1Pub {
			t.Errorf("ParsePublicKey(%q) = %s", tc.in, k)
		}
	}
}

func TestPrivateKeyVectors(t *testing.T) {
	t.Parallel() // argon2i with 256 MiB is slow, under -race most of all
	pw := haPass
	tests := []struct {
		name, pub, key string
		password       *string
	}{
		{"tm1", tm1Pub, tm1Key, nil},
		{"tm1a", tm1aPub, tm1aKey, nil},
		{"ha locked", haPub, haKey, &pw},
	}
	for _, tc := range tests {
		sk, err := ParsePrivateKey([]byte(tc.key), tc.password)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pk, err := PublicFor(sk)
		if err != nil {
			t.Fatal(err)
		}
		if pk.String() != tc.pub {
			t.Errorf("%s: public key %s, want %s", tc.name, pk, tc.pub)
		}
	}
}

func TestPrivateKeyErrors(t *testing.T) {
	t.Parallel() // argon2i with 256 MiB is slow, under -race most of all
	wrong := "654321"
	tests := []struct {
		name, key string
		password  *string
		code      ptm.Code
	}{
		{"locked without password", haKey, nil, ptm.EnclaveMissingPrivateKeyPasswords},
		{"wrong password", haKey, &wrong, ptm.EnclaveStorageDecrypt},
		{"unknown type", `{"data":{"bytes":"Wl+xSyXVuuqzpvznOS7dOobhcn4C5auxkFRi7yLtgtA="},"type":"unknown"}`, nil, ptm.EnclaveUnsupportedPrivateKeyType},
		{"short locked", `{"data":{"bytes":"AAAA"},"type":"sodium-encrypted"}`, &wrong, ptm.EnclaveStorageDecrypt},
	}
	for _, tc := range tests {
		_, err := ParsePrivateKey([]byte(tc.key), tc.password)
		if got := ptm.CodeOf(err); got != tc.code {
			t.Errorf("%s: error %v (code %s), want %s", tc.name, err, got, tc.code)
		}
	}
	for _, bad := range []string{``, `{`, `[]`, `{"data":{"bytes":"AAAA"},"type":"unlocked"}`, `{"data":{"bytes":"!!"},"type":"unlocked"}`} {
		if _, err := ParsePrivateKey([]byte(bad), nil); err == nil {
			t.Errorf("ParsePrivateKey(%q): no error", bad)
		}
	}
}

func TestWriteAndReadKeyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Unlocked only: the locked round trip (argon2i, 256 MiB each way) is
	// covered by the vector test here and by --generatekeys in ptm/e2e.
	kp, err := Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "k")
	if err := WriteKeyPairFiles(base, kp, ""); err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(base + ".pub")
	if err != nil || string(pub) != kp.Public.String() {
		t.Fatalf(".pub = %q, %v", pub, err)
	}
	raw, _ := os.ReadFile(base + ".key")
	if want := `{"data":{"bytes":"` + base64.StdEncoding.EncodeToString(kp.Private[:]) + `"},"type":"unlocked"}`; string(raw) != want {
		t.Errorf(".key = %s, want %s", raw, want)
	}
	pk, err := ReadPublicKeyFile(base + ".pub")
	if err != nil || pk != kp.Public {
		t.Fatalf("ReadPublicKeyFile: %v", err)
	}
	sk, err := ReadPrivateKeyFile(base+".key", nil)
	if err != nil || sk != kp.Private {
		t.Fatalf("ReadPrivateKeyFile: %v", err)
	}
	if err := WriteKeyPairFiles(base, kp, "pw"); !errors.Is(err, os.ErrExist) {
		t.Errorf("overwrote existing key files: %v", err)
	}
	if _, err := ReadPublicKeyFile(filepath.Join(dir, "missing.pub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "nl.pub"), []byte(tm1Pub+"\n"), 0o644)
	if k, err := ReadPublicKeyFile(filepath.Join(dir, "nl.pub")); err != nil || k.String() != tm1Pub {
		t.Errorf("pub with newline: %v", err)
	}
}

// A password-locked key in the argon2sbox form Tessera inherited from
// Constellation: the vector of Constellation's key tests (testUnlockV0,
// password "foo", Argon2i with 8 MiB, 2 iterations, 2 lanes). Its public
// key is computed here from the unlocked private key.
const (
	sboxKey  = `{"data":{"aopts":{"variant":"i","memory":8192,"iterations":2,"parallelism":2},"snonce":"LJ7QUiZ0kD/mPf/aHvCEQKDhlUucZM0s","asalt":"I5bvdFhNpr8hlknzOHIO7Q3S5Ubs9ucUdVneghrebZQ=","sbox":"iHJAfcpWWE5PsvwZRwr5gCtwMKu7xXZAAPCVRGfx06l/I5QgXs0V/czOqYsMxoEG"},"type":"argon2sbox"}`
	sboxPub  = "ENnJpgbMlNoXATPe0XCm+HtuZ547y6o7qbDLKG8zb00="
	sboxPass = "foo"
)

// TestTesseraLockedKey: Tessera's argon2sbox keys open with their password
// and give their public key; a missing or wrong password, Argon2d and
// options out of bounds are refused with Orion's codes or a message naming
// the field.
func TestTesseraLockedKey(t *testing.T) {
	pw := sboxPass
	sk, err := ParsePrivateKey([]byte(sboxKey), &pw)
	if err != nil {
		t.Fatal(err)
	}
	if pub, err := PublicFor(sk); err != nil || pub.String() != sboxPub {
		t.Fatalf("public key %s, %v; want %s", pub, err, sboxPub)
	}
	wrong := "bar"
	for _, tc := range []struct {
		name, key string
		password  *string
		code      ptm.Code
		text      string
	}{
		{"no password", sboxKey, nil, ptm.EnclaveMissingPrivateKeyPasswords, ""},
		{"wrong password", sboxKey, &wrong, ptm.EnclaveStorageDecrypt, ""},
		{"argon2d", strings.Replace(sboxKey, `"variant":"i"`, `"variant":"d"`, 1), &pw, ptm.EnclaveUnsupportedPrivateKeyType, ""},
		{"unknown variant", strings.Replace(sboxKey, `"variant":"i"`, `"variant":"x"`, 1), &pw, "", "data.aopts.variant"},
		{"huge memory", strings.Replace(sboxKey, `"memory":8192`, `"memory":4294967295`, 1), &pw, "", "data.aopts.memory"},
		{"no iterations", strings.Replace(sboxKey, `"iterations":2`, `"iterations":0`, 1), &pw, "", "data.aopts.iterations"},
		{"many lanes", strings.Replace(sboxKey, `"parallelism":2`, `"parallelism":256`, 1), &pw, "", "data.aopts.parallelism"},
		{"no options", `{"data":{"snonce":"LJ7QUiZ0kD/mPf/aHvCEQKDhlUucZM0s"},"type":"argon2sbox"}`, &pw, "", "data.aopts"},
		{"short nonce", strings.Replace(sboxKey, `LJ7QUiZ0kD/mPf/aHvCEQKDhlUucZM0s`, `LJ7Q`, 1), &pw, "", "data.snonce"},
		{"short box", strings.Replace(sboxKey, `iHJAfcpWWE5PsvwZRwr5gCtwMKu7xXZAAPCVRGfx06l/I5QgXs0V/czOqYsMxoEG`, `iHJA`, 1), &pw, "", "data.sbox"},
	} {
		_, err := ParsePrivateKey([]byte(tc.key), tc.password)
		if err == nil || ptm.CodeOf(err) != tc.code && tc.code != "" || tc.text != "" && !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %v (code %s)", tc.name, err, ptm.CodeOf(err))
		}
	}
}
