package miner

import (
	"context"
	"encoding/binary"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/ethash"
)

// remoteOnly is ethash whose local sealing never finds anything, so blocks
// can only come from eth_submitWork.
type remoteOnly struct{ *ethash.Ethash }

func (remoteOnly) Seal(ctx context.Context, _ *types.Header) (*types.Header, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRemoteWork(t *testing.T) {
	g := config.DevGenesis()
	pow := ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty, Threads: 1})
	c, err := chain.Open(chain.NewMemoryDatabase(), g.Core, remoteOnly{pow})
	if err != nil {
		t.Fatal(err)
	}
	coinbase := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	m := New(c, nil, Config{Coinbase: &coinbase, PoW: pow}, nil)
	if _, _, _, err := m.GetWork(); err != ErrNoWork {
		t.Fatalf("work before start: %v", err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	var powHash, seed, boundary common.Hash
	deadline := time.Now().Add(10 * time.Second)
	for {
		if powHash, seed, boundary, err = m.GetWork(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no work offered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if common.BytesToHash(ethash.SeedHash(1)) != seed {
		t.Fatalf("seed %s", seed)
	}
	if want := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(100)); boundary.Big().Cmp(want) != 0 {
		t.Fatalf("boundary %s, want 2^256/100", boundary)
	}

	// A wrong solution is refused and changes nothing.
	if m.SubmitWork(types.BlockNonce{}, powHash, common.Hash{1}) {
		t.Fatal("bogus solution accepted")
	}
	if m.SubmitWork(types.BlockNonce{}, common.Hash{2}, common.Hash{}) {
		t.Fatal("unknown work accepted")
	}
	// Solve it the way a remote miner would.
	for n := uint64(0); ; n++ {
		mix, result := pow.Compute(1, powHash, n)
		if result.Big().Cmp(boundary.Big()) <= 0 {
			var nonce types.BlockNonce
			binary.BigEndian.PutUint64(nonce[:], n)
			if !m.SubmitWork(nonce, powHash, mix) {
				t.Fatal("valid solution refused")
			}
			break
		}
	}
	head := c.CurrentHeader()
	if head.Number.Uint64() != 1 || head.Coinbase != coinbase {
		t.Fatalf("head %d coinbase %s", head.Number, head.Coinbase)
	}
	if m.SubmitWork(head.Nonce, powHash, head.MixDigest) {
		t.Fatal("same work accepted twice")
	}
}

func TestStartWithoutCoinbase(t *testing.T) {
	g := config.DevGenesis()
	c, err := chain.Open(chain.NewMemoryDatabase(), g.Core, ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty}))
	if err != nil {
		t.Fatal(err)
	}
	m := New(c, nil, Config{}, nil)
	if err := m.Start(); err != ErrCoinbaseNotSet {
		t.Fatalf("Start: %v", err)
	}
	if m.Mining() {
		t.Fatal("mining without coinbase")
	}
}

func TestTarget(t *testing.T) {
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	if got := target(big.NewInt(1)); got.Cmp(new(big.Int).Sub(two256, big.NewInt(1))) != 0 {
		t.Fatalf("target(1) = %x", got)
	}
	if got := target(big.NewInt(2)); got.Cmp(new(big.Int).Rsh(two256, 1)) != 0 {
		t.Fatalf("target(2) = %x", got)
	}
}

// sliceSource hands the miner a fixed list of transactions.
type sliceSource struct{ txs []*types.Transaction }

func (s *sliceSource) PendingIterator(*big.Int) TxIterator { return &sliceIter{txs: s.txs} }

type sliceIter struct{ txs []*types.Transaction }

func (i *sliceIter) Peek() *types.Transaction {
	if len(i.txs) == 0 {
		return nil
	}
	return i.txs[0]
}
func (i *sliceIter) Shift() { i.txs = i.txs[1:] }
func (i *sliceIter) Pop()   { i.txs = nil }

// TestMinedBlockReexecutes mines a block whose transaction stores
// PREVRANDAO and inserts it into a second chain, which executes it from
// scratch: the sealed block must give the state the miner computed before
// sealing (it did not while PREVRANDAO read the seal's mixHash).
func TestMinedBlockReexecutes(t *testing.T) {
	g := config.DevGenesis()
	newChain := func() *chain.Chain {
		c, err := chain.Open(chain.NewMemoryDatabase(), g.Core, ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := newChain(), newChain()
	key, err := crypto.HexToECDSA(config.DevAccounts[1].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	// Init code: PREVRANDAO PUSH0 SSTORE STOP. Priced at the genesis base
	// fee, which block 1's (lower: the genesis block is empty) does not
	// exceed.
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(g.ChainID()), &types.LegacyTx{
		Nonce: 0, Gas: 100000, GasPrice: new(big.Int).Set(g.Core.BaseFee), Data: common.FromHex("0x445f5500"),
	})
	coinbase := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	m := New(a, &sliceSource{txs: []*types.Transaction{tx}}, Config{Coinbase: &coinbase}, nil)
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for a.CurrentHeader().Number.Uint64() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("no block mined")
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.Stop()
	block := a.GetBlockByNumber(1)
	if len(block.Transactions()) != 1 {
		t.Fatalf("block 1 has %d transactions", len(block.Transactions()))
	}
	if _, err := b.InsertBlock(context.Background(), block, chain.InsertOptions{}); err != nil {
		t.Fatalf("re-executing the mined block: %v", err)
	}
}
