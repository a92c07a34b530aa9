package ibft2

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Vectors of besu-node.md §6.1.
const (
	example1 = "f853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0"
	example2 = "f8f1a00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20ea940000000000000000000000000000000000000001940000000000000000000000000000000000000002d794000000000000000000000000000000000000000181ff8400fedcbaf886b8410000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000a00b841000000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000100"
)

func seal(r, s int64, v byte) []byte {
	out := make([]byte, 65)
	big.NewInt(r).FillBytes(out[:32])
	big.NewInt(s).FillBytes(out[32:64])
	out[64] = v
	return out
}

func example2Extra() *ExtraData {
	e := &ExtraData{
		Validators: []common.Address{common.HexToAddress("0x01"), common.HexToAddress("0x02")},
		Vote:       &Vote{Recipient: common.HexToAddress("0x01"), Add: true},
		Round:      0x00fedcba,
		Seals:      [][]byte{seal(1, 10, 0), seal(10, 1, 0)},
	}
	for i := range e.Vanity {
		e.Vanity[i] = byte(i + 1)
	}
	return e
}

func TestExtraDataVectors(t *testing.T) {
	got := hex.EncodeToString(EncodeValidators([]common.Address{
		common.HexToAddress("be068f726a13c8d46c44be6ce9d275600e1735a4"),
		common.HexToAddress("5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193"),
	}))
	if got != example1 {
		t.Fatalf("example 1:\n got %s\nwant %s", got, example1)
	}
	if got := hex.EncodeToString(example2Extra().Encode()); got != example2 {
		t.Fatalf("example 2:\n got %s\nwant %s", got, example2)
	}
	for _, v := range []string{example1, example2} {
		b, _ := hex.DecodeString(v)
		e, err := DecodeExtraData(b)
		if err != nil {
			t.Fatalf("decode %s: %v", v[:8], err)
		}
		if !bytes.Equal(e.Encode(), b) {
			t.Fatalf("re-encoding of %s differs", v[:8])
		}
	}
	b, _ := hex.DecodeString(example2)
	e, _ := DecodeExtraData(b)
	if e.Round != 0x00fedcba || !e.Vote.Add || len(e.Seals) != 2 || e.Validators[1] != common.HexToAddress("0x02") {
		t.Fatalf("decoded %+v", e)
	}
}

// A drop vote is the raw byte 00, not the empty string 80.
func TestExtraDataDropVote(t *testing.T) {
	e := &ExtraData{Vote: &Vote{Recipient: common.HexToAddress("0x01")}}
	enc := e.Encode()
	if !bytes.Contains(enc, append(common.HexToAddress("0x01").Bytes(), 0x00, 0x84)) {
		t.Fatalf("drop vote encoding %x", enc)
	}
	d, err := DecodeExtraData(enc)
	if err != nil || d.Vote == nil || d.Vote.Add {
		t.Fatalf("decoded %+v, %v", d, err)
	}
}

func TestExtraDataMalformed(t *testing.T) {
	valid, _ := hex.DecodeString(example1)
	cases := map[string]string{
		"empty":             "",
		"not a list":        "80",
		"trailing bytes":    example1 + "00",
		"short vanity":      "f8" + "52" + "9f" + "00000000000000000000000000000000000000000000000000000000000000" + example1[70:],
		"three-byte round":  "f852" + example1[4:len(example1)-12] + "83000000c0",
		"round as list":     "f853" + example1[4:len(example1)-12] + "c400000000c0",
		"four items":        "f852" + example1[4:len(example1)-2],
		"short seal":        "e4a00000000000000000000000000000000000000000000000000000000000000000c0808400000000c180",
		"bad vote byte":     "f83d" + "a0" + "0000000000000000000000000000000000000000000000000000000000000000" + "c0" + "d6" + "940000000000000000000000000000000000000001" + "01" + "8400000000c0",
		"validator 19 byte": "f83ca00000000000000000000000000000000000000000000000000000000000000000d3" + "93" + "00000000000000000000000000000000000001" + "808400000000c0",
	}
	for name, h := range cases {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("%s: bad test hex: %v", name, err)
		}
		if _, err := DecodeExtraData(b); !errors.Is(err, ErrExtraDataFormat) {
			t.Errorf("%s: err = %v, want ErrExtraDataFormat", name, err)
		}
	}
	if _, err := DecodeExtraData(valid); err != nil {
		t.Fatal(err)
	}
}

// The on-chain hash ignores round and seals; the seal hash includes the
// round; genesis hashes plainly.
func TestBlockHashes(t *testing.T) {
	h := &types.Header{Number: big.NewInt(5), Difficulty: big.NewInt(1), Extra: example2Extra().Encode()}
	e := example2Extra()
	e.Round, e.Seals = 7, nil
	h2 := types.CopyHeader(h)
	h2.Extra = e.Encode()
	if BlockHash(h) != BlockHash(h2) {
		t.Fatal("block hash depends on round or seals")
	}
	s1, _ := SealHash(h)
	s2, _ := SealHash(h2)
	if s1 == s2 {
		t.Fatal("seal hash ignores the round")
	}
	h3 := types.CopyHeader(h)
	h3.Extra = example2Extra().encode(layoutWithoutRoundSe)
	if BlockHash(h) != h3.Hash() {
		t.Fatal("block hash is not the hash of [vanity, validators, vote]")
	}
	g := &types.Header{Number: big.NewInt(0), Difficulty: big.NewInt(1), Extra: example2Extra().Encode()}
	if BlockHash(g) != g.Hash() {
		t.Fatal("genesis hash is not the plain header hash")
	}
	key, _ := crypto.GenerateKey()
	sig, _ := crypto.Sign(s1[:], key)
	sealed, _ := WithRoundAndSeals(h, e.Round, [][]byte{sig})
	_ = sealed
	signers, err := SealSigners(func() *types.Header { x, _ := WithRoundAndSeals(h, 0x00fedcba, [][]byte{sig}); return x }())
	if err != nil || signers[0] != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("seal signer %v, %v", signers, err)
	}
}
