package discovery

import (
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

func FuzzDecodePartyInfo(f *testing.F) {
	data, _ := hex.DecodeString(orionPartyInfo)
	f.Add(data)
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, entries, err := DecodePartyInfo(data)
		if err != nil {
			return
		}
		if len(entries) != len(p.NodePKs) {
			t.Fatalf("%d entries from %d nodePKs", len(entries), len(p.NodePKs))
		}
		for _, u := range entries {
			if c, err := Canonical(u); err != nil || c != u {
				t.Fatalf("accepted URL %q (canonical %q, %v)", u, c, err)
			}
		}
	})
}

// FuzzAnswer feeds arbitrary CBOR to the answering side of a proof (the
// decoder of /partyinfo/validate): no panic, and never an answer for a key
// that is not hosted.
func FuzzAnswer(f *testing.F) {
	owner, _ := keys.Generate(nil)
	enc := enclave.New([]keys.KeyPair{owner}, nil)
	_, body, _ := NewProof(rand.Reader, "http://me:1/", []keys.PublicKey{owner.Public, owner.Public})
	f.Add(body)
	f.Add([]byte{0xa0})
	f.Add([]byte{0xa1, 0x6a, 'c', 'h', 'a', 'l', 'l', 'e', 'n', 'g', 'e', 's', 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		reply, err := Answer(enc, "http://me:1/", data)
		if err != nil {
			return
		}
		req, err := DecodeValidateRequest(data)
		if err != nil {
			t.Fatalf("answered a request that does not decode: %v", err)
		}
		var r ValidateReply
		if err := payload.Unmarshal(reply, &r); err != nil || len(r.Answers) != len(req.Challenges) {
			t.Fatalf("reply %x: %v", reply, err)
		}
		for i, a := range r.Answers {
			if len(a) != 0 && (req.Challenges[i].Key != owner.Public.String() || len(a) != secretSize) {
				t.Fatalf("answer %d %x to a challenge for %s", i, a, req.Challenges[i].Key)
			}
		}
	})
}

// FuzzCheck feeds arbitrary CBOR to the challenger's reading of an answer.
func FuzzCheck(f *testing.F) {
	k, _ := keys.Generate(nil)
	proof, _, _ := NewProof(rand.Reader, "http://peer:1/", []keys.PublicKey{k.Public})
	good, _ := payload.Marshal(&ValidateReply{Answers: [][]byte{proof.secrets[0][:]}})
	f.Add(good)
	f.Add([]byte{0xa0})
	f.Fuzz(func(t *testing.T, data []byte) {
		proven, failed, err := proof.Check(data)
		if err != nil {
			return
		}
		if len(proven)+len(failed) != 1 {
			t.Fatalf("%d proven, %d failed of 1", len(proven), len(failed))
		}
	})
}
