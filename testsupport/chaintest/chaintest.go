// Package chaintest builds chains for the tests and benchmarks of the
// services above the chain store (filters, JSON-RPC): blocks carrying the
// logs a test asks for, inserted without execution on a chain whose engine
// hashes headers like ethash and checks nothing else.
package chaintest

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/ethash"
)

// Engine hashes headers with ethash's rule and accepts every block.
type Engine struct{ pow *ethash.Ethash }

// NewEngine returns an Engine.
func NewEngine() *Engine { return &Engine{pow: ethash.New(ethash.Config{Threads: 1})} }

var _ consensus.Engine = (*Engine)(nil)

// Hash is ethash's block hash.
func (e *Engine) Hash(h *types.Header) common.Hash { return e.pow.Hash(h) }

// Author is the coinbase.
func (e *Engine) Author(h *types.Header) (common.Address, error) { return h.Coinbase, nil }

// VerifyHeader checks only the block number.
func (e *Engine) VerifyHeader(_ consensus.ChainReader, h, parent *types.Header, _ bool) error {
	if h.Number.Uint64() != parent.Number.Uint64()+1 {
		return consensus.ErrInvalidNumber
	}
	return nil
}

// VerifyUncles accepts any uncles.
func (e *Engine) VerifyUncles(consensus.ChainReader, *types.Block, bool) error { return nil }

// Prepare does nothing.
func (e *Engine) Prepare(consensus.ChainReader, *types.Header, *types.Header) error { return nil }

// Finalize pays no rewards.
func (e *Engine) Finalize(consensus.ChainReader, *types.Header, vm.StateDB, []*types.Header) {}

// Seal returns the header as is.
func (e *Engine) Seal(_ context.Context, h *types.Header) (*types.Header, error) { return h, nil }

// Close releases nothing.
func (e *Engine) Close() error { return nil }

// Genesis is the test chain's genesis: chain id 1337, every block-number
// fork through London active at block 0 and no timestamp fork, so headers
// need no post-Shanghai fields.
func Genesis() *core.Genesis {
	cfg := &params.ChainConfig{
		ChainID:             big.NewInt(1337),
		HomesteadBlock:      common.Big0,
		EIP150Block:         common.Big0,
		EIP155Block:         common.Big0,
		EIP158Block:         common.Big0,
		ByzantiumBlock:      common.Big0,
		ConstantinopleBlock: common.Big0,
		PetersburgBlock:     common.Big0,
		IstanbulBlock:       common.Big0,
		MuirGlacierBlock:    common.Big0,
		BerlinBlock:         common.Big0,
		LondonBlock:         common.Big0,
		Ethash:              new(params.EthashConfig),
	}
	return &core.Genesis{Config: cfg, GasLimit: 30_000_000, Difficulty: big.NewInt(1), BaseFee: big.NewInt(0)}
}

// Chain is a chain.Chain with block builders.
type Chain struct {
	*chain.Chain
	db    ethdb.Database
	t     testing.TB
	nonce uint64
}

// Open opens a test chain on db (chain.NewMemoryDatabase() for most tests)
// and closes it when the test ends; the caller closes db.
func Open(t testing.TB, db ethdb.Database) *Chain {
	t.Helper()
	return OpenWith(t, db)
}

// OpenWith is Open with options for chain.Open (a block hook, ...).
func OpenWith(t testing.TB, db ethdb.Database, opts ...chain.ExecOption) *Chain {
	t.Helper()
	c, err := chain.Open(db, Genesis(), NewEngine(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Chain{Chain: c, db: db, t: t}
}

// Database is the database the chain was opened on.
func (c *Chain) Database() ethdb.Database { return c.db }

// Log returns a log of address with topics and data; the block fields are
// filled in when the block is stored.
func Log(address common.Address, data []byte, topics ...common.Hash) *types.Log {
	return &types.Log{Address: address, Topics: topics, Data: data}
}

// Build makes a block on parent with one transaction per element of
// txLogs, whose receipt carries those logs. extra varies the block hash
// between siblings; difficulty drives fork choice.
func (c *Chain) Build(parent *types.Header, difficulty int64, extra byte, txLogs ...[]*types.Log) (*types.Block, types.Receipts) {
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	txs := make([]*types.Transaction, len(txLogs))
	receipts := make(types.Receipts, len(txLogs))
	for i, logs := range txLogs {
		// Transactions only need distinct hashes: they are never executed
		// or sender-recovered.
		txs[i] = types.NewTx(&types.LegacyTx{
			Nonce: c.nonce, To: &to, Gas: 21000, GasPrice: big.NewInt(1),
			V: big.NewInt(27), R: big.NewInt(1), S: big.NewInt(1),
		})
		c.nonce++
		copied := make([]*types.Log, len(logs))
		for j, l := range logs {
			cl := *l
			copied[j] = &cl
		}
		receipts[i] = &types.Receipt{
			Type:              types.LegacyTxType,
			Status:            types.ReceiptStatusSuccessful,
			CumulativeGasUsed: 21000 * uint64(i+1),
			GasUsed:           21000,
			Logs:              copied,
		}
		receipts[i].Bloom = types.CreateBloom(receipts[i])
	}
	header := &types.Header{
		ParentHash: c.Hash(parent),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		GasUsed:    21000 * uint64(len(txs)),
		Time:       parent.Time + 1,
		Difficulty: big.NewInt(difficulty),
		Extra:      []byte{extra},
		Root:       parent.Root,
		BaseFee:    new(big.Int),
	}
	return types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil)), receipts
}

// Insert stores block with its receipts (noSync: a bulk insert, see
// chain.InsertOptions.NoSync).
func (c *Chain) Insert(block *types.Block, receipts types.Receipts, noSync bool) chain.InsertResult {
	c.t.Helper()
	parent := c.GetHeaderByHash(block.ParentHash())
	if parent == nil {
		c.t.Fatalf("insert block %d: unknown parent", block.NumberU64())
	}
	st, err := c.StateAt(parent.Root)
	if err != nil {
		c.t.Fatal(err)
	}
	res, err := c.InsertBlock(context.Background(), block, chain.InsertOptions{
		NoSync: noSync, Executed: &chain.Executed{State: st, Receipts: receipts},
	})
	if err != nil {
		c.t.Fatalf("insert block %d: %v", block.NumberU64(), err)
	}
	return res
}

// Append builds a block of difficulty 1 on the head with the given
// transaction logs, inserts it and returns it.
func (c *Chain) Append(txLogs ...[]*types.Log) *types.Block {
	c.t.Helper()
	b, rs := c.Build(c.CurrentHeader(), 1, 0, txLogs...)
	c.Insert(b, rs, false)
	return b
}
