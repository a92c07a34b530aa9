package tesserapayload

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

type vector struct {
	name  string
	codec Codec
	data  []byte
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("testdata/vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			t.Fatalf("bad vector line %q", line)
		}
		b, err := hex.DecodeString(fs[2])
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		out = append(out, vector{fs[0], Codec(fs[1]), b})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// The fields Tessera's test asserts, shared by its vectors (two cipher
// texts: one for the two oldest forms, one for the rest).
var (
	vecSender   = unhex("cd289f4e792fe6be0aebb0eadf4e1e55c338169c467c72ded724c2066d3fef08")
	vecCT       = unhex("79545741d7db69b74a21aa352a27338c616c3094577cb957b10f8be9")
	vecNonce    = unhex("1a75c0bbfc813210d85cf1343c77fb75ea7941ad35b3ae68")
	vecBox      = unhex("3d59edf55251ac779998462275011d9c94707af9e1dc33f40e88aa31e3d7636ac8ddff8ba7d3aab21f563d99a480b651")
	vecRNonce   = unhex("a4086cb5ba3b4d71767676d00ddc8c297f5601aa4ae7e2a8")
	vecKey1     = unhex("23f11bb215bad72909faa4e2bd73da2b24395a64035057cc3461018f6136b94b")
	vecKey2     = unhex("35cd48a915bad72909fae3e2bd0fda2b24395a64035057cc3461018f6136b94b")
	oldCT       = unhex("786f3f9c61f4991402d025aa8d90b5e5370cff780d00565c344dfc2d")
	oldNonce    = unhex("8dacc60e5276048acb56030e7046fc517954e8fdb7ef067c")
	oldBox      = unhex("a99a005ff3304c8d8d3e36c9b27dcadeb9f5a1ab4ee8e22f4105582691f4d79f67c49b2bc7bc44932431c1853e1543e4")
	oldRNonce   = unhex("c105562aabf4dc1094301a242cae0fdaed069b6b6ee25f05")
	testBytes   = []byte("test")
	execHashVec = []byte("executionHash")
)

type want struct {
	old        bool // the two oldest vectors' cipher text and nonces
	recipients [][]byte
	mode       Mode
	affected   int
	execHash   []byte
	mandatory  [][]byte
	group      []byte
	reencodes  bool // the current encoder writes exactly these bytes
}

var wants = map[string]want{
	"legacy-v1-missing-recipients":            {old: true},
	"legacy-empty-recipients":                 {old: true},
	"legacy-with-recipients":                  {recipients: [][]byte{vecKey1, vecKey2}},
	"legacy-pp-no-recipients-no-affected":     {mode: PartyProtection, reencodes: true},
	"legacy-pp-no-recipients-with-affected":   {mode: PartyProtection, affected: 1, reencodes: true},
	"legacy-pp-with-recipient-no-affected":    {recipients: [][]byte{vecKey1}, mode: PartyProtection, reencodes: true},
	"legacy-pp-with-recipients-with-affected": {recipients: [][]byte{vecKey1, vecKey2}, mode: PartyProtection, affected: 1, reencodes: true},
	"legacy-psv-no-recipients-no-affected":    {mode: PrivateStateValidation, execHash: execHashVec, reencodes: true},
	"legacy-psv-no-recipients-with-affected":  {mode: PrivateStateValidation, affected: 1, execHash: execHashVec, reencodes: true},
	"cbor-with-recipients":                    {recipients: [][]byte{vecKey1, vecKey2}, reencodes: true},
	"cbor-psv-with-affected":                  {recipients: [][]byte{vecKey1}, mode: PrivateStateValidation, affected: 1, execHash: execHashVec, reencodes: true},
	"cbor-mandatory-with-group":               {recipients: [][]byte{vecKey1, vecKey2}, mode: MandatoryRecipients, mandatory: [][]byte{vecKey2}, group: []byte("group"), reencodes: true},
}

// TestVectors decodes Tessera's own payloads and checks every field its
// tests assert; the key GoQuorum would carry for the payload is Tessera's
// (SHA3-512 of the cipher text, as ../shared/reference/goquorum-privacy.md
// §5.3 gives it).
func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	if len(vs) != len(wants) {
		t.Fatalf("%d vectors, %d expectations", len(vs), len(wants))
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			w, ok := wants[v.name]
			if !ok {
				t.Fatal("no expectation")
			}
			p, err := Decode(v.codec, v.data)
			if err != nil {
				t.Fatal(err)
			}
			ct, nonce, bx, rn := vecCT, vecNonce, vecBox, vecRNonce
			if w.old {
				ct, nonce, bx, rn = oldCT, oldNonce, oldBox, oldRNonce
			}
			eq := func(what string, got, want []byte) {
				t.Helper()
				if !bytes.Equal(got, want) {
					t.Errorf("%s = %x, want %x", what, got, want)
				}
			}
			eq("sender", p.Sender, vecSender)
			eq("cipherText", p.CipherText, ct)
			eq("nonce", p.CipherTextNonce, nonce)
			eq("recipientNonce", p.RecipientNonce, rn)
			if len(p.RecipientBoxes) != 1 {
				t.Fatalf("%d boxes", len(p.RecipientBoxes))
			}
			eq("box", p.RecipientBoxes[0], bx)
			if len(p.Recipients) != len(w.recipients) {
				t.Fatalf("%d recipients, want %d", len(p.Recipients), len(w.recipients))
			}
			for i := range w.recipients {
				eq("recipient", p.Recipients[i], w.recipients[i])
			}
			if p.Mode != w.mode {
				t.Errorf("mode %v, want %v", p.Mode, w.mode)
			}
			if len(p.Affected) != w.affected {
				t.Fatalf("%d affected, want %d", len(p.Affected), w.affected)
			}
			for _, a := range p.Affected {
				eq("affected txHash", a.TxHash, testBytes)
				eq("affected securityHash", a.SecurityHash, testBytes)
			}
			eq("execHash", p.ExecHash, w.execHash)
			if len(p.MandatoryRecipients) != len(w.mandatory) {
				t.Fatalf("%d mandatory", len(p.MandatoryRecipients))
			}
			for i := range w.mandatory {
				eq("mandatory", p.MandatoryRecipients[i], w.mandatory[i])
			}
			eq("privacyGroupId", p.PrivacyGroupID, w.group)
			if err := p.CheckSizes(); err != nil {
				t.Errorf("sizes: %v", err)
			}
			if w.reencodes {
				again, err := Encode(v.codec, p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, v.data) {
					t.Errorf("re-encoded\n%x\nwant\n%x", again, v.data)
				}
			}
			if !w.old {
				if got := payload.TesseraKeyString(p.CipherText); got != "b9YFfdMZYU1J5Ar0pvVWQWUSq5aY/LtOBJGgxec/Agg10yQbttuRGs+JMa1vZU/35Ix6wLhyq1ugRo/frGEXYw==" {
					t.Errorf("Tessera key %s", got)
				}
			}
		})
	}
}

// TestMalformed: truncated and hostile inputs are errors, never panics or
// large allocations.
func TestMalformed(t *testing.T) {
	vs := loadVectors(t)
	var legacy []byte
	for _, v := range vs {
		if v.name == "legacy-pp-with-recipients-with-affected" {
			legacy = v.data
		}
	}
	for n := 1; n < len(legacy); n++ {
		cut := legacy[:n]
		p, err := DecodeLegacy(cut)
		// A payload may legally stop after the recipient nonce or the
		// recipient keys; every other cut is an error.
		if err == nil && !(len(p.Recipients) == 0 && p.Mode == 0 || len(p.Recipients) == 2 && p.Mode == 0) {
			t.Errorf("cut at %d decoded: %+v", n, p)
		}
	}
	// prefix ends after the recipient nonce: sender, cipher text, nonce,
	// one box, recipient nonce.
	const prefix = 8 + 32 + 8 + 28 + 8 + 24 + 8 + 8 + 48 + 8 + 24
	huge := append([]byte{}, legacy[:8]...)
	huge[0] = 0x7f
	bad := map[string][]byte{
		"empty":             {},
		"huge length":       huge,
		"huge count":        append(append([]byte{}, legacy[:8+32+8+28+8+24]...), 0x7f, 0, 0, 0, 0, 0, 0, 0),
		"bad flag":          append(append([]byte{}, legacy[:prefix]...), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0),
		"empty flag":        append(append([]byte{}, legacy[:prefix]...), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"cbor garbage":      []byte("bogus"),
		"cbor wrong type":   {0xa1, 0x66, 's', 'e', 'n', 'd', 'e', 'r', 0x63, 'a', 'b', 'c'},
		"cbor flag 7":       {0xa1, 0x6b, 'p', 'r', 'i', 'v', 'a', 'c', 'y', 'F', 'l', 'a', 'g', 0x07},
		"cbor affected b64": {0xa1, 0x68, 'a', 'f', 'f', 'e', 'c', 't', 'e', 'd', 0xa1, 0x61, '!', 0x40},
	}
	for name, data := range bad {
		_, errL := DecodeLegacy(data)
		_, errC := DecodeCBOR(data)
		if strings.HasPrefix(name, "cbor") {
			if errC == nil {
				t.Errorf("%s: CBOR decoded", name)
			}
		} else if errL == nil {
			t.Errorf("%s: LEGACY decoded", name)
		}
	}
	if _, err := ParseCodec("JSON"); err == nil {
		t.Error("codec JSON accepted")
	}
	if c, err := ParseCodec(""); err != nil || c != Legacy {
		t.Errorf("NULL codec = %q, %v", c, err)
	}
}

func pair(t testing.TB) keys.KeyPair {
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// TestSealOpen: a payload sealed as Tessera seals it opens on the sender's
// node (its copy with every box) and on each recipient's node (its
// ForRecipient copy), in either codec, and on no other.
func TestSealOpen(t *testing.T) {
	a, b, c, d := pair(t), pair(t), pair(t), pair(t)
	plain := []byte("private contract code")
	sent, err := Seal(nil, plain, a, []keys.PublicKey{b.Public, c.Public, a.Public})
	if err != nil {
		t.Fatal(err)
	}
	nodeA := enclave.New([]keys.KeyPair{a}, nil)
	nodeB := enclave.New([]keys.KeyPair{b}, nil)
	nodeBC := enclave.New([]keys.KeyPair{d, c, b}, nil)
	nodeD := enclave.New([]keys.KeyPair{d}, nil)

	for _, codec := range []Codec{Legacy, CBOR} {
		enc, _ := Encode(codec, sent)
		p, err := Decode(codec, enc)
		if err != nil {
			t.Fatal(err)
		}
		o, err := p.Open(nodeA)
		if err != nil || !bytes.Equal(o.Plaintext, plain) || !o.SenderHosted || len(o.Openers) != 1 || o.Openers[0] != a.Public {
			t.Fatalf("%s sender copy: %+v %v", codec, o, err)
		}
		forB, err := p.ForRecipient(b.Public)
		if err != nil {
			t.Fatal(err)
		}
		o, err = forB.Open(nodeB)
		if err != nil || !bytes.Equal(o.Plaintext, plain) || o.SenderHosted || len(o.Openers) != 1 {
			t.Fatalf("%s recipient copy: %+v %v", codec, o, err)
		}
		// A node hosting two recipients, holding the sender's full copy
		// (as when the sender's node relayed it), names both.
		o, err = p.Open(nodeBC)
		if err != nil || len(o.Openers) != 2 || o.Openers[0] != c.Public || o.Openers[1] != b.Public {
			t.Fatalf("%s two hosted recipients: %+v %v", codec, o, err)
		}
		if _, err := forB.Open(nodeD); !errors.Is(err, ErrCannotOpen) {
			t.Fatalf("%s non-party opened: %v", codec, err)
		}
	}
	// A sender's copy without a box for the sender (Tessera adds the
	// sender to the recipients, but a copy may lack it) opens through the
	// box of its first recipient, as Tessera's sender reads it.
	noSelf, err := Seal(nil, plain, a, []keys.PublicKey{b.Public})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := noSelf.Open(nodeA); err != nil || !bytes.Equal(o.Plaintext, plain) || !o.SenderHosted || len(o.Openers) != 1 {
		t.Fatalf("sender copy without the sender's box: %+v %v", o, err)
	}
	if _, err := sent.ForRecipient(d.Public); err == nil {
		t.Error("ForRecipient of a non-recipient")
	}
	// A tampered cipher text is refused, not returned.
	bad := *sent
	bad.CipherText = append([]byte{}, sent.CipherText...)
	bad.CipherText[0] ^= 1
	if _, err := bad.Open(nodeA); err == nil || errors.Is(err, ErrCannotOpen) {
		t.Errorf("tampered cipher text: %v", err)
	}
	// The vectors' keys are not ours: sizes fine, nothing opens.
	for _, v := range loadVectors(t) {
		p, _ := Decode(v.codec, v.data)
		if _, err := p.Open(nodeA); !errors.Is(err, ErrCannotOpen) {
			t.Errorf("%s: %v", v.name, err)
		}
	}
}

func TestForRecipientPSV(t *testing.T) {
	a, b, c := pair(t), pair(t), pair(t)
	p, err := Seal(nil, []byte("x"), a, []keys.PublicKey{a.Public, b.Public, c.Public})
	if err != nil {
		t.Fatal(err)
	}
	p.Mode = PrivateStateValidation
	r, err := p.ForRecipient(c.Public)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RecipientBoxes) != 1 || len(r.Recipients) != 3 || !bytes.Equal(r.Recipients[0], c.Public[:]) ||
		!bytes.Equal(r.Recipients[1], a.Public[:]) || !bytes.Equal(r.Recipients[2], b.Public[:]) {
		t.Fatalf("%+v", r)
	}
}
