package clique

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	gethclique "github.com/ethereum/go-ethereum/consensus/clique"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
)

// On headers go-ethereum's Clique accepts (London and earlier), the seal
// hash is go-ethereum's.
func TestSealHashMatchesGoEthereum(t *testing.T) {
	acc := newAccounts()
	g := genesisHeader(acc.addresses("A", "B"))
	h := makeHeader(t, acc, g, block{signer: "A", voted: "C", auth: true, txs: true}, nil, 1)
	if got, want := SealHash(h), gethclique.SealHash(h); got != want {
		t.Fatalf("seal hash %x, go-ethereum's %x", got, want)
	}
	h.BaseFee = nil // before London
	if got, want := SealHash(h), gethclique.SealHash(h); got != want {
		t.Fatalf("pre-London seal hash %x, go-ethereum's %x", got, want)
	}
}

// besuChain is the Clique chain Besu produced for its acceptance tests:
// its genesis file and blocks 0-4 sealed by one Besu signer.
func besuChain(t *testing.T) (*config.Genesis, []*types.Block) {
	t.Helper()
	g, err := config.LoadGenesisFile("testdata/clique_to_pos.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/clique.blocks")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*types.Block
	s := rlp.NewStream(bytes.NewReader(data), 0)
	for {
		b := new(types.Block)
		if err := s.Decode(b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
	}
	return g, blocks
}

// A Clique genesis and chain made by Besu: Basalt computes Besu's genesis
// hash from the genesis file, recovers Besu's signer from every seal,
// accepts every header and links the blocks by the same hashes.
func TestBesuChain(t *testing.T) {
	g, blocks := besuChain(t)
	genesis := g.Core.ToBlock().Header()
	besuGenesis := common.HexToHash("0x815c2ed5f07175936649d2cd8a3e09eb8037c6528be07b9241f48343e97e763c")
	if genesis.Hash() != besuGenesis || blocks[0].Header().Hash() != besuGenesis {
		t.Fatalf("genesis hash %x, Besu's %x", genesis.Hash(), besuGenesis)
	}
	chain := newFakeChain(genesis)
	chain.cfg = g.ChainConfig()
	e := New(Config{Period: g.Clique.BlockPeriodSeconds, Epoch: g.Clique.EpochLength, CreateEmptyBlocks: g.Clique.CreateEmptyBlocks}, Options{})
	signer := common.HexToAddress("0x3b63a1ee47ffd227458746ca9bb079d0d3cbb4bd")
	if len(blocks) != 5 {
		t.Fatalf("%d blocks", len(blocks))
	}
	for _, b := range blocks[1:] {
		h := b.Header()
		parent := chain.CurrentHeader()
		if h.ParentHash != parent.Hash() {
			t.Fatalf("block %d: parent %x, ours %x", h.Number, h.ParentHash, parent.Hash())
		}
		if err := e.VerifyHeader(chain, h, parent, true); err != nil {
			t.Fatalf("block %d: %v", h.Number, err)
		}
		if a, err := e.Author(h); err != nil || a != signer {
			t.Fatalf("block %d: signer %v %v", h.Number, a, err)
		}
		chain.add(h)
	}
}
