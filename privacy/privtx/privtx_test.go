package privtx

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// Vectors from Besu's PrivateTransactionTest (hyperledger/besu,
// ethereum/core/src/test/java/org/hyperledger/besu/ethereum/privacy).
const (
	besuUnsignedFor = "f8ef800182520894095e7baea6a6c7c4c2dfeb977efac326af552d87a0f" +
		"fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff" +
		"801ba048b55bfa915ac795c431978d8a6a992b628d557da5ff759b307d495a3" +
		"6649353a01fffd310ac743f371de3b9f7f9cb56c0b28ad43601b4ab949f53fa" +
		"a07bd2c804a0035695b4cc4b0941e60551d7a19cf30603db5bfc23e5ac43a56" +
		"f57f25f75486af842a0035695b4cc4b0941e60551d7a19cf30603db5bfc23e5" +
		"ac43a56f57f25f75486aa02a8d9b56a0fe9cd94d60be4413bcb721d3a7be27e" +
		"d8e28b3a6346df874ee141b8a72657374726963746564"
	besuUnsignedGroup = "f8cc800182520894095e7baea6a6c7c4c2dfeb977efac326af552d87a0f" +
		"fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff" +
		"801ba048b55bfa915ac795c431978d8a6a992b628d557da5ff759b307d495a3" +
		"6649353a01fffd310ac743f371de3b9f7f9cb56c0b28ad43601b4ab949f53fa" +
		"a07bd2c804a0035695b4cc4b0941e60551d7a19cf30603db5bfc23e5ac43a56" +
		"f57f25f75486aa00f200e885ff29e973e2576b6600181d1b0a2b5294e30d9be" +
		"4a1981ffb33a0b8c8a72657374726963746564"
	besuSigned = "f9018c808203e8832dc6c08080b8ef60806040523480156100105760008" +
		"0fd5b5060d08061001f6000396000f3fe60806040526004361060485763ffff" +
		"ffff7c010000000000000000000000000000000000000000000000000000000" +
		"060003504166360fe47b18114604d5780636d4ce63c146075575b600080fd5b" +
		"348015605857600080fd5b50607360048036036020811015606d57600080fd5" +
		"b50356099565b005b348015608057600080fd5b506087609e565b6040805191" +
		"8252519081900360200190f35b600055565b6000549056fea165627a7a72305" +
		"820cb1d0935d14b589300b12fcd0ab849a7e9019c81da24d6daa4f6b2f003d1" +
		"b01800292ca0bab7ae7f68afad5ade9e26177e044079bbcfd7857cf911b7a4c" +
		"97027dd92e41ba06e92e391ced52de53725e3054af3908a9f2f36374d727ebc" +
		"616a96a1ed2ca548a0035695b4cc4b0941e60551d7a19cf30603db5bfc23e5a" +
		"c43a56f57f25f75486ae1a02a8d9b56a0fe9cd94d60be4413bcb721d3a7be27" +
		"ed8e28b3a6346df874ee141b8a72657374726963746564"
	besuSignedLargeChainID = "f90191808203e8832dc6c08080b8ef60806040523480156100105760008" +
		"0fd5b5060d08061001f6000396000f3fe60806040526004361060485763ffff" +
		"ffff7c010000000000000000000000000000000000000000000000000000000" +
		"060003504166360fe47b18114604d5780636d4ce63c146075575b600080fd5b" +
		"348015605857600080fd5b50607360048036036020811015606d57600080fd5" +
		"b50356099565b005b348015608057600080fd5b506087609e565b6040805191" +
		"8252519081900360200190f35b600055565b6000549056fea165627a7a72305" +
		"820cb1d0935d14b589300b12fcd0ab849a7e9019c81da24d6daa4f6b2f003d1" +
		"b0180029850100000021a0bfa05529e85cdaadda498b6ab4ded157a70356ad7" +
		"6df24c18fa12b9d49be6ef4a03a54b8bc0c4e41e08d4cf0e94da98c5e02ef57" +
		"524cf2b53deecd56e3ba184927a0035695b4cc4b0941e60551d7a19cf30603d" +
		"b5bfc23e5ac43a56f57f25f75486ae1a02a8d9b56a0fe9cd94d60be4413bcb7" +
		"21d3a7be27ed8e28b3a6346df874ee141b8a72657374726963746564"
	besuKey = "853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d"
	// besuSender is besuKey's address. (Besu's test builder is given an
	// unrelated sender field; the signature is what counts.)
	besuSender  = "0xb3d6F5A4491a6137277699a2D4343EF4Fe3C0FDC"
	besuPayload = "608060405234801561001057600080fd5b5060d08061001f6000396000" +
		"f3fe60806040526004361060485763ffffffff7c010000000000" +
		"0000000000000000000000000000000000000000000000600035" +
		"04166360fe47b18114604d5780636d4ce63c146075575b600080" +
		"fd5b348015605857600080fd5b50607360048036036020811015" +
		"606d57600080fd5b50356099565b005b348015608057600080fd" +
		"5b506087609e565b60408051918252519081900360200190f35b" +
		"600055565b6000549056fea165627a7a72305820cb1d0935d14b" +
		"589300b12fcd0ab849a7e9019c81da24d6daa4f6b2f003d1b018" +
		"0029"
	keyA  = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="
	keyB  = "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="
	group = "DyAOiF/ynpc+JXa2YAGB0bCitSlOMNm+ShmB/7M6C4w="
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func b64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// besuSignedTx is the transaction of Besu's signed vectors, unsigned.
func besuSignedTx(t testing.TB) *Transaction {
	return &Transaction{
		Nonce: 0, GasPrice: big.NewInt(1000), Gas: 3000000, Value: new(big.Int),
		Data:        unhex(t, besuPayload),
		PrivateFrom: b64(t, keyA), PrivateFor: [][]byte{b64(t, keyB)},
		Restriction: Restricted,
	}
}

func TestSignMatchesBesu(t *testing.T) {
	key, err := crypto.HexToECDSA(besuKey)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(h []byte) ([]byte, error) { return crypto.Sign(h, key) }
	for _, tc := range []struct {
		chainID int64
		want    string
	}{{4, besuSigned}, {2147483647, besuSignedLargeChainID}} {
		tx := besuSignedTx(t)
		if err := tx.Sign(big.NewInt(tc.chainID), sign); err != nil {
			t.Fatal(err)
		}
		got, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// Both sides sign deterministically (RFC 6979), so the bytes match.
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("chain %d:\n got %x\nwant %s", tc.chainID, got, tc.want)
		}
		dec, err := Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if from, err := dec.Sender(); err != nil || from != common.HexToAddress(besuSender) {
			t.Errorf("chain %d: sender %v %v", tc.chainID, from.Hex(), err)
		}
		if dec.ChainID().Int64() != tc.chainID {
			t.Errorf("chain id %v", dec.ChainID())
		}
	}
}

func TestDecodeBesuVectors(t *testing.T) {
	maxU256, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	to := common.HexToAddress("0x095e7baea6a6c7c4c2dfeb977efac326af552d87")
	r, _ := new(big.Int).SetString("32886959230931919120748662916110619501838190146643992583529828535682419954515", 10)
	s, _ := new(big.Int).SetString("14473701025599600909210599917245952381483216609124029382871721729679842002948", 10)
	base := Transaction{
		Nonce: 0, GasPrice: big.NewInt(1), Gas: 21000, To: &to, Value: maxU256, Data: []byte{},
		V: big.NewInt(27), R: r, S: s, PrivateFrom: b64(t, keyA), Restriction: Restricted,
	}
	withFor := base
	withFor.PrivateFor = [][]byte{b64(t, keyA), b64(t, keyB)}
	withGroup := base
	withGroup.PrivacyGroupID = b64(t, group)
	for name, tc := range map[string]struct {
		rlp  string
		want Transaction
	}{"privateFor": {besuUnsignedFor, withFor}, "privacyGroupId": {besuUnsignedGroup, withGroup}} {
		tx, err := Decode(unhex(t, tc.rlp))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equal(tx, &tc.want) {
			t.Errorf("%s: decoded %+v", name, tx)
		}
		if tx.ChainID() != nil {
			t.Errorf("%s: chain id %v for v=27", name, tx.ChainID())
		}
		enc, err := tx.MarshalBinary()
		if err != nil || hex.EncodeToString(enc) != tc.rlp {
			t.Errorf("%s: re-encoded %x %v", name, enc, err)
		}
		if _, err := tx.Sender(); err != nil { // v = 27: signature without chain ID
			t.Errorf("%s: sender: %v", name, err)
		}
	}
}

func equal(a, b *Transaction) bool {
	eqAddr := (a.To == nil && b.To == nil) || (a.To != nil && b.To != nil && *a.To == *b.To)
	eqList := len(a.PrivateFor) == len(b.PrivateFor)
	for i := 0; eqList && i < len(a.PrivateFor); i++ {
		eqList = bytes.Equal(a.PrivateFor[i], b.PrivateFor[i])
	}
	return a.Nonce == b.Nonce && a.GasPrice.Cmp(b.GasPrice) == 0 && a.Gas == b.Gas && eqAddr &&
		a.Value.Cmp(b.Value) == 0 && bytes.Equal(a.Data, b.Data) && a.V.Cmp(b.V) == 0 &&
		a.R.Cmp(b.R) == 0 && a.S.Cmp(b.S) == 0 && bytes.Equal(a.PrivateFrom, b.PrivateFrom) &&
		eqList && (a.PrivateFor == nil) == (b.PrivateFor == nil) &&
		bytes.Equal(a.PrivacyGroupID, b.PrivacyGroupID) && a.Restriction == b.Restriction
}

func TestRoundTripAndSender(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x627306090abaB3A6e1400e9345bC60c78a8BEf57")
	sign := func(h []byte) ([]byte, error) { return crypto.Sign(h, key) }
	for _, tx := range []*Transaction{
		{Nonce: 7, GasPrice: big.NewInt(1000), Gas: 90000, To: &to, Data: []byte{1, 2}, PrivateFrom: b64(t, keyA), PrivateFor: [][]byte{b64(t, keyB)}, Restriction: Restricted},
		{Nonce: 0, Gas: 90000, PrivateFrom: b64(t, keyA), PrivacyGroupID: b64(t, group), Restriction: Restricted},
		{Nonce: 1 << 40, Gas: 1, PrivateFrom: b64(t, keyA), PrivateFor: [][]byte{}, Restriction: Restricted},
	} {
		if err := tx.Sign(big.NewInt(1337), sign); err != nil {
			t.Fatal(err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		dec, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.Sender()
		if err != nil || got != from {
			t.Errorf("sender %s %v, want %s", got.Hex(), err, from.Hex())
		}
		if dec.ChainID().Int64() != 1337 {
			t.Errorf("chain id %v", dec.ChainID())
		}
		if dec.PrivacyGroupID == nil && dec.PrivateFor == nil {
			t.Errorf("lost the recipients")
		}
		again, _ := dec.MarshalBinary()
		if !bytes.Equal(again, raw) {
			t.Errorf("re-encoding differs")
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	good := unhex(t, besuSigned)
	item := func(b []byte) []byte { e, _ := rlp.EncodeToBytes(b); return e }
	list := func(items ...[]byte) []byte {
		var body []byte
		for _, i := range items {
			body = append(body, i...)
		}
		out := make([]byte, 0, len(body)+9)
		if len(body) < 56 {
			out = append(out, 0xc0+byte(len(body)))
		} else {
			n := new(big.Int).SetInt64(int64(len(body))).Bytes()
			out = append(out, 0xf7+byte(len(n)))
			out = append(out, n...)
		}
		return append(out, body...)
	}
	k32 := item(make([]byte, 32))
	fields := func(to []byte, from []byte, ten []byte, restr string) []byte {
		return list(item(nil), item([]byte{1}), item([]byte{1}), item(to), item(nil), item(nil),
			item([]byte{27}), item([]byte{1}), item([]byte{1}), from, ten, item([]byte(restr)))
	}
	valid := fields(nil, k32, list(k32), Restricted)
	if _, err := Decode(valid); err != nil {
		t.Fatalf("constructed valid tx: %v", err)
	}
	cases := map[string][]byte{
		"empty":              {},
		"not a list":         item([]byte("x")),
		"truncated":          good[:len(good)-1],
		"trailing byte":      append(append([]byte{}, good...), 0x80),
		"19-byte to":         fields(make([]byte, 19), k32, list(k32), Restricted),
		"short privateFrom":  fields(nil, item(make([]byte, 31)), list(k32), Restricted),
		"short group id":     fields(nil, k32, item(make([]byte, 33)), Restricted),
		"short privateFor":   fields(nil, k32, list(k32, item([]byte{1})), Restricted),
		"nested privateFor":  fields(nil, k32, list(list(k32)), Restricted),
		"bad restriction":    fields(nil, k32, list(k32), "secret"),
		"eleven items":       list(item(nil), item(nil), item(nil), item(nil), item(nil), item(nil), item(nil), item(nil), item(nil), k32, list(k32)),
		"thirteen items":     list(item(nil), item([]byte{1}), item([]byte{1}), item(nil), item(nil), item(nil), item([]byte{27}), item([]byte{1}), item([]byte{1}), k32, list(k32), item([]byte(Restricted)), item(nil)),
		"non-canonical uint": list(item([]byte{0, 1}), item([]byte{1}), item([]byte{1}), item(nil), item(nil), item(nil), item([]byte{27}), item([]byte{1}), item([]byte{1}), k32, list(k32), item([]byte(Restricted))),
	}
	for name, b := range cases {
		if tx, err := Decode(b); err == nil {
			t.Errorf("%s: decoded %+v", name, tx)
		} else if !strings.HasPrefix(err.Error(), "privtx: ") {
			t.Errorf("%s: error %q", name, err)
		}
	}
}

func TestSenderRejectsBadSignatures(t *testing.T) {
	tx, err := Decode(unhex(t, besuSigned))
	if err != nil {
		t.Fatal(err)
	}
	bad := *tx
	bad.V = big.NewInt(29)
	if _, err := bad.Sender(); err == nil {
		t.Error("v=29 accepted")
	}
	bad = *tx
	bad.S = new(big.Int).Set(crypto.S256().Params().N)
	if _, err := bad.Sender(); err == nil {
		t.Error("s=N accepted")
	}
	bad = *tx
	bad.V = new(big.Int).Add(tx.V, big.NewInt(2)) // another chain: recovers another address
	if from, err := bad.Sender(); err == nil && from == common.HexToAddress(besuSender) {
		t.Error("chain id not part of the signature")
	}
	if _, err := (&Transaction{}).Sender(); err == nil {
		t.Error("unsigned transaction has a sender")
	}
	if _, err := (&Transaction{}).MarshalBinary(); err == nil {
		t.Error("unsigned transaction encoded")
	}
}

func FuzzDecode(f *testing.F) {
	for _, v := range []string{besuSigned, besuSignedLargeChainID, besuUnsignedFor, besuUnsignedGroup} {
		b, _ := hex.DecodeString(v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := tx.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded but cannot encode: %v", err)
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("round trip differs:\n in %x\nout %x", b, enc)
		}
		_, _ = tx.Sender()
	})
}
