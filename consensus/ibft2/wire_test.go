package ibft2

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
)

func testKeys(n int) []*ecdsa.PrivateKey {
	var out []*ecdsa.PrivateKey
	for i := range n {
		k, _ := crypto.ToECDSA(common.LeftPadBytes([]byte{byte(i + 1)}, 32))
		out = append(out, k)
	}
	return out
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func mustSign(t testing.TB, m *bft.Message, k *ecdsa.PrivateKey) *bft.Message {
	m.Author = addr(k)
	if err := Sign(m, k); err != nil {
		t.Fatal(err)
	}
	return m
}

func testBlock() *types.Block {
	h := &types.Header{Number: big.NewInt(1), Difficulty: big.NewInt(1), MixDigest: MixDigest,
		Extra: (&ExtraData{Validators: []common.Address{{1}}}).Encode(), GasLimit: 1000}
	return types.NewBlockWithHeader(h)
}

// The Prepare layout of besu-node.md §9.1: [[seq (8 bytes), round (4
// bytes), digest], signature], signed over keccak256(code ‖ payload).
func TestPrepareLayout(t *testing.T) {
	k := testKeys(1)[0]
	m := mustSign(t, &bft.Message{Kind: bft.KindPrepare, View: bft.View{Sequence: 0x0102, Round: 3}, Digest: common.Hash{0xdd}}, k)
	payload := "ef" + "880000000000000102" + "8400000003" + "a0dd" + hex.EncodeToString(make([]byte, 31))
	if !bytes.HasPrefix(m.Wire[2:], mustHex(payload)) {
		t.Fatalf("wire %x, want payload %s", m.Wire, payload)
	}
	h := crypto.Keccak256(append([]byte{1}, mustHex(payload)...))
	sig := m.Wire[len(m.Wire)-65:]
	pub, err := crypto.SigToPub(h, sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != addr(k) {
		t.Fatal("signature is not over keccak256(code ‖ payload)")
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Every message kind, certificates included, survives encode → decode
// with its signers recovered.
func TestMessageRoundTrip(t *testing.T) {
	keys := testKeys(4)
	block := testBlock()
	d, _ := SealHash(block.Header())
	v0 := bft.View{Sequence: 1, Round: 0}
	prop := mustSign(t, &bft.Message{Kind: bft.KindProposal, View: v0, Digest: d, Block: block}, keys[0])
	prep := mustSign(t, &bft.Message{Kind: bft.KindPrepare, View: v0, Digest: d}, keys[1])
	seal, _ := crypto.Sign(d[:], keys[2])
	commit := mustSign(t, &bft.Message{Kind: bft.KindCommit, View: v0, Digest: d, CommitSeal: seal}, keys[2])
	v1 := bft.View{Sequence: 1, Round: 1}
	rc := mustSign(t, &bft.Message{Kind: bft.KindRoundChange, View: v1, Block: block,
		Prepared: &bft.PreparedCertificate{Proposal: prop, Prepares: []*bft.Message{prep}}}, keys[3])
	rcEmpty := mustSign(t, &bft.Message{Kind: bft.KindRoundChange, View: v1}, keys[1])
	prop1 := mustSign(t, &bft.Message{Kind: bft.KindProposal, View: v1, Digest: d, Block: block,
		RoundChanges: []*bft.Message{rc, rcEmpty}}, keys[1])
	for _, m := range []*bft.Message{prop, prep, commit, rc, rcEmpty, prop1} {
		got, err := DecodeMessage(uint64(m.Kind), m.Wire)
		if err != nil {
			t.Fatalf("%v: %v", m.Kind, err)
		}
		if got.Author != m.Author || got.View != m.View || got.Digest != m.Digest || !bytes.Equal(got.CommitSeal, m.CommitSeal) ||
			(m.Block != nil) != (got.Block != nil) || len(got.RoundChanges) != len(m.RoundChanges) ||
			(m.Prepared != nil) != (got.Prepared != nil) {
			t.Fatalf("%v: decoded %+v", m.Kind, got)
		}
		if got.Block != nil && BlockHash(got.Block.Header()) != BlockHash(m.Block.Header()) {
			t.Fatalf("%v: block differs", m.Kind)
		}
	}
	got, _ := DecodeMessage(3, rc.Wire)
	if got.Prepared.Proposal.Author != addr(keys[0]) || got.Prepared.Prepares[0].Author != addr(keys[1]) {
		t.Fatal("certificate signers not recovered")
	}
	got, _ = DecodeMessage(0, prop1.Wire)
	if got.RoundChanges[0].Prepared == nil || got.RoundChanges[1].Author != addr(keys[1]) {
		t.Fatal("round-change certificate not decoded")
	}
	// The Prepare and Commit are the bare SignedData; a Proposal wraps it.
	if !bytes.Equal(prep.Wire, prep.Signed) || bytes.Equal(prop.Wire, prop.Signed) {
		t.Fatal("wrapper layout")
	}
}

func TestDecodeMessageMalformed(t *testing.T) {
	keys := testKeys(1)
	block := testBlock()
	d, _ := SealHash(block.Header())
	prep := mustSign(t, &bft.Message{Kind: bft.KindPrepare, View: bft.View{Sequence: 1}, Digest: d}, keys[0])
	prop := mustSign(t, &bft.Message{Kind: bft.KindProposal, View: bft.View{Sequence: 1}, Digest: d, Block: block}, keys[0])
	flip := bytes.Clone(prep.Wire)
	flip[len(flip)-1] = 7 // recovery id out of range
	short, _ := rlp.EncodeToBytes([]any{[]any{[]byte{1}, []byte{0, 0, 0, 0}, d}, make([]byte, 65)})
	noBlock := bytes.Clone(prop.Wire)
	cases := map[string]struct {
		code uint64
		data []byte
	}{
		"empty":                {1, nil},
		"not a list":           {1, []byte{0x80}},
		"truncated":            {1, prep.Wire[:len(prep.Wire)-3]},
		"trailing byte":        {1, append(bytes.Clone(prep.Wire), 0)},
		"bad recovery id":      {1, flip},
		"short sequence":       {1, short},
		"prepare as a commit":  {2, prep.Wire},
		"prepare as proposal":  {0, prep.Wire},
		"code out of range":    {4, prep.Wire},
		"proposal truncated":   {0, noBlock[:len(noBlock)-1]},
		"proposal as a commit": {2, prop.Wire},
	}
	for name, c := range cases {
		if _, err := DecodeMessage(c.code, c.data); !errors.Is(err, ErrMessageFormat) {
			t.Errorf("%s: err = %v, want ErrMessageFormat", name, err)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	keys := testKeys(2)
	block := testBlock()
	d, _ := SealHash(block.Header())
	prop := mustSign(f, &bft.Message{Kind: bft.KindProposal, View: bft.View{Sequence: 1}, Digest: d, Block: block}, keys[0])
	prep := mustSign(f, &bft.Message{Kind: bft.KindPrepare, View: bft.View{Sequence: 1}, Digest: d}, keys[1])
	rc := mustSign(f, &bft.Message{Kind: bft.KindRoundChange, View: bft.View{Sequence: 1, Round: 1}, Block: block,
		Prepared: &bft.PreparedCertificate{Proposal: prop, Prepares: []*bft.Message{prep}}}, keys[1])
	for _, m := range []*bft.Message{prop, prep, rc} {
		f.Add(uint8(m.Kind), m.Wire)
	}
	f.Fuzz(func(t *testing.T, code uint8, data []byte) {
		m, err := DecodeMessage(uint64(code), data)
		if err != nil {
			return
		}
		if m.Kind != bft.Kind(code) || !bytes.Equal(m.Wire, data) {
			t.Fatal("decoded message does not match its input")
		}
	})
}

func FuzzDecodeExtraData(f *testing.F) {
	f.Add(mustHex(example1))
	f.Add(mustHex(example2))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeExtraData(data)
		if err != nil {
			return
		}
		// The codec is canonical: what decodes re-encodes to the input.
		if !bytes.Equal(e.Encode(), data) {
			t.Fatalf("re-encoding of %x is %x", data, e.Encode())
		}
	})
}
