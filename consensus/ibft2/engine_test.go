package ibft2

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
)

// testChain is a ChainReader over headers by engine hash.
type testChain struct {
	cfg     *params.ChainConfig
	headers map[common.Hash]*types.Header
	byNum   map[uint64]*types.Header
}

func (c *testChain) Config() *params.ChainConfig { return c.cfg }
func (c *testChain) GetHeader(h common.Hash, n uint64) *types.Header {
	return c.headers[h]
}
func (c *testChain) GetHeaderByNumber(n uint64) *types.Header { return c.byNum[n] }
func (c *testChain) add(h *types.Header) {
	c.headers[BlockHash(h)] = h
	c.byNum[h.Number.Uint64()] = h
}

func ibftConfig() *config.IBFT2Config {
	return &config.IBFT2Config{BlockPeriodSeconds: 1, EpochLength: 30000, RequestTimeoutSeconds: 1,
		BlockReward: new(big.Int)}
}

type fixture struct {
	chain *testChain
	keys  []*ecdsa.PrivateKey
	vals  []common.Address
	e     *Engine
	now   time.Time
}

func newFixture(n int) *fixture {
	f := &fixture{keys: testKeys(n), now: time.Unix(1000, 0)}
	for _, k := range f.keys {
		f.vals = append(f.vals, addr(k))
	}
	bft.SortValidators(f.vals)
	f.chain = &testChain{cfg: &params.ChainConfig{ChainID: big.NewInt(1)}, headers: map[common.Hash]*types.Header{}, byNum: map[uint64]*types.Header{}}
	genesis := &types.Header{Number: big.NewInt(0), Difficulty: big.NewInt(1), Time: 900, GasLimit: 10_000_000,
		Extra: EncodeValidators(f.vals), MixDigest: MixDigest, UncleHash: types.EmptyUncleHash}
	f.chain.add(genesis)
	f.e = newFor(ibftConfig(), Options{Key: f.keys[0], Clock: consensus.NewManualClock(f.now)})
	return f
}

// next builds the header after parent proposed by validator key, with
// vote, sealed by sealers.
func (f *fixture) next(parent *types.Header, proposer *ecdsa.PrivateKey, vote *Vote, sealers []*ecdsa.PrivateKey) *types.Header {
	vals, _ := f.e.ValidatorsAfter(f.chain, parent)
	h := &types.Header{ParentHash: BlockHash(parent), Number: new(big.Int).Add(parent.Number, common.Big1),
		Difficulty: big.NewInt(1), Time: parent.Time + 1, GasLimit: parent.GasLimit, Coinbase: addr(proposer),
		MixDigest: MixDigest, UncleHash: types.EmptyUncleHash,
		Extra: (&ExtraData{Validators: vals, Vote: vote}).Encode()}
	return f.seal(h, 0, sealers)
}

func (f *fixture) seal(h *types.Header, round uint32, sealers []*ecdsa.PrivateKey) *types.Header {
	h, _ = WithRoundAndSeals(h, round, nil)
	d, _ := SealHash(h)
	var seals [][]byte
	for _, k := range sealers {
		s, _ := crypto.Sign(d[:], k)
		seals = append(seals, s)
	}
	h, _ = WithRoundAndSeals(h, round, seals)
	return h
}

func TestVerifyHeaderRules(t *testing.T) {
	f := newFixture(4)
	genesis := f.chain.byNum[0]
	good := f.next(genesis, f.keys[1], nil, f.keys[:3])
	if err := f.e.VerifyHeader(f.chain, good, genesis, true); err != nil {
		t.Fatalf("valid header: %v", err)
	}
	outsider, _ := crypto.GenerateKey()
	cases := []struct {
		name   string
		mutate func(h *types.Header) *types.Header
		want   error
	}{
		{"mix digest", func(h *types.Header) *types.Header { h.MixDigest = common.Hash{}; return h }, consensus.ErrInvalidMixDigest},
		{"nonce", func(h *types.Header) *types.Header { h.Nonce = types.EncodeNonce(1); return h }, consensus.ErrInvalidNonce},
		{"difficulty", func(h *types.Header) *types.Header { h.Difficulty = big.NewInt(2); return h }, consensus.ErrInvalidDifficulty},
		{"ommers", func(h *types.Header) *types.Header { h.UncleHash = common.Hash{1}; return h }, consensus.ErrUnexpectedUncles},
		{"before parent + period", func(h *types.Header) *types.Header { h.Time = genesis.Time; return f.seal(h, 0, f.keys[:3]) }, consensus.ErrInvalidTimestamp},
		{"in the future", func(h *types.Header) *types.Header {
			h.Time = uint64(f.now.Unix()) + 2
			return f.seal(h, 0, f.keys[:3])
		}, consensus.ErrFutureBlock},
		{"coinbase not a validator", func(h *types.Header) *types.Header {
			h.Coinbase = addr(outsider)
			return f.seal(h, 0, f.keys[:3])
		}, bftengine.ErrInvalidCoinbase},
		{"validators not the tally's", func(h *types.Header) *types.Header {
			h.Extra = (&ExtraData{Validators: f.vals[:3]}).Encode()
			return f.seal(h, 0, f.keys[:3])
		}, bftengine.ErrInvalidValidators},
		{"too few seals", func(h *types.Header) *types.Header { return f.seal(h, 0, f.keys[:2]) }, bftengine.ErrInsufficientSeals},
		{"duplicated seal", func(h *types.Header) *types.Header {
			return f.seal(h, 0, []*ecdsa.PrivateKey{f.keys[0], f.keys[1], f.keys[1]})
		}, consensus.ErrInvalidSeal},
		{"seal of a non-validator", func(h *types.Header) *types.Header {
			return f.seal(h, 0, []*ecdsa.PrivateKey{f.keys[0], f.keys[1], outsider})
		}, consensus.ErrInvalidSeal},
		{"seals of another round", func(h *types.Header) *types.Header {
			s := f.seal(types.CopyHeader(h), 1, f.keys[:3])
			e, _ := DecodeExtraData(s.Extra)
			h, _ = WithRoundAndSeals(h, 0, e.Seals)
			return h
		}, consensus.ErrInvalidSeal},
		{"extraData", func(h *types.Header) *types.Header { h.Extra = []byte{0xc0}; return h }, ErrExtraDataFormat},
	}
	for _, c := range cases {
		h := c.mutate(types.CopyHeader(good))
		if err := f.e.VerifyHeader(f.chain, h, genesis, true); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// Without seal checking, an unsealed header passes.
	unsealed, _ := WithRoundAndSeals(good, 0, nil)
	if err := f.e.VerifyHeader(f.chain, unsealed, genesis, false); err != nil {
		t.Fatal(err)
	}
	if BlockHash(unsealed) != BlockHash(good) {
		t.Fatal("seals change the block hash")
	}
	// The seals alone, as the chain checks a commit whose proposal passed
	// VerifyHeader without them.
	if err := f.e.VerifySeal(f.chain, good, genesis); err != nil {
		t.Fatalf("seals of a valid header: %v", err)
	}
	for _, h := range []*types.Header{unsealed, f.seal(types.CopyHeader(unsealed), 0, f.keys[:2])} {
		if err := f.e.VerifySeal(f.chain, h, genesis); !errors.Is(err, bftengine.ErrInsufficientSeals) {
			t.Errorf("%d seals: %v, want %v", len(mustSeals(t, h)), err, bftengine.ErrInsufficientSeals)
		}
	}
	foreign := f.seal(types.CopyHeader(unsealed), 0, []*ecdsa.PrivateKey{f.keys[0], f.keys[1], outsider})
	if err := f.e.VerifySeal(f.chain, foreign, genesis); !errors.Is(err, consensus.ErrInvalidSeal) {
		t.Errorf("a seal by a non-validator: %v", err)
	}
}

func mustSeals(t *testing.T, h *types.Header) [][]byte {
	t.Helper()
	e, err := DecodeExtraData(h.Extra)
	if err != nil {
		t.Fatal(err)
	}
	return e.Seals
}

// Votes in extraData change the validator set by majority; the set of any
// block is in its own extraData.
func TestVotesChangeValidators(t *testing.T) {
	f := newFixture(4)
	key, _ := crypto.GenerateKey()
	newcomer := addr(key)
	h := f.chain.byNum[0]
	for i := range 3 {
		h = f.next(h, f.keys[i], &Vote{Recipient: newcomer, Add: true}, f.keys[:3])
		if err := f.e.VerifyHeader(f.chain, h, f.chain.byNum[uint64(i)], true); err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		f.chain.add(h)
	}
	vals, _ := f.e.ValidatorsAfter(f.chain, h)
	if len(vals) != 5 || !slices.Contains(vals, newcomer) {
		t.Fatalf("validators after 3 of 4 votes: %v", vals)
	}
	// Block 4 lists five validators and needs 4 seals.
	b4 := f.next(h, f.keys[3], nil, f.keys[:3])
	if err := f.e.VerifyHeader(f.chain, b4, h, true); !errors.Is(err, bftengine.ErrInsufficientSeals) {
		t.Fatalf("3 seals of 5 validators: %v", err)
	}
	b4 = f.next(h, f.keys[3], nil, append(slices.Clone(f.keys), key)[1:])
	if err := f.e.VerifyHeader(f.chain, b4, h, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := Validators(b4); len(v) != 5 {
		t.Fatalf("block 4's own validators %v", v)
	}
	// A fresh engine (no cache) answers the same by walking the headers.
	fresh := newFor(ibftConfig(), Options{})
	if v, _ := fresh.ValidatorsAfter(f.chain, h); !slices.Equal(v, vals) {
		t.Fatalf("fresh engine: %v", v)
	}
}

// Prepare fills the IBFT 2.0 fields and the pending vote.
func TestPrepare(t *testing.T) {
	f := newFixture(4)
	key, _ := crypto.GenerateKey()
	f.e.Proposals().Propose(addr(key), true)
	h := &types.Header{Number: big.NewInt(1)}
	if err := f.e.Prepare(f.chain, h, f.chain.byNum[0]); err != nil {
		t.Fatal(err)
	}
	e, err := DecodeExtraData(h.Extra)
	if err != nil || e.Vote == nil || e.Vote.Recipient != addr(key) || !slices.Equal(e.Validators, f.vals) ||
		h.Coinbase != addr(f.keys[0]) || h.MixDigest != MixDigest || h.Difficulty.Cmp(common.Big1) != 0 {
		t.Fatalf("prepared %+v extra %+v %v", h, e, err)
	}
	verifier := newFor(ibftConfig(), Options{})
	if err := verifier.Prepare(f.chain, &types.Header{Number: big.NewInt(1)}, f.chain.byNum[0]); err == nil {
		t.Fatal("engine without a key prepared a block")
	}
}

// newFor returns the engine of a genesis whose config.ibft2 is cfg,
// without transitions.
func newFor(cfg *config.IBFT2Config, opts Options) *Engine {
	e, err := New(&config.Genesis{IBFT2: cfg}, opts)
	if err != nil {
		panic(err)
	}
	return e
}
