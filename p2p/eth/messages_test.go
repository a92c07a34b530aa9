package eth

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	deadc0de = common.HexToHash("0xdeadc0de")
	feedbeef = common.HexToHash("0xfeedbeef")
)

// Vectors of EIP-2481 (request IDs, eth/66), request ID 1111.
func TestEIP2481Vectors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		code   uint64
		packet any
		want   Message
		enc    string
	}{
		{
			"GetBlockHeaders by hash", GetBlockHeadersMsg,
			&getBlockHeadersPacket{1111, HeadersRequest{HashOrNumber{Hash: deadc0de}, 5, 5, false}},
			&GetHeaders{1111, HeadersRequest{HashOrNumber{Hash: deadc0de}, 5, 5, false}},
			"e8820457e4a000000000000000000000000000000000000000000000000000000000deadc0de050580",
		},
		{
			"GetBlockHeaders by number", GetBlockHeadersMsg,
			&getBlockHeadersPacket{1111, HeadersRequest{HashOrNumber{Number: 9999}, 5, 5, false}},
			&GetHeaders{1111, HeadersRequest{HashOrNumber{Number: 9999}, 5, 5, false}},
			"ca820457c682270f050580",
		},
		{
			"GetBlockBodies", GetBlockBodiesMsg,
			&hashesRequestPacket{1111, []common.Hash{deadc0de, feedbeef}},
			&GetHashes{GetBlockBodiesMsg, 1111, []common.Hash{deadc0de, feedbeef}},
			"f847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef",
		},
		{
			"GetReceipts", GetReceiptsMsg,
			&hashesRequestPacket{1111, []common.Hash{deadc0de, feedbeef}},
			&GetHashes{GetReceiptsMsg, 1111, []common.Hash{deadc0de, feedbeef}},
			"f847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef",
		},
		{
			"GetPooledTransactions", GetPooledTransactionsMsg,
			&hashesRequestPacket{1111, []common.Hash{deadc0de, feedbeef}},
			&GetHashes{GetPooledTransactionsMsg, 1111, []common.Hash{deadc0de, feedbeef}},
			"f847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef",
		},
	} {
		enc, err := rlp.EncodeToBytes(tc.packet)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := hex.EncodeToString(enc); got != tc.enc {
			t.Errorf("%s: encoding\n got %s\nwant %s", tc.name, got, tc.enc)
		}
		m, err := Decode(ETH68, tc.code, unhex(t, tc.enc))
		if err != nil {
			t.Fatalf("%s: decode: %v", tc.name, err)
		}
		if !reflect.DeepEqual(m, tc.want) {
			t.Errorf("%s: decoded %+v, want %+v", tc.name, m, tc.want)
		}
	}
}

func TestStatusRoundTrip(t *testing.T) {
	st := &Status{
		ProtocolVersion: 68,
		NetworkID:       1337,
		TD:              big.NewInt(1 << 40),
		Head:            deadc0de,
		Genesis:         feedbeef,
		ForkID:          forkid.ID{Hash: [4]byte{1, 2, 3, 4}, Next: 99},
	}
	enc, _ := rlp.EncodeToBytes(st)
	m, err := Decode(ETH68, StatusMsg, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, st) {
		t.Fatalf("decoded %+v, want %+v", m, st)
	}
}

func TestPooledHashesByVersion(t *testing.T) {
	ann := pooledHashes68{Types: []byte{0, 2}, Sizes: []uint32{100, 200}, Hashes: []common.Hash{deadc0de, feedbeef}}
	enc68, _ := rlp.EncodeToBytes(&ann)
	m, err := Decode(ETH68, NewPooledTransactionHashesMsg, enc68)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*PooledHashes); !reflect.DeepEqual(got.Hashes, ann.Hashes) || !bytes.Equal(got.Types, ann.Types) {
		t.Fatalf("eth/68 announcement decoded as %+v", got)
	}
	// eth/67 announces a plain hash list; the eth/68 layout is invalid there.
	enc67, _ := rlp.EncodeToBytes(ann.Hashes)
	if m, err := Decode(ETH67, NewPooledTransactionHashesMsg, enc67); err != nil || len(m.(*PooledHashes).Hashes) != 2 {
		t.Fatalf("eth/67 announcement: %v %v", m, err)
	}
	if _, err := Decode(ETH67, NewPooledTransactionHashesMsg, enc68); err == nil {
		t.Fatal("eth/68 layout accepted in eth/67")
	}
}

func TestDecodeRejects(t *testing.T) {
	valid, _ := rlp.EncodeToBytes(&hashesRequestPacket{1, []common.Hash{deadc0de}})
	mismatched, _ := rlp.EncodeToBytes(&pooledHashes68{Types: []byte{0}, Sizes: []uint32{1, 2}, Hashes: []common.Hash{deadc0de}})
	noForkID, _ := rlp.EncodeToBytes([]any{uint32(68), uint64(1), uint64(5), deadc0de, feedbeef})
	hugeTD, _ := rlp.EncodeToBytes(&Status{ProtocolVersion: 68, TD: new(big.Int).Lsh(big.NewInt(1), 200)})
	badOrigin, _ := rlp.EncodeToBytes([]any{uint64(1), []any{make([]byte, 20), uint64(1), uint64(0), false}})
	bigNumber := &types.Header{Number: new(big.Int).Lsh(big.NewInt(1), 70), Difficulty: big.NewInt(1)}
	badHeaders, _ := rlp.EncodeToBytes(&blockHeadersPacket{1, []*types.Header{bigNumber}})
	for _, tc := range []struct {
		name    string
		version uint
		code    uint64
		payload []byte
		want    error
	}{
		{"empty payload", ETH68, GetBlockBodiesMsg, nil, ErrDecode},
		{"not RLP", ETH68, TransactionsMsg, []byte{0xff, 0x01}, ErrDecode},
		{"trailing bytes", ETH68, GetBlockBodiesMsg, append(valid, 0x80), ErrDecode},
		{"truncated", ETH68, GetBlockBodiesMsg, valid[:len(valid)-3], ErrDecode},
		{"wrong shape", ETH68, NewBlockMsg, valid, ErrDecode},
		{"announcement counts differ", ETH68, NewPooledTransactionHashesMsg, mismatched, ErrDecode},
		{"status without fork ID", ETH68, StatusMsg, noForkID, ErrDecode},
		{"status with huge TD", ETH68, StatusMsg, hugeTD, ErrDecode},
		{"origin of 20 bytes", ETH68, GetBlockHeadersMsg, badOrigin, ErrDecode},
		{"header number above 2^64", ETH68, BlockHeadersMsg, badHeaders, ErrDecode},
		{"unknown code", ETH68, 0x0b, valid, ErrInvalidMsgCode},
		{"GetNodeData after eth/66", ETH67, GetNodeDataMsg, valid, ErrInvalidMsgCode},
		{"oversize", ETH68, TransactionsMsg, make([]byte, MaxMessageSize+1), ErrMsgTooLarge},
	} {
		_, err := Decode(tc.version, tc.code, tc.payload)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Decode(ETH66, GetNodeDataMsg, valid); err != nil {
		t.Errorf("GetNodeData in eth/66: %v", err)
	}
}

func TestHashOrNumberEncoding(t *testing.T) {
	if _, err := rlp.EncodeToBytes(&HashOrNumber{Hash: deadc0de, Number: 1}); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("encoding both origins: %v", err)
	}
}

// FuzzDecode feeds arbitrary payloads to every message decoder: nothing may
// panic, and whatever decodes must encode again.
func FuzzDecode(f *testing.F) {
	seeds := [][]byte{
		unhex(f, "e8820457e4a000000000000000000000000000000000000000000000000000000000deadc0de050580"),
		unhex(f, "ca820457c682270f050580"),
		unhex(f, "f847820457f842a000000000000000000000000000000000000000000000000000000000deadc0dea000000000000000000000000000000000000000000000000000000000feedbeef"),
	}
	header := &types.Header{Number: big.NewInt(7), Difficulty: big.NewInt(100), BaseFee: big.NewInt(1)}
	block := types.NewBlockWithHeader(header)
	for _, v := range []any{
		&Status{68, 1337, big.NewInt(5), deadc0de, feedbeef, forkid.ID{}},
		&NewBlockPacket{Block: block, TD: big.NewInt(700)},
		&blockHeadersPacket{9, []*types.Header{header}},
		&blockBodiesPacket{9, []*BlockBody{{Uncles: []*types.Header{header}}}},
		[]BlockAnnounce{{deadc0de, 5}},
		&pooledHashes68{[]byte{2}, []uint32{120}, []common.Hash{deadc0de}},
	} {
		enc, err := rlp.EncodeToBytes(v)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, enc)
	}
	for _, s := range seeds {
		for code := uint64(0); code <= 0x10; code++ {
			f.Add(uint8(68), code, s)
		}
	}
	f.Fuzz(func(t *testing.T, version uint8, code uint64, payload []byte) {
		v := uint(ETH66 + version%3)
		m, err := Decode(v, code%0x12, payload)
		if err != nil {
			return
		}
		if _, err := rlp.EncodeToBytes(m); err != nil {
			t.Fatalf("decoded message %T does not encode: %v", m, err)
		}
	})
}
