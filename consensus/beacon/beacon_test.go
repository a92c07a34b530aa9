package beacon

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/ethash"
)

type fakeChain struct {
	config  *params.ChainConfig
	headers map[common.Hash]*types.Header
}

func (c *fakeChain) Config() *params.ChainConfig { return c.config }
func (c *fakeChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := c.headers[hash]; h != nil && h.Number.Uint64() == number {
		return h
	}
	return nil
}
func (c *fakeChain) GetHeaderByNumber(number uint64) *types.Header {
	for _, h := range c.headers {
		if h.Number.Uint64() == number {
			return h
		}
	}
	return nil
}

// conformanceConfig is the fork schedule of Besu's conformance chain
// (testGenesis.json) plus the default Cancun blob schedule, which Cancun
// headers need.
func conformanceConfig() *params.ChainConfig {
	shanghai, cancun := uint64(1444660030), uint64(1444660040)
	return &params.ChainConfig{
		ChainID:            big.NewInt(1),
		LondonBlock:        big.NewInt(33),
		ShanghaiTime:       &shanghai,
		CancunTime:         &cancun,
		Ethash:             new(params.EthashConfig),
		BlobScheduleConfig: &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig},
	}
}

func conformanceBlocks(t *testing.T) []*types.Block {
	t.Helper()
	f, err := os.Open("../../../shared/conformance/besu/chain/testBlockchain.blocks")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("conformance chain not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []*types.Block
	s := rlp.NewStream(bufio.NewReader(f), 0)
	for {
		b := new(types.Block)
		if err := s.Decode(b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode block %d: %v", len(blocks), err)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) != 35 {
		t.Fatalf("read %d blocks, want 35", len(blocks))
	}
	return blocks
}

// The whole conformance chain verifies under beacon(ethash): 32 PoW blocks
// with seals, then the PoS blocks 33 (London+Shanghai) and 34 (Cancun).
func TestConformanceChain(t *testing.T) {
	blocks := conformanceBlocks(t)
	engine := New(ethash.New(ethash.Config{Threads: 1}))
	chain := &fakeChain{config: conformanceConfig(), headers: map[common.Hash]*types.Header{}}
	chain.headers[engine.Hash(blocks[0].Header())] = blocks[0].Header()

	for _, b := range blocks[1:] {
		h := b.Header()
		parent := chain.GetHeader(h.ParentHash, h.Number.Uint64()-1)
		if parent == nil {
			t.Fatalf("block %d: parent not found", h.Number)
		}
		if err := engine.VerifyHeader(chain, h, parent, true); err != nil {
			t.Fatalf("block %d: %v", h.Number, err)
		}
		if err := engine.VerifyUncles(chain, b, true); err != nil {
			t.Fatalf("block %d ommers: %v", h.Number, err)
		}
		chain.headers[engine.Hash(h)] = h
	}
	head := blocks[34].Header()
	if !IsPoSHeader(head) || IsPoSHeader(blocks[32].Header()) {
		t.Fatal("merge not between blocks 32 and 33")
	}
	want := common.HexToHash("0x4859ea10d276f6df988eabd48a02e0696cfd3deb769d2a5e0e416a5f3191028a")
	if got := engine.Hash(head); got != want {
		t.Fatalf("head hash %x, want %x", got, want)
	}
}

func TestVerifyPoSHeader(t *testing.T) {
	blocks := conformanceBlocks(t)
	b32, b33, b34 := blocks[32].Header(), blocks[33].Header(), blocks[34].Header()
	engine := New(ethash.New(ethash.Config{Threads: 1}))

	prague := conformanceConfig()
	pragueTime := uint64(1444660040)
	prague.PragueTime = &pragueTime
	prague.BlobScheduleConfig.Prague = params.DefaultPragueBlobConfig

	tests := []struct {
		name    string
		parent  *types.Header
		header  *types.Header
		config  *params.ChainConfig
		mutate  func(h *types.Header)
		wantErr error
		wantMsg string
	}{
		{name: "block 33 (first PoS, Shanghai)", parent: b32, header: b33},
		{name: "block 34 (Cancun)", parent: b33, header: b34},
		{name: "non-zero nonce", parent: b33, header: b34, mutate: func(h *types.Header) { h.Nonce = types.EncodeNonce(1) }, wantErr: consensus.ErrInvalidNonce},
		{name: "ommers hash", parent: b33, header: b34, mutate: func(h *types.Header) { h.UncleHash = common.Hash{1} }, wantErr: consensus.ErrUnexpectedUncles},
		{name: "extra 33 bytes", parent: b33, header: b34, mutate: func(h *types.Header) { h.Extra = make([]byte, 33) }, wantMsg: "extra-data too long"},
		{name: "timestamp equal to parent", parent: b33, header: b34, mutate: func(h *types.Header) { h.Time = b33.Time }, wantErr: consensus.ErrInvalidTimestamp},
		{name: "number skips", parent: b32, header: b34, wantErr: consensus.ErrInvalidNumber},
		{name: "gas used above limit", parent: b33, header: b34, mutate: func(h *types.Header) { h.GasUsed = h.GasLimit + 1 }, wantMsg: "invalid gas used"},
		{name: "gas limit jump", parent: b33, header: b34, mutate: func(h *types.Header) { h.GasLimit += h.GasLimit / 1024 }, wantMsg: "invalid gas limit"},
		{name: "wrong base fee", parent: b33, header: b34, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Add(h.BaseFee, common.Big1) }, wantMsg: "invalid baseFee"},
		{name: "no withdrawals root", parent: b32, header: b33, mutate: func(h *types.Header) { h.WithdrawalsHash = nil }, wantMsg: "missing withdrawalsRoot"},
		{name: "blob fields before Cancun", parent: b32, header: b33, mutate: func(h *types.Header) {
			zero := uint64(0)
			h.BlobGasUsed, h.ExcessBlobGas = &zero, &zero
		}, wantMsg: "before Cancun"},
		{name: "no parent beacon root", parent: b33, header: b34, mutate: func(h *types.Header) { h.ParentBeaconRoot = nil }, wantMsg: "missing parentBeaconBlockRoot"},
		{name: "wrong excess blob gas", parent: b33, header: b34, mutate: func(h *types.Header) {
			v := *h.ExcessBlobGas + params.BlobTxBlobGasPerBlob
			h.ExcessBlobGas = &v
		}, wantMsg: "invalid excessBlobGas"},
		{name: "requests hash before Prague", parent: b33, header: b34, mutate: func(h *types.Header) { h.RequestsHash = &types.EmptyRequestsHash }, wantMsg: "before Prague"},
		{name: "no requests hash under Prague", parent: b33, header: b34, config: prague, wantMsg: "missing requestsHash"},
		{name: "requests hash under Prague", parent: b33, header: b34, config: prague, mutate: func(h *types.Header) { h.RequestsHash = &types.EmptyRequestsHash }},
		{name: "PoW block after PoS parent", parent: b33, header: b34, mutate: func(h *types.Header) { h.Difficulty = big.NewInt(131072) }, wantErr: errPoWAfterMerge},
		{name: "nil parent", header: b34, wantErr: consensus.ErrUnknownAncestor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := tt.config
			if config == nil {
				config = conformanceConfig()
			}
			h := types.CopyHeader(tt.header)
			if tt.mutate != nil {
				tt.mutate(h)
			}
			err := engine.VerifyHeader(&fakeChain{config: config}, h, tt.parent, false)
			switch {
			case tt.wantErr == nil && tt.wantMsg == "":
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			case err == nil:
				t.Fatal("accepted an invalid header")
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			case tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg):
				t.Fatalf("error %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// recorder is an inner engine that records which methods were called.
type recorder struct {
	calls     []string
	uncleSeal bool // seal of the last VerifyUncles
}

func (r *recorder) Hash(h *types.Header) common.Hash {
	r.calls = append(r.calls, "Hash")
	return h.Hash()
}
func (r *recorder) Author(h *types.Header) (common.Address, error) {
	r.calls = append(r.calls, "Author")
	return common.Address{0x11}, nil
}
func (r *recorder) VerifyHeader(consensus.ChainReader, *types.Header, *types.Header, bool) error {
	r.calls = append(r.calls, "VerifyHeader")
	return nil
}
func (r *recorder) VerifyUncles(_ consensus.ChainReader, _ *types.Block, seal bool) error {
	r.calls = append(r.calls, "VerifyUncles")
	r.uncleSeal = seal
	return nil
}
func (r *recorder) Prepare(_ consensus.ChainReader, h, _ *types.Header) error {
	r.calls = append(r.calls, "Prepare")
	h.Difficulty = big.NewInt(7)
	return nil
}
func (r *recorder) Finalize(consensus.ChainReader, *types.Header, vm.StateDB, []*types.Header) {
	r.calls = append(r.calls, "Finalize")
}
func (r *recorder) Seal(_ context.Context, h *types.Header) (*types.Header, error) {
	r.calls = append(r.calls, "Seal")
	return h, nil
}
func (r *recorder) Close() error { r.calls = append(r.calls, "Close"); return nil }

func TestDelegation(t *testing.T) {
	inner := &recorder{}
	b := New(inner)
	chain := &fakeChain{config: conformanceConfig()}
	pow := &types.Header{Number: big.NewInt(5), Difficulty: big.NewInt(131072), Coinbase: common.Address{0x22}}
	powParent := &types.Header{Number: big.NewInt(4), Difficulty: big.NewInt(131072)}
	pos := &types.Header{Number: big.NewInt(6), Difficulty: new(big.Int), Coinbase: common.Address{0x33}, UncleHash: types.EmptyUncleHash}

	// Pre-merge: everything goes to the inner engine.
	b.Hash(pow)
	if a, _ := b.Author(pow); a != (common.Address{0x11}) {
		t.Errorf("pre-merge author %x not the inner engine's", a)
	}
	_ = b.VerifyHeader(chain, pow, powParent, true)
	inner.uncleSeal = true
	_ = b.VerifyUncles(chain, types.NewBlockWithHeader(pow), false)
	if inner.uncleSeal {
		t.Error("VerifyUncles did not hand seal=false to the inner engine")
	}
	_ = b.Prepare(chain, &types.Header{Number: big.NewInt(5)}, powParent)
	b.Finalize(chain, pow, nil, nil)
	_, _ = b.Seal(context.Background(), pow)
	_ = b.Close()
	want := "Hash Author VerifyHeader VerifyUncles Prepare Finalize Seal Close"
	if got := strings.Join(inner.calls, " "); got != want {
		t.Fatalf("inner calls %q, want %q", got, want)
	}

	// Post-merge: nothing goes to the inner engine.
	inner.calls = nil
	if h := b.Hash(pos); h != pos.Hash() {
		t.Error("post-merge hash is not the header hash")
	}
	if a, _ := b.Author(pos); a != pos.Coinbase {
		t.Errorf("post-merge author %x, want coinbase", a)
	}
	withUncle := types.NewBlockWithHeader(pos).WithBody(types.Body{Uncles: []*types.Header{powParent}})
	if err := b.VerifyUncles(chain, withUncle, false); !errors.Is(err, consensus.ErrUnexpectedUncles) {
		t.Errorf("post-merge block with ommer: %v", err)
	}
	if err := b.VerifyUncles(chain, types.NewBlockWithHeader(pos), true); err != nil {
		t.Errorf("post-merge block without ommers: %v", err)
	}
	child := &types.Header{Number: big.NewInt(7), Difficulty: big.NewInt(99)}
	if err := b.Prepare(chain, child, pos); err != nil || child.Difficulty.Sign() != 0 {
		t.Errorf("prepare on PoS parent: err %v, difficulty %v", err, child.Difficulty)
	}
	var cs *consensus.CannotSealError
	if _, err := b.Seal(context.Background(), pos); !errors.As(err, &cs) || cs.Reason != consensus.ReasonPostMerge || cs.Retry != 0 {
		t.Errorf("sealing a PoS header: %v", err)
	}
	if _, err := b.NextSeal(chain, pos, time.Now()); !errors.As(err, &cs) || cs.Reason != consensus.ReasonPostMerge {
		t.Errorf("scheduling on a PoS parent: %v", err)
	}
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	b.Finalize(chain, pos, st, nil)
	if bal := st.GetBalance(pos.Coinbase); !bal.IsZero() {
		t.Errorf("post-merge block paid %v to its coinbase", bal)
	}
	if len(inner.calls) != 0 {
		t.Fatalf("post-merge calls reached the inner engine: %v", inner.calls)
	}
}

// The beacon engine forwards the inner engine's capabilities through Inner
// and sets no bound of its own on pre-merge parents.
func TestCapabilities(t *testing.T) {
	pow := ethash.New(ethash.Config{})
	var e consensus.Engine = New(pow)
	w, ok := e.(consensus.Wrapper)
	if !ok || w.Inner() != consensus.Engine(pow) {
		t.Fatal("beacon does not expose its inner engine")
	}
	if _, ok := e.(consensus.PoW); ok {
		t.Fatal("beacon claims proof of work itself: the node would not reach the inner engine's")
	}
	if _, ok := w.Inner().(consensus.PoW); !ok {
		t.Fatal("ethash is not a consensus.PoW")
	}
	parent := &types.Header{Number: big.NewInt(5), Difficulty: big.NewInt(131072)}
	if at, err := e.(consensus.Scheduler).NextSeal(&fakeChain{config: conformanceConfig()}, parent, time.Now()); err != nil || !at.IsZero() {
		t.Fatalf("scheduling on a PoW parent: %v, %v", at, err)
	}
}

// With ethash inside, a PoW block still earns its reward through Beacon.
func TestFinalizePreMergeRewards(t *testing.T) {
	b := New(ethash.New(ethash.Config{}))
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	pow := &types.Header{Number: big.NewInt(5), Difficulty: big.NewInt(131072), Coinbase: common.Address{0x22}}
	b.Finalize(&fakeChain{config: conformanceConfig()}, pow, st, nil)
	if got := st.GetBalance(pow.Coinbase); got.Uint64() != 5e18 {
		t.Fatalf("PoW coinbase balance %v, want 5 ETH", got)
	}
}
