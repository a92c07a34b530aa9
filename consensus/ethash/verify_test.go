package ethash

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"
)

// devLikeConfig has every fork through Osaka active from genesis, like
// Basalt's dev network.
func devLikeConfig() *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID:             big.NewInt(1337),
		HomesteadBlock:      big.NewInt(0),
		EIP150Block:         big.NewInt(0),
		EIP155Block:         big.NewInt(0),
		EIP158Block:         big.NewInt(0),
		ByzantiumBlock:      big.NewInt(0),
		ConstantinopleBlock: big.NewInt(0),
		PetersburgBlock:     big.NewInt(0),
		IstanbulBlock:       big.NewInt(0),
		MuirGlacierBlock:    big.NewInt(0),
		BerlinBlock:         big.NewInt(0),
		LondonBlock:         big.NewInt(0),
		ArrowGlacierBlock:   big.NewInt(0),
		GrayGlacierBlock:    big.NewInt(0),
		ShanghaiTime:        &zero,
		CancunTime:          &zero,
		PragueTime:          &zero,
		OsakaTime:           &zero,
		Ethash:              new(params.EthashConfig),
		BlobScheduleConfig:  params.DefaultBlobSchedule,
	}
}

func frontierConfig() *params.ChainConfig {
	return &params.ChainConfig{ChainID: big.NewInt(1), Ethash: new(params.EthashConfig)}
}

func u64p(v uint64) *uint64 { return &v }

// devParent is a post-Prague PoW header as the dev network would have.
func devParent() *types.Header {
	return &types.Header{
		Number:           big.NewInt(10),
		Time:             1_700_000_000,
		Difficulty:       big.NewInt(100),
		GasLimit:         30_000_000,
		GasUsed:          20_000_000,
		BaseFee:          big.NewInt(1_000_000_000),
		UncleHash:        types.EmptyUncleHash,
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		BlobGasUsed:      u64p(3 * params.BlobTxBlobGasPerBlob),
		ExcessBlobGas:    u64p(0),
		ParentBeaconRoot: &common.Hash{},
		RequestsHash:     &types.EmptyRequestsHash,
	}
}

// devChild is a valid (unsealed) child of parent under devLikeConfig and
// fixed difficulty 100.
func devChild(config *params.ChainConfig, parent *types.Header) *types.Header {
	t := parent.Time + 2
	return &types.Header{
		ParentHash:       parent.Hash(),
		Number:           new(big.Int).Add(parent.Number, common.Big1),
		Time:             t,
		Difficulty:       big.NewInt(100),
		GasLimit:         parent.GasLimit,
		BaseFee:          eip1559.CalcBaseFee(config, parent),
		UncleHash:        types.EmptyUncleHash,
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		BlobGasUsed:      u64p(0),
		ExcessBlobGas:    u64p(eip4844.CalcExcessBlobGas(config, parent, t)),
		ParentBeaconRoot: &common.Hash{},
		RequestsHash:     &types.EmptyRequestsHash,
	}
}

// fixedClock makes e believe the time is sec.
func fixedClock(e *Ethash, sec uint64) {
	e.now = func() time.Time { return time.Unix(int64(sec), 0) }
}

func TestVerifyHeaderDevForks(t *testing.T) {
	config := devLikeConfig()
	chain := newFakeChain(config)
	parent := devParent()
	e := newTestEngine(Config{FixedDifficulty: big.NewInt(100), Threads: 1})
	fixedClock(e, parent.Time+10)

	tests := []struct {
		name    string
		mutate  func(h *types.Header)
		wantErr error  // sentinel, or
		wantMsg string // substring of the error
	}{
		{name: "valid", mutate: func(h *types.Header) {}},
		{name: "15 s ahead of the clock", mutate: func(h *types.Header) { h.Time = parent.Time + 10 + 15 }},
		{name: "number skips", mutate: func(h *types.Header) { h.Number.SetUint64(12) }, wantErr: consensus.ErrInvalidNumber},
		{name: "16 s ahead of the clock", mutate: func(h *types.Header) { h.Time = parent.Time + 10 + 16 }, wantErr: consensus.ErrFutureBlock},
		{name: "same time as parent", mutate: func(h *types.Header) { h.Time = parent.Time }, wantErr: consensus.ErrInvalidTimestamp},
		{name: "extra 33 bytes", mutate: func(h *types.Header) { h.Extra = make([]byte, 33) }, wantMsg: "extra-data too long"},
		{name: "gas used above limit", mutate: func(h *types.Header) { h.GasUsed = h.GasLimit + 1 }, wantMsg: "invalid gas used"},
		{name: "difficulty not the fixed one", mutate: func(h *types.Header) { h.Difficulty.SetInt64(101) }, wantMsg: "invalid difficulty"},
		{name: "gas limit jump", mutate: func(h *types.Header) { h.GasLimit += h.GasLimit / 1024 }, wantMsg: "invalid gas limit"},
		{name: "wrong base fee", mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Add(h.BaseFee, common.Big1) }, wantMsg: "invalid baseFee"},
		{name: "no base fee", mutate: func(h *types.Header) { h.BaseFee = nil }, wantMsg: "missing baseFee"},
		{name: "no withdrawals root", mutate: func(h *types.Header) { h.WithdrawalsHash = nil }, wantMsg: "missing withdrawalsRoot"},
		{name: "non-empty withdrawals root", mutate: func(h *types.Header) { h.WithdrawalsHash = &common.Hash{1} }, wantMsg: "no withdrawals"},
		{name: "no parent beacon root", mutate: func(h *types.Header) { h.ParentBeaconRoot = nil }, wantMsg: "missing parentBeaconBlockRoot"},
		{name: "any parent beacon root", mutate: func(h *types.Header) { h.ParentBeaconRoot = &common.Hash{7} }},
		{name: "no excess blob gas", mutate: func(h *types.Header) { h.ExcessBlobGas = nil }, wantMsg: "missing excessBlobGas"},
		{name: "wrong excess blob gas", mutate: func(h *types.Header) { *h.ExcessBlobGas += params.BlobTxBlobGasPerBlob }, wantMsg: "invalid excessBlobGas"},
		{name: "blob gas not a multiple of a blob", mutate: func(h *types.Header) { *h.BlobGasUsed = 1 }, wantMsg: "not a multiple"},
		{name: "no requests hash", mutate: func(h *types.Header) { h.RequestsHash = nil }, wantMsg: "missing requestsHash"},
		{name: "block access list hash", mutate: func(h *types.Header) { h.BlockAccessListHash = &common.Hash{} }, wantMsg: "blockAccessListHash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := devChild(config, parent)
			tt.mutate(h)
			checkErr(t, e.VerifyHeader(chain, h, parent, false), tt.wantErr, tt.wantMsg)
		})
	}

	t.Run("seal checked", func(t *testing.T) {
		h := devChild(config, parent)
		if err := e.VerifyHeader(chain, h, parent, true); !errors.Is(err, consensus.ErrInvalidSeal) {
			t.Fatalf("unsealed header with seal=true: %v, want ErrInvalidSeal", err)
		}
		sealed, err := e.Seal(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.VerifyHeader(chain, sealed, parent, true); err != nil {
			t.Fatalf("sealed header: %v", err)
		}
	})
}

func TestVerifyHeaderFrontier(t *testing.T) {
	config := frontierConfig()
	chain := newFakeChain(config)
	e := newTestEngine(Config{Threads: 1})
	parent := &types.Header{
		Number: big.NewInt(100), Time: 1_000_000, Difficulty: big.NewInt(1_000_000),
		GasLimit: 5_000_000, UncleHash: types.EmptyUncleHash,
	}
	child := func() *types.Header {
		h := &types.Header{
			ParentHash: parent.Hash(), Number: big.NewInt(101), Time: parent.Time + 5,
			GasLimit: parent.GasLimit, UncleHash: types.EmptyUncleHash,
		}
		h.Difficulty = e.CalcDifficulty(config, h.Time, parent)
		return h
	}
	noBlobs := *frontierConfig()
	zero := uint64(0)
	noBlobs.LondonBlock, noBlobs.ShanghaiTime, noBlobs.CancunTime = big.NewInt(101), &zero, &zero

	tests := []struct {
		name    string
		config  *params.ChainConfig
		mutate  func(h *types.Header)
		wantErr error
		wantMsg string
	}{
		{name: "valid", mutate: func(h *types.Header) {}},
		{name: "gas limit +1/1024 - 1", mutate: func(h *types.Header) { h.GasLimit += h.GasLimit/1024 - 1 }},
		{name: "gas limit +1/1024", mutate: func(h *types.Header) { h.GasLimit += h.GasLimit / 1024 }, wantMsg: "invalid gas limit"},
		{name: "gas limit -1/1024", mutate: func(h *types.Header) { h.GasLimit -= h.GasLimit / 1024 }, wantMsg: "invalid gas limit"},
		{name: "dynamic difficulty off by one", mutate: func(h *types.Header) { h.Difficulty.Add(h.Difficulty, common.Big1) }, wantMsg: "invalid difficulty"},
		{name: "base fee before London", mutate: func(h *types.Header) { h.BaseFee = big.NewInt(7) }, wantMsg: "before London"},
		{name: "withdrawals root before Shanghai", mutate: func(h *types.Header) { h.WithdrawalsHash = &types.EmptyWithdrawalsHash }, wantMsg: "before Shanghai"},
		{name: "blob gas before Cancun", mutate: func(h *types.Header) { h.BlobGasUsed = u64p(0) }, wantMsg: "before Cancun"},
		{name: "beacon root before Cancun", mutate: func(h *types.Header) { h.ParentBeaconRoot = &common.Hash{} }, wantMsg: "before Cancun"},
		{name: "requests hash before Prague", mutate: func(h *types.Header) { h.RequestsHash = &types.EmptyRequestsHash }, wantMsg: "before Prague"},
		{name: "no difficulty", mutate: func(h *types.Header) { h.Difficulty = nil }, wantMsg: "without number or difficulty"},
		{
			// go-ethereum's EIP-4844 check panics without a blob schedule;
			// the engine must return an error instead.
			name: "Cancun without blob schedule", config: &noBlobs,
			mutate: func(h *types.Header) {
				h.BaseFee = eip1559.CalcBaseFee(&noBlobs, parent)
				h.GasLimit = parent.GasLimit * 2
				h.WithdrawalsHash = &types.EmptyWithdrawalsHash
				h.BlobGasUsed, h.ExcessBlobGas, h.ParentBeaconRoot = u64p(0), u64p(0), &common.Hash{}
			},
			wantMsg: "blobSchedule",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config
			if tt.config != nil {
				cfg = tt.config
			}
			h := child()
			tt.mutate(h)
			err := e.VerifyHeader(newFakeChain(cfg), h, parent, false)
			checkErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
	if err := e.VerifyHeader(chain, child(), nil, false); !errors.Is(err, consensus.ErrUnknownAncestor) {
		t.Errorf("nil parent: %v", err)
	}
}

func checkErr(t *testing.T, err, wantErr error, wantMsg string) {
	t.Helper()
	switch {
	case wantErr == nil && wantMsg == "":
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	case err == nil:
		t.Fatalf("accepted, want error %v%s", wantErr, wantMsg)
	case wantErr != nil && !errors.Is(err, wantErr):
		t.Fatalf("error %v, want %v", err, wantErr)
	case wantMsg != "" && !strings.Contains(err.Error(), wantMsg):
		t.Fatalf("error %q, want it to contain %q", err, wantMsg)
	}
}

// uncleChain builds a sealed Frontier chain of n blocks after a genesis with
// fixed difficulty 1, so every header's seal is real but found at once.
type uncleChain struct {
	t      *testing.T
	e      *Ethash
	chain  *fakeChain
	blocks []*types.Block
}

func newUncleChain(t *testing.T, n int) *uncleChain {
	c := &uncleChain{t: t, e: newTestEngine(Config{FixedDifficulty: big.NewInt(1), Threads: 1}), chain: newFakeChain(frontierConfig())}
	genesis := types.NewBlockWithHeader(&types.Header{
		Number: big.NewInt(0), Time: 1000, Difficulty: big.NewInt(1), GasLimit: 5_000_000, UncleHash: types.EmptyUncleHash,
	})
	c.blocks = append(c.blocks, genesis)
	c.chain.addBlock(genesis)
	for i := 0; i < n; i++ {
		b := c.build(c.blocks[len(c.blocks)-1].Header(), 0, nil)
		c.blocks = append(c.blocks, b)
		c.chain.addBlock(b)
	}
	return c
}

// build seals a child of parent (extra distinguishes siblings) with uncles.
func (c *uncleChain) build(parent *types.Header, extra byte, uncles []*types.Header) *types.Block {
	c.t.Helper()
	h := &types.Header{
		ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1),
		Time: parent.Time + 10, Difficulty: big.NewInt(1), GasLimit: parent.GasLimit,
		Extra: []byte{extra}, UncleHash: types.CalcUncleHash(uncles),
	}
	sealed, err := c.e.Seal(context.Background(), h)
	if err != nil {
		c.t.Fatal(err)
	}
	return types.NewBlockWithHeader(sealed).WithBody(types.Body{Uncles: uncles})
}

func TestVerifyUncles(t *testing.T) {
	c := newUncleChain(t, 9) // blocks 0..9
	e := c.e
	h := func(n int) *types.Header { return c.blocks[n].Header() }

	uncleOf := func(parent int, extra byte) *types.Header { return c.build(h(parent), extra, nil).Header() }
	u8 := uncleOf(8, 1) // sibling of block 9: a valid uncle for block 10
	u3 := uncleOf(3, 2) // child of block 3: 7 generations back from block 10
	u2 := uncleOf(2, 3) // child of block 2: too old for block 10
	u9 := uncleOf(9, 4) // sibling of block 10 itself
	badSeal := types.CopyHeader(uncleOf(7, 5))
	badSeal.MixDigest[0] ^= 1
	badDifficulty := uncleOf(6, 6)
	badDifficulty.Difficulty = big.NewInt(2) // seal recomputed below
	if s, err := newTestEngine(Config{FixedDifficulty: big.NewInt(2), Threads: 1}).Seal(context.Background(), badDifficulty); err == nil {
		badDifficulty = s
	} else {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		uncles  []*types.Header
		wantErr error
		wantMsg string
	}{
		{name: "none"},
		{name: "one, depth 2", uncles: []*types.Header{u8}},
		{name: "two, depths 2 and 7", uncles: []*types.Header{u8, u3}},
		{name: "three", uncles: []*types.Header{u8, u3, uncleOf(5, 9)}, wantErr: consensus.ErrTooManyUncles},
		{name: "duplicate", uncles: []*types.Header{u8, u8}, wantErr: errDuplicateUncle},
		{name: "ancestor", uncles: []*types.Header{h(9)}, wantErr: errUncleIsAncestor},
		{name: "sibling of the block", uncles: []*types.Header{u9}, wantErr: errDanglingUncle},
		{name: "8 generations back", uncles: []*types.Header{u2}, wantErr: errDanglingUncle},
		{name: "bad seal", uncles: []*types.Header{badSeal}, wantErr: consensus.ErrInvalidSeal},
		{name: "bad difficulty", uncles: []*types.Header{badDifficulty}, wantMsg: "invalid difficulty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := c.build(h(9), 0, tt.uncles)
			checkErr(t, e.VerifyUncles(c.chain, b, true), tt.wantErr, tt.wantMsg)
		})
	}

	t.Run("uncle included twice in the chain", func(t *testing.T) {
		b10 := c.build(h(9), 0, []*types.Header{u8})
		c.chain.addBlock(b10)
		b11 := c.build(b10.Header(), 0, []*types.Header{u8})
		checkErr(t, e.VerifyUncles(c.chain, b11, true), errDuplicateUncle, "")
		// Without BlockReader the engine cannot see earlier inclusions.
		if err := e.VerifyUncles(headersOnly{c.chain}, b11, true); err != nil {
			t.Fatalf("headers-only chain: %v", err)
		}
	})
}

// TestVerifyUnclesWithoutSeal: seal=false skips the proof of work of the
// ommers (as of the block's own header, see VerifyHeader) and nothing else:
// ommers that were never sealed pass, every other ommer rule still holds.
func TestVerifyUnclesWithoutSeal(t *testing.T) {
	c := newUncleChain(t, 9) // blocks 0..9
	e := c.e
	h := func(n int) *types.Header { return c.blocks[n].Header() }

	// unsealed is a child of block parent that no one sealed: nonce and mix
	// digest zero, so its proof of work fails even at difficulty 1.
	unsealed := func(parent int, extra byte, mod func(*types.Header)) *types.Header {
		p := h(parent)
		u := &types.Header{
			ParentHash: p.Hash(), Number: new(big.Int).Add(p.Number, common.Big1),
			Time: p.Time + 10, Difficulty: big.NewInt(1), GasLimit: p.GasLimit,
			Extra: []byte{extra}, UncleHash: types.EmptyUncleHash,
		}
		if mod != nil {
			mod(u)
		}
		return u
	}
	u8 := unsealed(8, 1, nil)
	u3 := unsealed(3, 2, nil)
	if err := e.VerifyPoW(u8); !errors.Is(err, consensus.ErrInvalidSeal) {
		t.Fatalf("the unsealed uncle's proof of work: %v, want %v", err, consensus.ErrInvalidSeal)
	}

	tests := []struct {
		name    string
		uncles  []*types.Header
		wantErr error
		wantMsg string
	}{
		{name: "one, depth 2", uncles: []*types.Header{u8}},
		{name: "two, depths 2 and 7", uncles: []*types.Header{u8, u3}},
		{name: "three", uncles: []*types.Header{u8, u3, unsealed(5, 3, nil)}, wantErr: consensus.ErrTooManyUncles},
		{name: "duplicate", uncles: []*types.Header{u8, u8}, wantErr: errDuplicateUncle},
		{name: "ancestor", uncles: []*types.Header{h(9)}, wantErr: errUncleIsAncestor},
		{name: "sibling of the block", uncles: []*types.Header{unsealed(9, 4, nil)}, wantErr: errDanglingUncle},
		{name: "8 generations back", uncles: []*types.Header{unsealed(2, 5, nil)}, wantErr: errDanglingUncle},
		{name: "bad difficulty", uncles: []*types.Header{unsealed(7, 6, func(u *types.Header) { u.Difficulty = big.NewInt(2) })}, wantMsg: "invalid difficulty"},
		{name: "not after its parent", uncles: []*types.Header{unsealed(7, 7, func(u *types.Header) { u.Time = h(7).Time })}, wantErr: consensus.ErrInvalidTimestamp},
		{name: "wrong number", uncles: []*types.Header{unsealed(7, 8, func(u *types.Header) { u.Number = big.NewInt(9) })}, wantErr: consensus.ErrInvalidNumber},
		{name: "gas used above limit", uncles: []*types.Header{unsealed(7, 9, func(u *types.Header) { u.GasUsed = u.GasLimit + 1 })}, wantMsg: "invalid gas used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := c.build(h(9), 0, tt.uncles)
			checkErr(t, e.VerifyUncles(c.chain, b, false), tt.wantErr, tt.wantMsg)
			// With seals checked the seal is the valid cases' one fault
			// (the others may fail on the seal before their own fault).
			err := e.VerifyUncles(c.chain, b, true)
			if tt.wantErr == nil && tt.wantMsg == "" {
				checkErr(t, err, consensus.ErrInvalidSeal, "")
			} else if err == nil {
				t.Fatal("seal=true: accepted")
			}
		})
	}

	t.Run("uncle included twice in the chain", func(t *testing.T) {
		b10 := c.build(h(9), 0, []*types.Header{u8})
		c.chain.addBlock(b10)
		b11 := c.build(b10.Header(), 0, []*types.Header{u8})
		checkErr(t, e.VerifyUncles(c.chain, b11, false), errDuplicateUncle, "")
	})
}

// headersOnly hides fakeChain's GetBlock.
type headersOnly struct{ *fakeChain }

func (headersOnly) GetBlock() {}
