package qbft

import (
	"bytes"
	"errors"
	"testing"

	"github.com/basaltchain/basalt/consensus/bft"
)

// Core messages signed with Sign decode with Decode to the same message,
// justifications included: a round change with a prepared certificate and
// a round-1 proposal carrying round-change claims and prepares.
func TestWireRoundTrip(t *testing.T) {
	keys := testKeys(4)
	block := testBlock()
	digest := BlockHash(block.Header())
	v0, v1 := bft.View{Sequence: 1, Round: 0}, bft.View{Sequence: 1, Round: 1}
	var prepares []*bft.Message
	for _, k := range keys[:3] {
		p := &bft.Message{Kind: bft.KindPrepare, View: v0, Author: addr(k), Digest: digest}
		if err := Sign(p, k); err != nil {
			t.Fatal(err)
		}
		prepares = append(prepares, p)
	}
	rc := &bft.Message{Kind: bft.KindRoundChange, View: v1, Author: addr(keys[0]), Block: block,
		Prepared: &bft.PreparedCertificate{PreparedRound: 0, PreparedDigest: digest, Prepares: prepares}}
	rc2 := &bft.Message{Kind: bft.KindRoundChange, View: v1, Author: addr(keys[2])}
	commit := &bft.Message{Kind: bft.KindCommit, View: v0, Author: addr(keys[3]), Digest: digest, CommitSeal: bytes.Repeat([]byte{1}, 65)}
	for i, m := range []*bft.Message{rc, rc2, commit} {
		if err := Sign(m, keys[[]int{0, 2, 3}[i]]); err != nil {
			t.Fatal(err)
		}
	}
	prop := &bft.Message{Kind: bft.KindProposal, View: v1, Author: addr(keys[1]), Digest: digest, Block: block,
		RoundChanges: []*bft.Message{rc, rc2}, Prepares: prepares}
	if err := Sign(prop, keys[1]); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*bft.Message{prepares[0], commit, rc, rc2, prop} {
		got, err := Decode(Code(m.Kind), m.Wire)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		if got.Kind != m.Kind || got.View != m.View || got.Author != m.Author || !bytes.Equal(got.Signed, m.Signed) {
			t.Fatalf("%s: decoded %+v", m.Kind, got)
		}
		if m.Kind != bft.KindRoundChange && got.Digest != m.Digest {
			t.Fatalf("%s: digest %s", m.Kind, got.Digest)
		}
	}
	got, _ := Decode(CodeRoundChange, rc.Wire)
	if got.Prepared == nil || got.Prepared.Round() != 0 || got.Prepared.Digest() != digest || len(got.Prepared.Prepares) != 3 ||
		got.Block == nil || BlockHash(got.Block.Header()) != digest {
		t.Fatalf("round change %+v", got)
	}
	got, _ = Decode(CodeProposal, prop.Wire)
	if len(got.RoundChanges) != 2 || got.RoundChanges[0].Prepared == nil || got.RoundChanges[0].Prepared.Digest() != digest ||
		got.RoundChanges[1].Prepared != nil || len(got.Prepares) != 3 || got.Prepares[2].Author != addr(keys[2]) {
		t.Fatalf("proposal justification %+v", got)
	}
	if _, err := Decode(0x11, prop.Wire); !errors.Is(err, ErrMessageFormat) {
		t.Fatalf("legacy code: %v", err)
	}
	// The commit seal is QBFT's: over the header with the commit round, so
	// in round 0 over the block hash itself.
	if h, _ := HashForCommitSeal(block.Header(), 0); h != digest {
		t.Fatal("round-0 seal hash is not the block hash")
	}
	if h, _ := HashForCommitSeal(block.Header(), 1); h == digest {
		t.Fatal("round-1 seal hash is the block hash")
	}
}

// FuzzDecode decodes every QBFT message type through the one entry point
// the network uses: the first byte picks the code.
func FuzzDecode(f *testing.F) {
	fx := newFixture(f)
	for code, w := range fx.wires(f) {
		f.Add(append([]byte{byte(code)}, w...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		m, err := Decode(uint64(data[0]), data[1:])
		if err != nil {
			if !errors.Is(err, ErrMessageFormat) && !errors.Is(err, ErrExtraDataFormat) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		if !bytes.Equal(m.Wire, data[1:]) || Code(m.Kind) != uint64(data[0]) {
			t.Fatalf("decoded %+v from %x", m, data)
		}
	})
}
