package payload

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/keys"
)

// cb builds CBOR by hand, so the tests pin the byte format independently of
// the encoder.
type cb struct{ bytes.Buffer }

func (c *cb) head(major byte, n int) *cb {
	switch {
	case n < 24:
		c.WriteByte(major<<5 | byte(n))
	case n < 256:
		c.WriteByte(major<<5 | 24)
		c.WriteByte(byte(n))
	default:
		c.WriteByte(major<<5 | 25)
		c.WriteByte(byte(n >> 8))
		c.WriteByte(byte(n))
	}
	return c
}
func (c *cb) text(s string) *cb { c.head(3, len(s)); c.WriteString(s); return c }
func (c *cb) bstr(b []byte) *cb { c.head(2, len(b)); c.Write(b); return c }
func (c *cb) indefMap() *cb     { c.WriteByte(0xbf); return c }
func (c *cb) indefArray() *cb   { c.WriteByte(0x9f); return c }
func (c *cb) brk() *cb          { c.WriteByte(0xff); return c }
func (c *cb) mapN(n int) *cb    { return c.head(5, n) }
func (c *cb) arrayN(n int) *cb  { return c.head(4, n) }
func (c *cb) raw(b ...byte) *cb { c.Write(b); return c }
func rep(b byte, n int) []byte  { return bytes.Repeat([]byte{b}, n) }

const senderB64 = "BULeR8JyUWhiuuCMU/HLA0Q5pzkYT+cHII3ZKBey3Bo="

// jacksonStyle writes an EncryptedPayload the way Jackson-CBOR does:
// indefinite-length maps, definite arrays, fields in any order, plus the
// extra field given.
func jacksonStyle(reorder bool, extra func(*cb)) []byte {
	c := new(cb).indefMap()
	fields := []func(){
		func() { c.text("sender").text(senderB64) },
		func() { c.text("nonce").bstr(rep(1, 24)) },
		func() {
			c.text("encryptedKeys").arrayN(2)
			c.indefMap().text("encoded").bstr(rep(2, 48)).brk()
			c.indefMap().text("encoded").bstr(rep(3, 48)).brk()
		},
		func() { c.text("cipherText").bstr(rep(4, 20)) },
		func() { c.text("privacyGroupId").bstr(rep(5, 32)) },
	}
	if reorder {
		for i := len(fields) - 1; i >= 0; i-- {
			fields[i]()
		}
	} else {
		for _, f := range fields {
			f()
		}
	}
	if extra != nil {
		extra(c)
	}
	return c.brk().Bytes()
}

func TestDecodeEncryptedPayloadJacksonStyle(t *testing.T) {
	for _, data := range [][]byte{
		jacksonStyle(false, nil),
		jacksonStyle(true, nil),
		jacksonStyle(false, func(c *cb) { c.text("encryptedKeyOwners").indefMap().brk() }),
	} {
		p, err := DecodeEncryptedPayload(data)
		if err != nil {
			t.Fatalf("%x: %v", data, err)
		}
		if p.Sender.String() != senderB64 || p.Nonce[0] != 1 || len(p.EncryptedKeys) != 2 ||
			p.EncryptedKeys[1][0] != 3 || len(p.CipherText) != 20 || len(p.PrivacyGroupID) != 32 {
			t.Errorf("decoded %+v", p)
		}
		if p.Digest() != Digest(rep(4, 20)) {
			t.Error("digest")
		}
	}
}

func TestEncryptedPayloadEncoding(t *testing.T) {
	sender, _ := keys.ParsePublicKey(senderB64)
	p := &EncryptedPayload{
		Sender:         sender,
		EncryptedKeys:  [][]byte{rep(2, 48)},
		CipherText:     rep(4, 16),
		PrivacyGroupID: rep(5, 32),
	}
	p.Nonce[0] = 1
	got, err := p.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, 24)
	nonce[0] = 1
	want := new(cb).mapN(5).
		text("sender").text(senderB64).
		text("nonce").bstr(nonce).
		text("encryptedKeys").arrayN(1).mapN(1).text("encoded").bstr(rep(2, 48)).
		text("cipherText").bstr(rep(4, 16)).
		text("privacyGroupId").bstr(rep(5, 32)).Bytes()
	if !bytes.Equal(got, want) {
		t.Errorf("encoding\n got %x\nwant %x", got, want)
	}
	// Without a privacy group id the field is left out (Include.NON_NULL).
	p.PrivacyGroupID = nil
	got, _ = p.MarshalCBOR()
	if bytes.Contains(got, []byte("privacyGroupId")) || got[0] != 0xa4 {
		t.Errorf("no group id: %x", got)
	}
	back, err := DecodeEncryptedPayload(got)
	if err != nil || back.PrivacyGroupID != nil {
		t.Fatal(err)
	}
}

func TestDecodeEncryptedPayloadMalformed(t *testing.T) {
	valid := jacksonStyle(false, nil)
	tests := map[string][]byte{
		"empty":               {},
		"not a map":           {0x01},
		"truncated":           valid[:len(valid)-5],
		"no break":            valid[:len(valid)-1],
		"trailing bytes":      append(append([]byte{}, valid...), 0x00),
		"array":               new(cb).arrayN(0).Bytes(),
		"missing fields":      new(cb).mapN(0).Bytes(),
		"sender not base64":   bytes.Replace(valid, []byte(senderB64), []byte(strings.Repeat("!", 44)), 1),
		"sender as bytes":     new(cb).mapN(1).text("sender").bstr(rep(0, 32)).Bytes(),
		"nonce too short":     bytes.Replace(valid, append([]byte{0x58, 24}, rep(1, 24)...), append([]byte{0x57}, rep(1, 23)...), 1),
		"key too short":       bytes.Replace(valid, append([]byte{0x58, 48}, rep(2, 48)...), append([]byte{0x58, 47}, rep(2, 47)...), 1),
		"cipher too short":    bytes.Replace(valid, append([]byte{0x54}, rep(4, 20)...), append([]byte{0x4f}, rep(4, 15)...), 1),
		"group id 31 bytes":   bytes.Replace(valid, append([]byte{0x58, 32}, rep(5, 32)...), append([]byte{0x58, 31}, rep(5, 31)...), 1),
		"huge declared array": new(cb).mapN(1).text("encryptedKeys").raw(0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff).Bytes(),
		"huge byte string":    new(cb).mapN(1).text("nonce").raw(0x5b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff).Bytes(),
		"deep nesting":        append(bytes.Repeat([]byte{0x81}, 100), 0x00),
		"no keys": new(cb).mapN(4).text("sender").text(senderB64).text("nonce").bstr(rep(1, 24)).
			text("encryptedKeys").arrayN(0).text("cipherText").bstr(rep(4, 16)).Bytes(),
	}
	for name, data := range tests {
		if _, err := DecodeEncryptedPayload(data); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s (%x): error %v", name, data, err)
		}
	}
}

func TestPrivacyGroupEncoding(t *testing.T) {
	g := &PrivacyGroup{
		Addresses:   []string{senderB64},
		Name:        "g",
		Description: "",
		State:       Active,
		Type:        Pantheon,
		RandomSeed:  []byte{9},
	}
	got, err := g.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	want := new(cb).mapN(6).
		text("addresses").arrayN(1).text(senderB64).
		text("name").text("g").
		text("description").text("").
		text("state").text("ACTIVE").
		text("type").text("PANTHEON").
		text("randomSeed").bstr([]byte{9}).Bytes()
	if !bytes.Equal(got, want) {
		t.Errorf("encoding\n got %x\nwant %x", got, want)
	}
	// Jackson style: indefinite map, no seed (legacy), null name left out.
	legacy := new(cb).indefMap().
		text("type").text("LEGACY").
		text("addresses").indefArray().text(senderB64).text(senderB64).brk().
		text("state").text("DELETED").
		text("description").text(LegacyDescription).brk().Bytes()
	d, err := DecodePrivacyGroup(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != Legacy || d.State != Deleted || len(d.Addresses) != 2 || d.Name != "" || d.RandomSeed != nil {
		t.Errorf("decoded %+v", d)
	}
	for name, data := range map[string][]byte{
		"no addresses": new(cb).mapN(2).text("state").text("ACTIVE").text("type").text("LEGACY").Bytes(),
		"bad address":  new(cb).mapN(3).text("addresses").arrayN(1).text("AAAA").text("state").text("ACTIVE").text("type").text("LEGACY").Bytes(),
		"bad state":    new(cb).mapN(3).text("addresses").arrayN(1).text(senderB64).text("state").text("GONE").text("type").text("LEGACY").Bytes(),
		"bad type":     new(cb).mapN(3).text("addresses").arrayN(1).text(senderB64).text("state").text("ACTIVE").text("type").text("BESU").Bytes(),
		"seed as text": new(cb).mapN(4).text("addresses").arrayN(1).text(senderB64).text("state").text("ACTIVE").text("type").text("LEGACY").text("randomSeed").text("x").Bytes(),
		"garbage":      {0xff, 0x00},
	} {
		if _, err := DecodePrivacyGroup(data); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestGroupIndexEncoding(t *testing.T) {
	x := &GroupIndex{Addresses: []string{senderB64}, PrivacyGroupIDs: []string{"id1", "id2"}}
	got, err := x.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	want := new(cb).mapN(3).
		text("addresses").arrayN(1).text(senderB64).
		text("privacyGroupId").arrayN(2).text("id1").text("id2").
		text("toDelete").raw(0xf4).Bytes()
	if !bytes.Equal(got, want) {
		t.Errorf("encoding\n got %x\nwant %x", got, want)
	}
	back, err := DecodeGroupIndex(got)
	if err != nil || len(back.PrivacyGroupIDs) != 2 {
		t.Fatal(err)
	}
	// Orion's in-flight form carries privacyGroupToAppend; it is ignored.
	extra := new(cb).indefMap().text("addresses").arrayN(0).text("privacyGroupToAppend").text("x").brk().Bytes()
	if _, err := DecodeGroupIndex(extra); err != nil {
		t.Error(err)
	}
	if _, err := DecodeGroupIndex([]byte{0x42}); err == nil {
		t.Error("garbage index decoded")
	}
}

func TestDigestVector(t *testing.T) {
	// SHA-512/256 of the empty string (FIPS 180-4 example value).
	want, _ := hex.DecodeString("c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a")
	if got := Digest(nil); got != "xnK40e9W7Sirh8NiLFEUBpvdOte4+XN0mNDAHs7wlno=" {
		t.Errorf("Digest(empty) = %s (want base64 of %x)", got, want)
	}
}

func TestDecodeGroupState(t *testing.T) {
	for _, st := range []GroupState{Active, Deleted} {
		data, _ := (&PrivacyGroup{Addresses: []string{"x"}, State: st, Type: Legacy}).MarshalCBOR()
		if got, err := DecodeGroupState(data); err != nil || got != st {
			t.Errorf("%s: %s %v", st, got, err)
		}
	}
	for _, bad := range [][]byte{{0xa0}, {0xff}, {}} {
		if _, err := DecodeGroupState(bad); err == nil {
			t.Errorf("%x accepted", bad)
		}
	}
}
