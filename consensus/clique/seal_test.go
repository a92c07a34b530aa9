package clique

import (
	"bytes"
	"errors"
	"io"
	"math/big"
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

// besuDocsGenesis is the example Clique genesis of Besu's documentation
// ("Configure Clique consensus").
const besuDocsGenesis = `{
  "config": {
    "chainId": 1981,
    "berlinBlock": 0,
    "clique": {
      "blockperiodseconds": 15,
      "epochlength": 30000,
      "createemptyblocks": true
    }
  },
  "coinbase": "0x0000000000000000000000000000000000000000",
  "difficulty": "0x1",
  "extraData": "0x000000000000000000000000000000000000000000000000000000000000000001a54556254bfa3db2daa7673435ec63649925c50000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "gasLimit": "0x1fffffffffffff",
  "mixHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
  "nonce": "0x0",
  "timestamp": "0x5c51a607",
  "alloc": {},
  "number": "0x0",
  "gasUsed": "0x0",
  "parentHash": "0x0000000000000000000000000000000000000000000000000000000000000000"
}`

// The documented genesis reads as Besu reads it: Clique with its options
// and one signer, no base fee (Berlin), and a genesis block built by the
// same rule that gives Besu's hash for Besu's own Clique chain above.
func TestBesuDocsGenesis(t *testing.T) {
	g, err := config.ParseGenesis([]byte(besuDocsGenesis))
	if err != nil {
		t.Fatal(err)
	}
	if g.Consensus != "clique" || g.Clique.BlockPeriodSeconds != 15 || g.Clique.EpochLength != 30000 || !g.Clique.CreateEmptyBlocks {
		t.Fatalf("clique options %+v", g.Clique)
	}
	ex, err := ParseExtra(g.Core.ExtraData)
	if err != nil || len(ex.Signers) != 1 || ex.Signers[0] != common.HexToAddress("0x01a54556254bfa3db2daa7673435ec63649925c5") {
		t.Fatalf("signers %v %v", ex.Signers, err)
	}
	h := g.Core.ToBlock().Header()
	if h.BaseFee != nil || h.Root != types.EmptyRootHash || h.Time != 0x5c51a607 {
		t.Fatalf("genesis header %+v", h)
	}
	// The same header spelled out field by field, hashed by the RLP rule
	// Besu and go-ethereum share; Besu's own hash of a Clique genesis file
	// is checked on Besu's chain in TestBesuChain.
	spelled := &types.Header{UncleHash: types.EmptyUncleHash, Root: types.EmptyRootHash, TxHash: types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash, Difficulty: big.NewInt(1), Number: new(big.Int), GasLimit: 0x1fffffffffffff,
		Time: 0x5c51a607, Extra: g.Core.ExtraData}
	if got := h.Hash(); got != spelled.Hash() || got != common.HexToHash(besuDocsGenesisHash) {
		t.Fatalf("genesis hash %s, field by field %s", got.Hex(), spelled.Hash().Hex())
	}
}

// besuDocsGenesisHash is the hash of besuDocsGenesis's block: Keccak-256
// of the RLP of its 15 header fields (Berlin: no base fee), as Besu's
// BlockHeader hashes it.
const besuDocsGenesisHash = "0x468e602d5fe8ed3f6c0c46ee990dfe72f6c74ca9191bdfe7daec294002e47027"
