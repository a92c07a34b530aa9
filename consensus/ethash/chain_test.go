package ethash

import (
	"bufio"
	"errors"
	"io"
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
)

// fakeChain is an in-memory consensus.ChainReader (and BlockReader).
type fakeChain struct {
	config  *params.ChainConfig
	headers map[common.Hash]*types.Header
	blocks  map[common.Hash]*types.Block
	canon   map[uint64]*types.Header
}

func newFakeChain(config *params.ChainConfig) *fakeChain {
	return &fakeChain{
		config:  config,
		headers: make(map[common.Hash]*types.Header),
		blocks:  make(map[common.Hash]*types.Block),
		canon:   make(map[uint64]*types.Header),
	}
}

func (c *fakeChain) addHeader(h *types.Header) {
	c.headers[h.Hash()] = h
	c.canon[h.Number.Uint64()] = h
}

func (c *fakeChain) addBlock(b *types.Block) {
	c.addHeader(b.Header())
	c.blocks[b.Hash()] = b
}

func (c *fakeChain) Config() *params.ChainConfig { return c.config }

func (c *fakeChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := c.headers[hash]; h != nil && h.Number.Uint64() == number {
		return h
	}
	return nil
}

func (c *fakeChain) GetHeaderByNumber(number uint64) *types.Header { return c.canon[number] }

func (c *fakeChain) GetBlock(hash common.Hash, number uint64) *types.Block {
	if b := c.blocks[hash]; b != nil && b.NumberU64() == number {
		return b
	}
	return nil
}

// conformanceBlocks reads Besu's conformance chain (35 concatenated RLP
// blocks, 0–34) from the shared folder, skipping the test when it is absent.
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

// conformanceConfig is the fork schedule of the chain's Besu genesis
// (testGenesis.json): Frontier until London at block 33.
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

// The PoW blocks 1–32 of Besu's conformance chain (and the two ommers of
// block 4) carry valid ethash seals and Frontier difficulties, so the chain
// imports with full header validation.
func TestConformanceChainPoW(t *testing.T) {
	blocks := conformanceBlocks(t)
	e := testEngine()
	chain := newFakeChain(conformanceConfig())
	chain.addBlock(blocks[0])

	for _, b := range blocks[1:33] {
		header := b.Header()
		parent := chain.GetHeader(header.ParentHash, header.Number.Uint64()-1)
		if err := e.VerifyHeader(chain, header, parent, true); err != nil {
			t.Fatalf("block %d: %v", header.Number, err)
		}
		if err := e.VerifyUncles(chain, b, true); err != nil {
			t.Fatalf("block %d uncles: %v", header.Number, err)
		}
		chain.addBlock(b)
	}
	if n := len(blocks[4].Uncles()); n != 2 {
		t.Fatalf("block 4 has %d ommers, want 2", n)
	}

	// Block 4's ommers may not be included again.
	reincluded := types.NewBlockWithHeader(blocks[5].Header()).WithBody(types.Body{Uncles: blocks[4].Uncles()})
	if err := e.VerifyUncles(chain, reincluded, true); !errors.Is(err, errDuplicateUncle) {
		t.Fatalf("re-included ommers: %v, want %v", err, errDuplicateUncle)
	}

	// A tampered nonce must be caught.
	bad := blocks[5].Header()
	bad.Nonce[0] ^= 0x80
	if err := e.VerifyHeader(chain, bad, blocks[4].Header(), true); err == nil {
		t.Fatal("tampered nonce accepted")
	}
	// Without seal checking the same header passes.
	if err := e.VerifyHeader(chain, bad, blocks[4].Header(), false); err != nil {
		t.Fatalf("seal=false: %v", err)
	}
}
