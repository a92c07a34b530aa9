package qbft

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/consensus/ibft2"
)

// headerChain is a ChainReader over headers by the engine's hash.
type headerChain struct {
	e       *bftengine.Engine
	headers map[common.Hash]*types.Header
}

func (c *headerChain) Config() *params.ChainConfig {
	return &params.ChainConfig{ChainID: big.NewInt(1)}
}
func (c *headerChain) GetHeader(h common.Hash, _ uint64) *types.Header {
	return c.headers[h]
}
func (c *headerChain) GetHeaderByNumber(n uint64) *types.Header {
	for _, h := range c.headers {
		if h.Number.Uint64() == n {
			return h
		}
	}
	return nil
}
func (c *headerChain) add(h *types.Header) { c.headers[c.e.Hash(h)] = h }

// engineFixture is a QBFT (or migrating) engine over a chain of 4
// validators' headers.
type engineFixture struct {
	keys  []*ecdsa.PrivateKey
	vals  []common.Address
	chain *headerChain
	e     *bftengine.Engine
}

func newEngineFixture(t *testing.T, cfg string, genesisExtra func([]common.Address) []byte) *engineFixture {
	t.Helper()
	f := &engineFixture{keys: testKeys(4)}
	for _, k := range f.keys {
		f.vals = append(f.vals, addr(k))
	}
	bft.SortValidators(f.vals)
	e, err := New(parse(t, cfg), bftengine.Options{Clock: consensus.NewManualClock(time.Unix(5000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	f.e = e
	f.chain = &headerChain{e: e, headers: map[common.Hash]*types.Header{}}
	f.chain.add(&types.Header{Number: big.NewInt(0), Difficulty: big.NewInt(1), Time: 1000, GasLimit: 10_000_000,
		Extra: genesisExtra(f.vals), MixDigest: MixDigest, UncleHash: types.EmptyUncleHash})
	return f
}

// next is the block after parent, in the layout of the protocol of its
// number, committed in round by sealers.
func (f *engineFixture) next(t *testing.T, parent *types.Header, round uint32, sealers []*ecdsa.PrivateKey) *types.Header {
	t.Helper()
	n := parent.Number.Uint64() + 1
	format := f.e.Segment(n).Format
	h := &types.Header{ParentHash: f.e.Hash(parent), Number: new(big.Int).SetUint64(n), Difficulty: big.NewInt(1),
		Time: parent.Time + 1, GasLimit: parent.GasLimit, Coinbase: f.vals[int(n)%4], MixDigest: MixDigest,
		UncleHash: types.EmptyUncleHash, Extra: format.EncodeExtra(&bft.Extra{Validators: f.vals})}
	sh, err := format.SealHash(h, round)
	if err != nil {
		t.Fatal(err)
	}
	var seals [][]byte
	for _, k := range sealers {
		s, _ := crypto.Sign(sh[:], k)
		seals = append(seals, s)
	}
	h, err = bft.WithRoundAndSeals(format, h, round, seals)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// QBFT seals sign the header with the commit round: a block committed in
// round 2 verifies, the same seals on the block claiming round 0 do not,
// and its hash is the same whatever the round (QBFT's block hash).
func TestEngineQBFTSeals(t *testing.T) {
	f := newEngineFixture(t, `"qbft": {}`, EncodeValidators)
	genesis := f.chain.GetHeaderByNumber(0)
	h := f.next(t, genesis, 2, f.keys[:3])
	if err := f.e.VerifyHeader(f.chain, h, genesis, true); err != nil {
		t.Fatalf("round-2 block: %v", err)
	}
	moved, _ := WithRoundAndSeals(h, 0, mustExtra(t, h).Seals)
	if err := f.e.VerifyHeader(f.chain, moved, genesis, true); !errors.Is(err, consensus.ErrInvalidSeal) &&
		!errors.Is(err, bftengine.ErrInsufficientSeals) {
		t.Fatalf("seals of round 2 on a round-0 header: %v", err)
	}
	if f.e.Hash(moved) != f.e.Hash(h) || f.e.Hash(h) != BlockHash(h) {
		t.Fatal("the block hash depends on the round")
	}
	few := f.next(t, genesis, 0, f.keys[:2])
	if err := f.e.VerifyHeader(f.chain, few, genesis, true); !errors.Is(err, bftengine.ErrInsufficientSeals) {
		t.Fatalf("2 seals of 4: %v", err)
	}
	ibft := &types.Header{}
	*ibft = *h
	ibft.Extra = ibft2.EncodeValidators(f.vals)
	if err := f.e.VerifyHeader(f.chain, ibft, genesis, false); !errors.Is(err, ErrExtraDataFormat) {
		t.Fatalf("IBFT 2.0 extraData on a QBFT block: %v", err)
	}
}

// A migration: blocks before the start block are IBFT 2.0's, from it
// QBFT's; the validator set carries over; each side rejects the other's
// layout.
func TestEngineMigration(t *testing.T) {
	f := newEngineFixture(t, `"ibft2": {}, "qbft": {"startblock": 3}`, ibft2.EncodeValidators)
	parent := f.chain.GetHeaderByNumber(0)
	for n := uint64(1); n <= 5; n++ {
		h := f.next(t, parent, 1, f.keys[1:])
		if err := f.e.VerifyHeader(f.chain, h, parent, true); err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		_, qerr := DecodeExtraData(h.Extra)
		if (n < 3) != (qerr != nil) {
			t.Fatalf("block %d in the wrong layout", n)
		}
		if n >= 3 && f.e.Hash(h) != BlockHash(h) || n < 3 && f.e.Hash(h) != ibft2.BlockHash(h) {
			t.Fatalf("block %d hashed by the wrong protocol", n)
		}
		f.chain.add(h)
		parent = h
	}
	vals, err := f.e.ValidatorsAfter(f.chain, parent)
	if err != nil || len(vals) != 4 {
		t.Fatalf("validators after the switch %v %v", vals, err)
	}
	if f.e.Segment(2).Format.Spec().Rules != bft.IBFT2 || f.e.Segment(3).Format.Spec().Rules != bft.QBFT {
		t.Fatal("rules by block")
	}
	if len(f.e.Protocols()) != 3 {
		t.Fatalf("%d sub-protocols during a migration, want IBF/1, istanbul/100 and bftmesh/1", len(f.e.Protocols()))
	}
}

func mustExtra(t *testing.T, h *types.Header) *ExtraData {
	t.Helper()
	x, err := DecodeExtraData(h.Extra)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
