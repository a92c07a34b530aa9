package enclave

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"testing"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
)

// Privacy group id vectors: reference/privacy.md §6.1 and entries of
// src/test/resources/keySets.json in ConsenSys/orion.
var groupIDVectors = []struct {
	members []string
	id      string
}{
	{[]string{"negmDcN2P4ODpqn/6WkJ02zT/0w0bjhGpkZ8UP6vARk=", "g59BmTeJIn7HIcnq8VQWgyh/pDbvbt2eyP0Ii60aDDw=", "6fg8q5rWMBoAT2oIiU3tYJbk4b7oAr7dxaaVY7TeM3U="}, "/xzRjCLioUBkm5LYuzll61GXyrD5x7bvXzQk/ovJA/4="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg="}, "/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
	{[]string{"a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c="}, "/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg="}, "/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ="}, "xQdJRZp0ejzJRqU6N3+EsFo+qTIcdWX50V6YTyvBepw="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ="}, "gpLOJFx+XtIuYLyeWe0uWX1avJmN4BrB6Cb6nwgs33Y="},
	{[]string{"pSFaU7qK88pEA+li/IQT8WLKvO8W/2Aai8DumJp1/VM=", "0h0Y88tAXsV54I1FWApC19Dz6KuWgwk304G9jMQJFX0=", "06eDjJr5VQP3abdYtmkwoTS/uBssoBtPUa1b4mmzlls="}, "e/IH0ptRy8VlS8M4wV7w8iCTjbQgAhxFdqtGPlqfMVE="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ=", "gQY5tAb6Sbl0hR+66x3eza781sfuZ9yYJSF6nrkX5F8="}, "QeloF4G+RMAgx10EE/Vcr53wzUSpFsfGiWWLnYj3kOE="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ=", "gQY5tAb6Sbl0hR+66x3eza781sfuZ9yYJSF6nrkX5F8=", "0h0Y88tAXsV54I1FWApC19Dz6KuWgwk304G9jMQJFX0="}, "dkJhWq2wy0N4ZCIX3NcUBTPsA4eGaDw8fn81zeY02BQ="},
	{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ=", "gQY5tAb6Sbl0hR+66x3eza781sfuZ9yYJSF6nrkX5F8=", "0h0Y88tAXsV54I1FWApC19Dz6KuWgwk304G9jMQJFX0=", "pSFaU7qK88pEA+li/IQT8WLKvO8W/2Aai8DumJp1/VM="}, "qF8accqKMtoTyFeMh6mfBAQdqUSy5z4PX9x3OQNOfuU="},
	{[]string{"d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "gQY5tAb6Sbl0hR+66x3eza781sfuZ9yYJSF6nrkX5F8=", "0h0Y88tAXsV54I1FWApC19Dz6KuWgwk304G9jMQJFX0=", "pSFaU7qK88pEA+li/IQT8WLKvO8W/2Aai8DumJp1/VM=", "06eDjJr5VQP3abdYtmkwoTS/uBssoBtPUa1b4mmzlls="}, "o6fFj1vwysfp92Xt2GZlVuq14KX9HWn7oVJ+64Mfoic="},
}

func mustKeys(t testing.TB, b64 []string) []keys.PublicKey {
	t.Helper()
	ks, err := payload.ParseKeys(b64)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestGroupIDVectors(t *testing.T) {
	for _, v := range groupIDVectors {
		members := mustKeys(t, v.members)
		if got := GroupIDString(members, nil, payload.Legacy); got != v.id {
			t.Errorf("legacy %v: %s, want %s", v.members, got, v.id)
		}
		// A nil seed gives the same id for PANTHEON (the id Encrypt embeds
		// in a legacy payload); a seed is ignored for LEGACY.
		if got := GroupIDString(members, nil, payload.Pantheon); got != v.id {
			t.Errorf("pantheon, nil seed: %s", got)
		}
		if got := GroupIDString(members, []byte{1, 2, 3}, payload.Legacy); got != v.id {
			t.Errorf("legacy with seed: %s", got)
		}
		if got := GroupIDString(members, []byte{1, 2, 3}, payload.Pantheon); got == v.id {
			t.Errorf("pantheon with seed equals the legacy id")
		}
	}
	// The index key ignores order and duplicates.
	a := mustKeys(t, groupIDVectors[1].members)
	b := mustKeys(t, groupIDVectors[3].members)
	if IndexKey(a) != IndexKey(b) || IndexKey(a) == GroupIDString(a, nil, payload.Legacy) {
		t.Error("index key")
	}
}

func pair(t testing.TB) keys.KeyPair {
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func TestEncryptDecrypt(t *testing.T) {
	a, b, c, outsider := pair(t), pair(t), pair(t), pair(t)
	ea := New([]keys.KeyPair{a}, nil)
	eb := New([]keys.KeyPair{b, c}, nil)
	eo := New([]keys.KeyPair{outsider}, nil)
	msg := []byte("a private transaction")

	p, err := ea.Encrypt(msg, a.Public, []keys.PublicKey{b.Public, c.Public}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.EncryptedKeys) != 3 || len(p.CipherText) != len(msg)+16 {
		t.Fatalf("shape: %d keys, %d bytes", len(p.EncryptedKeys), len(p.CipherText))
	}
	wantID := GroupID([]keys.PublicKey{b.Public, c.Public, a.Public}, nil, payload.Legacy)
	if !bytes.Equal(p.PrivacyGroupID, wantID[:]) {
		t.Error("privacy group id is not the legacy id of recipients and sender")
	}
	for _, tc := range []struct {
		e  *Enclave
		id keys.PublicKey
	}{{ea, a.Public}, {eb, b.Public}, {eb, c.Public}} {
		got, err := tc.e.Decrypt(p, tc.id)
		if err != nil || !bytes.Equal(got, msg) {
			t.Errorf("decrypt as %s: %q, %v", tc.id, got, err)
		}
	}
	if _, err := eo.Decrypt(p, outsider.Public); ptm.CodeOf(err) != ptm.EnclaveDecryptWrongPrivateKey {
		t.Errorf("outsider: %v", err)
	}
	if _, err := ea.Decrypt(p, b.Public); ptm.CodeOf(err) != ptm.EnclaveNoMatchingPrivateKey {
		t.Errorf("unhosted identity: %v", err)
	}
	if !eb.CanDecrypt(p) || eo.CanDecrypt(p) {
		t.Error("CanDecrypt")
	}
	if _, err := eb.Encrypt(msg, a.Public, nil, nil); ptm.CodeOf(err) != ptm.EnclaveNoMatchingPrivateKey {
		t.Errorf("encrypt from an unhosted key: %v", err)
	}

	// Stripped for c only, the payload still opens for c (and only c).
	s, err := p.StripFor([]keys.PublicKey{c.Public})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.EncryptedKeys) != 1 || s.Digest() != p.Digest() {
		t.Fatal("strip")
	}
	wire, err := s.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := payload.DecodeEncryptedPayload(wire)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := eb.Decrypt(s2, c.Public); err != nil || !bytes.Equal(got, msg) {
		t.Errorf("stripped decrypt as c: %v", err)
	}
	if _, err := eb.Decrypt(s2, b.Public); ptm.CodeOf(err) != ptm.EnclaveDecryptWrongPrivateKey {
		t.Errorf("stripped decrypt as b: %v", err)
	}
	if _, err := p.StripFor([]keys.PublicKey{outsider.Public}); err == nil {
		t.Error("strip for a non-recipient")
	}

	// A tampered cipher text does not open.
	bad := *s2
	bad.CipherText = append([]byte(nil), s2.CipherText...)
	bad.CipherText[0] ^= 1
	if _, err := eb.Decrypt(&bad, c.Public); err == nil {
		t.Error("tampered cipher text opened")
	}

	// Empty plaintext round-trips to empty, not nil-vs-empty surprises.
	e, err := ea.Encrypt(nil, a.Public, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ea.Decrypt(e, a.Public); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty: %q %v", got, err)
	}
}

// TestDecryptIndependentConstruction opens a payload built here directly
// from the primitives Orion uses (secretbox under a zero nonce, box per
// recipient with one shared nonce), pinning the construction rather than only
// round-tripping Encrypt.
func TestDecryptIndependentConstruction(t *testing.T) {
	a, b := pair(t), pair(t)
	var payloadKey [32]byte
	payloadKey[0] = 7
	var nonce [24]byte
	nonce[5] = 9
	var zero [24]byte
	p := &payload.EncryptedPayload{
		Sender:     a.Public,
		Nonce:      nonce,
		CipherText: secretbox.Seal(nil, []byte("x"), &zero, &payloadKey),
		EncryptedKeys: [][]byte{
			box.Seal(nil, payloadKey[:], &nonce, (*[32]byte)(&b.Public), (*[32]byte)(&a.Private)),
			box.Seal(nil, payloadKey[:], &nonce, (*[32]byte)(&a.Public), (*[32]byte)(&a.Private)),
		},
	}
	for _, kp := range []keys.KeyPair{a, b} {
		got, err := New([]keys.KeyPair{kp}, nil).Decrypt(p, kp.Public)
		if err != nil || string(got) != "x" {
			t.Fatalf("decrypt as %s: %q %v", kp.Public, got, err)
		}
	}
	if d := p.Digest(); len(d) != 44 || d[43] != '=' {
		t.Errorf("digest %q", d)
	}
	raw, _ := base64.StdEncoding.DecodeString(p.Digest())
	if sum := sha512.Sum512_256(p.CipherText); !bytes.Equal(raw, sum[:]) {
		t.Error("digest is not SHA-512/256 of the cipher text")
	}

	seeded, err := New([]keys.KeyPair{a}, nil).Encrypt([]byte("x"), a.Public, []keys.PublicKey{b.Public}, []byte("seed"))
	if err != nil {
		t.Fatal(err)
	}
	wantID := GroupID([]keys.PublicKey{b.Public, a.Public}, []byte("seed"), payload.Pantheon)
	if !bytes.Equal(seeded.PrivacyGroupID, wantID[:]) {
		t.Error("seeded privacy group id")
	}
}

func BenchmarkEncrypt1KiBTwoRecipients(b *testing.B) {
	a, r1, r2 := pair(b), pair(b), pair(b)
	e := New([]keys.KeyPair{a}, nil)
	msg := make([]byte, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Encrypt(msg, a.Public, []keys.PublicKey{r1.Public, r2.Public}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
