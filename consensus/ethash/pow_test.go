package ethash

import (
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus"
)

// testEngine is shared by the tests of this package so that the epoch-0
// cache is generated once per test binary.
var (
	testEngineOnce sync.Once
	testEngineVal  *Ethash
)

func testEngine() *Ethash {
	testEngineOnce.Do(func() { testEngineVal = New(Config{Threads: 2}) })
	return testEngineVal
}

// newTestEngine returns an engine with cfg that shares testEngine's caches.
func newTestEngine(cfg Config) *Ethash {
	e := New(cfg)
	e.caches = testEngine().caches
	return e
}

// mainnetBlock1 is the header of Ethereum mainnet block 1.
func mainnetBlock1() *types.Header {
	return &types.Header{
		ParentHash:  common.HexToHash("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    common.HexToAddress("0x05a56e2d52c817161883f50c441c3228cfe54d9f"),
		Root:        common.HexToHash("0xd67e4d450343046425ae4271474353857ab860dbc0a1dde64b41b5cd3a532bf3"),
		TxHash:      types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash,
		Difficulty:  big.NewInt(17171480576),
		Number:      big.NewInt(1),
		GasLimit:    5000,
		GasUsed:     0,
		Time:        1438269988,
		Extra:       []byte("Geth/v1.0.0/linux/go1.4.2"),
		MixDigest:   common.HexToHash("0x969b900de27b6ac6a67742365dd65f55a0526c41fd18e1b16f1a1215c2e66f59"),
		Nonce:       types.EncodeNonce(0x539bd4979fef1ec4),
	}
}

// mainnetBlock3311058 is the header of mainnet block 3,311,058 (epoch 110),
// used by go-ethereum's former ethash tests.
func mainnetBlock3311058() *types.Header {
	return &types.Header{
		Number:      big.NewInt(3311058),
		ParentHash:  common.HexToHash("0xd783efa4d392943503f28438ad5830b2d5964696ffc285f338585e9fe0a37a05"),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    common.HexToAddress("0xc0ea08a2d404d3172d2add29a45be56da40e2949"),
		Root:        common.HexToHash("0x77d14e10470b5850332524f8cd6f69ad21f070ce92dca33ab2858300242ef2f1"),
		TxHash:      types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash,
		Difficulty:  big.NewInt(167925187834220),
		GasLimit:    4015682,
		GasUsed:     0,
		Time:        1488928920,
		Extra:       []byte("www.bw.com"),
		MixDigest:   common.HexToHash("0x3e140b0784516af5e5ec6730f2fb20cca22f32be399b9e4ad77d32541f798cd0"),
		Nonce:       types.EncodeNonce(0xf400cd0006070c49),
	}
}

func TestMainnetBlock1Hash(t *testing.T) {
	// Guards the header literal: if a field were wrong, the PoW tests below
	// would test nothing real.
	want := common.HexToHash("0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6")
	if got := testEngine().Hash(mainnetBlock1()); got != want {
		t.Fatalf("hash %x, want %x", got, want)
	}
}

func TestVerifyPoW(t *testing.T) {
	e := testEngine()
	tests := []struct {
		name    string
		header  func() *types.Header
		valid   bool
		long    bool
		wantMsg string
	}{
		{name: "mainnet block 1", header: mainnetBlock1, valid: true},
		{name: "block 1, tampered nonce", header: func() *types.Header {
			h := mainnetBlock1()
			h.Nonce = types.EncodeNonce(h.Nonce.Uint64() + 1)
			return h
		}},
		{name: "block 1, tampered mix digest", header: func() *types.Header {
			h := mainnetBlock1()
			h.MixDigest[0] ^= 1
			return h
		}},
		{name: "block 1, tampered sealed field", header: func() *types.Header {
			h := mainnetBlock1()
			h.Time++
			return h
		}},
		{name: "block 1, difficulty raised beyond the result (mix digest recomputed)", header: func() *types.Header {
			h := mainnetBlock1()
			h.Difficulty = new(big.Int).Lsh(big.NewInt(1), 200)
			h.MixDigest, _ = e.Compute(1, SealHash(h), h.Nonce.Uint64())
			return h
		}, wantMsg: "above target"},
		{name: "block 1, zero difficulty", header: func() *types.Header {
			h := mainnetBlock1()
			h.Difficulty = new(big.Int)
			return h
		}},
		{name: "mainnet block 3311058 (epoch 110)", header: mainnetBlock3311058, valid: true, long: true},
		{name: "block 3311058, tampered nonce", header: func() *types.Header {
			h := mainnetBlock3311058()
			h.Nonce[7] ^= 1
			return h
		}, long: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("generates a 31 MB cache")
			}
			err := e.VerifyPoW(tt.header())
			switch {
			case tt.valid && err != nil:
				t.Fatalf("valid seal rejected: %v", err)
			case !tt.valid && err == nil:
				t.Fatal("invalid seal accepted")
			case !tt.valid && !errors.Is(err, consensus.ErrInvalidSeal):
				t.Fatalf("error %v does not wrap ErrInvalidSeal", err)
			case !tt.valid && !strings.Contains(err.Error(), tt.wantMsg):
				t.Fatalf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestCompute(t *testing.T) {
	h := mainnetBlock1()
	mix, result := testEngine().Compute(1, SealHash(h), h.Nonce.Uint64())
	if mix != h.MixDigest {
		t.Errorf("mix %x, want %x", mix, h.MixDigest)
	}
	if new(big.Int).SetBytes(result[:]).Cmp(Target(h.Difficulty)) > 0 {
		t.Errorf("result %x above target", result)
	}
}

func TestTarget(t *testing.T) {
	tests := []struct {
		difficulty *big.Int
		want       *big.Int
	}{
		{big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 256)},
		{big.NewInt(2), new(big.Int).Lsh(big.NewInt(1), 255)},
		{big.NewInt(100), new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(100))},
		{big.NewInt(0), new(big.Int)},
		{big.NewInt(-5), new(big.Int)},
		{nil, new(big.Int)},
	}
	for _, tt := range tests {
		if got := Target(tt.difficulty); got.Cmp(tt.want) != 0 {
			t.Errorf("Target(%v) = %v, want %v", tt.difficulty, got, tt.want)
		}
	}
}

// sealHashReference builds the seal hash field by field, independently of
// SealHash's cut-out-of-the-encoding approach.
func sealHashReference(h *types.Header) common.Hash {
	fields := []any{h.ParentHash, h.UncleHash, h.Coinbase, h.Root, h.TxHash, h.ReceiptHash,
		h.Bloom, h.Difficulty, h.Number, h.GasLimit, h.GasUsed, h.Time, h.Extra}
	if h.BaseFee != nil {
		fields = append(fields, h.BaseFee)
	}
	if h.WithdrawalsHash != nil {
		fields = append(fields, h.WithdrawalsHash)
	}
	if h.BlobGasUsed != nil {
		fields = append(fields, *h.BlobGasUsed, *h.ExcessBlobGas, h.ParentBeaconRoot)
	}
	if h.RequestsHash != nil {
		fields = append(fields, h.RequestsHash)
	}
	enc, err := rlp.EncodeToBytes(fields)
	if err != nil {
		panic(err)
	}
	return crypto.Keccak256Hash(enc)
}

func TestSealHash(t *testing.T) {
	u64 := func(v uint64) *uint64 { return &v }
	hash := func(b byte) *common.Hash { h := common.Hash{b}; return &h }

	london := mainnetBlock1()
	london.BaseFee = big.NewInt(1_000_000_000)
	shanghai := types.CopyHeader(london)
	shanghai.WithdrawalsHash = &types.EmptyWithdrawalsHash
	cancun := types.CopyHeader(shanghai)
	cancun.BlobGasUsed, cancun.ExcessBlobGas, cancun.ParentBeaconRoot = u64(131072), u64(0), hash(0)
	prague := types.CopyHeader(cancun)
	prague.RequestsHash = &types.EmptyRequestsHash

	for name, h := range map[string]*types.Header{
		"frontier": mainnetBlock1(), "london": london, "shanghai": shanghai, "cancun": cancun, "prague": prague,
	} {
		want := sealHashReference(h)
		if got := SealHash(h); got != want {
			t.Errorf("%s: SealHash %x, want %x", name, got, want)
		}
		// The seal fields do not enter the seal hash; every other does.
		sealed := types.CopyHeader(h)
		sealed.Nonce = types.EncodeNonce(42)
		sealed.MixDigest = common.Hash{0xaa}
		if SealHash(sealed) != want {
			t.Errorf("%s: nonce or mix digest changed the seal hash", name)
		}
		changed := types.CopyHeader(h)
		changed.GasUsed++
		if SealHash(changed) == want {
			t.Errorf("%s: gas used did not change the seal hash", name)
		}
	}
	if SealHash(london) == SealHash(mainnetBlock1()) {
		t.Error("base fee did not change the seal hash")
	}
	if SealHash(prague) == SealHash(cancun) {
		t.Error("requests hash did not change the seal hash")
	}
}

func TestCacheLRU(t *testing.T) {
	l := newCacheLRU(2)
	// Concurrent requests for one epoch share one generation.
	var wg sync.WaitGroup
	got := make([]*epochCache, 4)
	for i := range got {
		wg.Go(func() {
			c, err := l.get(0)
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatal("concurrent requests generated the epoch-0 cache more than once")
		}
	}
	if len(got[0].data) != int(CacheSize(0)/4) || got[0].datasetSize != DatasetSize(0) {
		t.Fatalf("epoch 0 cache has %d words, dataset size %d", len(got[0].data), got[0].datasetSize)
	}
	if _, err := l.get(maxEpoch); err == nil {
		t.Error("epoch beyond maximum accepted")
	}
}
