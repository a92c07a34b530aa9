package qbft

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

var zeroVanity = strings.Repeat("00", 32)

// genesisValidators are four ascending validator addresses.
var genesisValidators = []common.Address{
	common.HexToAddress("0x1111111111111111111111111111111111111111"),
	common.HexToAddress("0x2222222222222222222222222222222222222222"),
	common.HexToAddress("0x3333333333333333333333333333333333333333"),
	common.HexToAddress("0x4444444444444444444444444444444444444444"),
}

// The genesis shape of reference/qbft.md §2 and §5:
// f87a a0<32 zero bytes> f854 <4 x (94 + address)> c0 80 c0.
func genesisHex() string {
	s := "f87aa0" + zeroVanity + "f854"
	for _, a := range genesisValidators {
		s += "94" + hex.EncodeToString(a[:])
	}
	return s + "c080c0"
}

func TestEncodeValidatorsGenesisShape(t *testing.T) {
	got := hex.EncodeToString(EncodeValidators(genesisValidators))
	if got != genesisHex() {
		t.Fatalf("got  %s\nwant %s", got, genesisHex())
	}
	e, err := DecodeExtraData(mustHex(genesisHex()))
	if err != nil {
		t.Fatal(err)
	}
	if e.Vote != nil || e.Round != 0 || len(e.Seals) != 0 || len(e.Validators) != 4 || e.Validators[3] != genesisValidators[3] {
		t.Fatalf("decoded %+v", e)
	}
}

func seal(b byte) []byte {
	s := bytes.Repeat([]byte{b}, 65)
	s[64] = 1
	return s
}

// Exact encodings of the vote and round items (reference/qbft.md §5: vote
// c0 or [address, ff | 00], round an RLP integer with 0 as 80).
func TestExtraDataItemEncodings(t *testing.T) {
	one := common.HexToAddress("0x01")
	a := hex.EncodeToString(one[:])
	head := "a0" + zeroVanity + "c0"
	cases := []struct {
		name string
		e    ExtraData
		tail string // after vanity and an empty validator list
	}{
		{"no vote, round 0", ExtraData{}, "c080c0"},
		{"add vote", ExtraData{Vote: &Vote{Recipient: one, Add: true}}, "d794" + a + "81ff80c0"},
		{"drop vote", ExtraData{Vote: &Vote{Recipient: one}}, "d694" + a + "8080c0"},
		{"round 1", ExtraData{Round: 1}, "c001c0"},
		{"round 0x7f", ExtraData{Round: 0x7f}, "c07fc0"},
		{"round 0x80", ExtraData{Round: 0x80}, "c08180c0"},
		{"round 256", ExtraData{Round: 256}, "c0820100c0"},
		{"round max", ExtraData{Round: 0xffffffff}, "c084ffffffffc0"},
		{"one seal", ExtraData{Round: 2, Seals: [][]byte{seal(0xaa)}}, "c002f843b841" + hex.EncodeToString(seal(0xaa))},
	}
	for _, c := range cases {
		body := head + c.tail
		n := len(body) / 2
		var want string
		if n < 56 {
			want = hex.EncodeToString([]byte{0xc0 + byte(n)}) + body
		} else {
			want = "f8" + hex.EncodeToString([]byte{byte(n)}) + body
		}
		got := hex.EncodeToString(c.e.Encode())
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
			continue
		}
		d, err := DecodeExtraData(mustHex(want))
		if err != nil {
			t.Errorf("%s: decode: %v", c.name, err)
			continue
		}
		if !bytes.Equal(d.Encode(), mustHex(want)) {
			t.Errorf("%s: re-encoding differs", c.name)
		}
		if d.Round != c.e.Round || (d.Vote == nil) != (c.e.Vote == nil) || (d.Vote != nil && (d.Vote.Add != c.e.Vote.Add || d.Vote.Recipient != one)) {
			t.Errorf("%s: decoded %+v", c.name, d)
		}
	}
}

// A drop vote written as the raw byte 00 (Besu's writeByte) decodes as a
// drop and re-encodes unchanged, so it hashes as received.
func TestExtraDataDropVoteZeroByte(t *testing.T) {
	one := common.HexToAddress("0x01")
	in := mustHex(wrap("a0" + zeroVanity + "c0" + "d6" + "94" + hex.EncodeToString(one[:]) + "00" + "80" + "c0"))
	e, err := DecodeExtraData(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.Vote == nil || e.Vote.Add || e.Vote.Recipient != one {
		t.Fatalf("vote %+v", e.Vote)
	}
	if !bytes.Equal(e.Encode(), in) {
		t.Fatalf("re-encoding %x, want %x", e.Encode(), in)
	}
}

func TestExtraDataMalformed(t *testing.T) {
	a := "94" + strings.Repeat("01", 20)
	cases := []struct {
		name, hex, err string
	}{
		{"empty", "", "not an RLP list"},
		{"string", "80", "not an RLP list"},
		{"trailing bytes", genesisHex() + "00", "trailing bytes"},
		{"short vanity", wrap("9f" + strings.Repeat("00", 31) + "c0c080c0"), "vanity must be 32 bytes"},
		{"vanity as list", "c5c0c0c080c0", "vanity must be 32 bytes"},
		{"validators as string", wrap("a0" + zeroVanity + "80c080c0"), "validators must be a list"},
		{"validator of 19 bytes", wrap("a0" + zeroVanity + "d4" + "93" + strings.Repeat("01", 19) + "c080c0"), "validator must be 20 bytes"},
		{"vote as empty string (IBFT 2.0 style)", wrap("a0" + zeroVanity + "c08080c0"), "vote must be a list"},
		{"vote without type", wrap("a0" + zeroVanity + "c0" + "d5" + a + "80c0"), "vote type"},
		{"vote type 01", wrap("a0" + zeroVanity + "c0" + "d6" + a + "01" + "80c0"), "vote type 01"},
		{"vote type 81fe", wrap("a0" + zeroVanity + "c0" + "d7" + a + "81fe" + "80c0"), "vote type fe"},
		{"vote type as list", wrap("a0" + zeroVanity + "c0" + "d6" + a + "c0" + "80c0"), "vote type"},
		{"vote with three items", wrap("a0" + zeroVanity + "c0" + "d8" + a + "81ff80" + "80c0"), "vote type"},
		{"vote recipient of 19 bytes", wrap("a0" + zeroVanity + "c0" + "d4" + "93" + strings.Repeat("01", 19) + "80c0"), "vote recipient must be 20 bytes"},
		{"round 00", wrap("a0" + zeroVanity + "c0c000c0"), "round must be a canonical RLP integer"},
		{"round with leading zero", wrap("a0" + zeroVanity + "c0c0820001c0"), "round must be a canonical RLP integer"},
		{"round 8101", wrap("a0" + zeroVanity + "c0c08101c0"), "round must be a canonical RLP"},
		{"round as list", wrap("a0" + zeroVanity + "c0c0c0c0"), "round must be a canonical RLP integer"},
		{"round over 32 bits", wrap("a0" + zeroVanity + "c0c0850100000000c0"), "round exceeds 32 bits"},
		{"four items", wrap("a0" + zeroVanity + "c0c080"), "seals must be a list"},
		{"seals as string", wrap("a0" + zeroVanity + "c0c08080"), "seals must be a list"},
		{"short seal", wrap("a0" + zeroVanity + "c0c080c281aa"), "commit seal must be 65 bytes"},
		{"six items", wrap("a0" + zeroVanity + "c0c080c080"), "more than five items"},
	}
	for _, c := range cases {
		_, err := DecodeExtraData(mustHex(c.hex))
		if !errors.Is(err, ErrExtraDataFormat) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
	}
}

// wrap puts an RLP list header around the hex body.
func wrap(body string) string {
	n := len(body) / 2
	if n < 56 {
		return hex.EncodeToString([]byte{0xc0 + byte(n)}) + body
	}
	return "f8" + hex.EncodeToString([]byte{byte(n)}) + body
}

func testHeader(e *ExtraData) *types.Header {
	return &types.Header{Number: big.NewInt(5), Difficulty: big.NewInt(1), MixDigest: MixDigest,
		GasLimit: 700000000, Time: 10, Coinbase: common.HexToAddress("0x11"), Extra: e.Encode()}
}

func voteExtra() *ExtraData {
	e := &ExtraData{Validators: genesisValidators,
		Vote: &Vote{Recipient: common.HexToAddress("0x55"), Add: true}}
	for i := range e.Vanity {
		e.Vanity[i] = byte(i)
	}
	return e
}

// reference/qbft.md §5: the block hash forces the round to 0 and removes the
// seals; the commit seal signs the hash with the commit round and no seals,
// which equals the block hash in round 0.
func TestBlockHashRules(t *testing.T) {
	base := voteExtra()
	plain := testHeader(base)
	committed := voteExtra()
	committed.Round, committed.Seals = 3, [][]byte{seal(1), seal(2)}
	h := testHeader(committed)

	if BlockHash(h) != BlockHash(plain) {
		t.Fatal("block hash depends on round or seals")
	}
	if BlockHash(plain) != plain.Hash() {
		t.Fatal("block hash of a round-0 unsealed header is not its plain hash")
	}
	want := types.CopyHeader(h)
	want.Extra = base.Encode()
	if BlockHash(h) != want.Hash() {
		t.Fatal("block hash is not keccak(RLP(header with [vanity, validators, vote, 0, []]))")
	}
	s0, err := HashForCommitSeal(h, 0)
	if err != nil || s0 != BlockHash(h) {
		t.Fatalf("round-0 seal hash %x, block hash %x, %v", s0, BlockHash(h), err)
	}
	s3, _ := HashForCommitSeal(h, 3)
	r3 := voteExtra()
	r3.Round = 3
	want.Extra = r3.Encode()
	if s3 != want.Hash() {
		t.Fatal("seal hash is not keccak(RLP(header with [vanity, validators, vote, round, []]))")
	}
	if s3 == s0 {
		t.Fatal("seal hash ignores the round")
	}
	f, _ := FilteredHeader(h, 3)
	if !bytes.Equal(f.Extra, r3.Encode()) || !bytes.Equal(h.Extra, committed.Encode()) {
		t.Fatal("FilteredHeader changed its input or kept the seals")
	}
	bad := types.CopyHeader(plain)
	bad.Extra = []byte{1, 2, 3}
	if BlockHash(bad) != bad.Hash() {
		t.Fatal("undecodable extraData should hash plainly")
	}
	if _, err := HashForCommitSeal(bad, 0); !errors.Is(err, ErrExtraDataFormat) {
		t.Fatalf("err = %v", err)
	}
}

func TestSealSigners(t *testing.T) {
	keys := testKeys(3)
	h := testHeader(voteExtra())
	digest, _ := HashForCommitSeal(h, 2)
	var seals [][]byte
	for _, k := range keys {
		s, _ := crypto.Sign(digest[:], k)
		seals = append(seals, s)
	}
	sealed, err := WithRoundAndSeals(h, 2, seals)
	if err != nil {
		t.Fatal(err)
	}
	if BlockHash(sealed) != BlockHash(h) {
		t.Fatal("sealing changed the block hash")
	}
	signers, err := SealSigners(sealed)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if signers[i] != crypto.PubkeyToAddress(k.PublicKey) {
			t.Fatalf("seal %d signed by %x", i, signers[i])
		}
	}
	// A seal over the round-0 hash does not recover to the signer at round 2.
	d0, _ := HashForCommitSeal(h, 0)
	s, _ := crypto.Sign(d0[:], keys[0])
	wrong, _ := WithRoundAndSeals(h, 2, [][]byte{s})
	if got, _ := SealSigners(wrong); got[0] == crypto.PubkeyToAddress(keys[0].PublicKey) {
		t.Fatal("seal hash ignores the round")
	}
	bad := bytes.Clone(seals[0])
	bad[64] = 2
	badH, _ := WithRoundAndSeals(h, 2, [][]byte{bad})
	if _, err := SealSigners(badH); err == nil || !strings.Contains(err.Error(), "recovery id 2") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzDecodeExtraData(f *testing.F) {
	f.Add(mustHex(genesisHex()))
	f.Add(voteExtra().Encode())
	e := voteExtra()
	e.Round, e.Seals = 300, [][]byte{seal(1)}
	f.Add(e.Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeExtraData(data)
		if err != nil {
			if !errors.Is(err, ErrExtraDataFormat) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		// The codec is canonical: what decodes re-encodes to the input.
		if !bytes.Equal(e.Encode(), data) {
			t.Fatalf("re-encoding of %x is %x", data, e.Encode())
		}
	})
}
