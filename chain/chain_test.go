package chain

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/consensus"
)

// testEngine is a minimal engine: plain header hash, difficulty chosen by
// the test through the header, no seal, no rewards.
type testEngine struct{}

func (testEngine) Hash(h *types.Header) common.Hash               { return h.Hash() }
func (testEngine) Author(h *types.Header) (common.Address, error) { return h.Coinbase, nil }
func (testEngine) VerifyHeader(_ consensus.ChainReader, h, p *types.Header, _ bool) error {
	if h.Number.Uint64() != p.Number.Uint64()+1 {
		return consensus.ErrInvalidNumber
	}
	return nil
}
func (testEngine) VerifyUncles(consensus.ChainReader, *types.Block, bool) error      { return nil }
func (testEngine) Prepare(consensus.ChainReader, *types.Header, *types.Header) error { return nil }
func (testEngine) Finalize(consensus.ChainReader, *types.Header, vm.StateDB, []*types.Header) {
}
func (testEngine) Seal(_ context.Context, h *types.Header) (*types.Header, error) { return h, nil }
func (testEngine) Close() error                                                   { return nil }

var (
	testKey, _  = crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	testAddr    = crypto.PubkeyToAddress(testKey.PublicKey)
	testChainID = big.NewInt(1337)
)

func testGenesis() *core.Genesis {
	cfg := *params.AllEthashProtocolChanges
	cfg.ChainID = testChainID
	cfg.TerminalTotalDifficulty = nil
	return &core.Genesis{
		Config:     &cfg,
		GasLimit:   30_000_000,
		Difficulty: big.NewInt(1),
		Alloc:      types.GenesisAlloc{testAddr: {Balance: big.NewInt(1e18)}},
	}
}

// makeBlock builds a block on parent with the given txs and difficulty.
func makeBlock(t *testing.T, c *Chain, parent *types.Header, diff int64, txs []*types.Transaction, extra byte) *types.Block {
	t.Helper()
	cfg := c.Config()
	header := &types.Header{
		ParentHash: c.Hash(parent),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		Time:       parent.Time + 10,
		Difficulty: big.NewInt(diff),
		Extra:      []byte{extra},
	}
	if cfg.IsLondon(header.Number) {
		header.BaseFee = big.NewInt(0)
		if parent.BaseFee != nil {
			header.BaseFee = calcBaseFee(cfg, parent)
		}
	}
	st, err := c.StateAt(parent.Root)
	if err != nil {
		t.Fatal(err)
	}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
	res, err := c.Executor().Process(context.Background(), block, common.Hash{}, st)
	if err != nil {
		t.Fatal(err)
	}
	header.GasUsed = res.GasUsed
	header.Root = st.IntermediateRoot(Rules(cfg, header))
	return types.NewBlock(header, &types.Body{Transactions: txs}, res.Receipts, trie.NewStackTrie(nil))
}

func transfer(t *testing.T, key *ecdsa.PrivateKey, nonce uint64, to common.Address) *types.Transaction {
	tx, err := types.SignTx(types.NewTx(&types.LegacyTx{
		Nonce: nonce, To: &to, Value: big.NewInt(1000), Gas: 21000, GasPrice: big.NewInt(1e9),
	}), types.LatestSignerForChainID(testChainID), key)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestInsertAndReorgByTotalDifficulty(t *testing.T) {
	db := NewMemoryDatabase()
	c, err := Open(db, testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	to := common.HexToAddress("0x1234")
	tx0 := transfer(t, testKey, 0, to)

	// Chain A: two blocks of difficulty 1, tx0 in the first.
	a1 := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{tx0}, 'a')
	if _, err := c.InsertBlock(ctx, a1, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	a2 := makeBlock(t, c, a1.Header(), 1, nil, 'a')
	if _, err := c.InsertBlock(ctx, a2, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := c.CurrentHeader().Number.Uint64(); got != 2 {
		t.Fatalf("head %d, want 2", got)
	}
	if _, loc, ok := c.GetTransaction(tx0.Hash()); !ok || loc.BlockNumber != 1 {
		t.Fatalf("tx lookup: ok=%v loc=%+v", ok, loc)
	}
	rs := c.GetReceipts(c.Hash(a1.Header()), 1)
	if len(rs) != 1 || rs[0].Status != types.ReceiptStatusSuccessful || rs[0].TxHash != tx0.Hash() || rs[0].BlockHash != c.Hash(a1.Header()) {
		t.Fatalf("receipts: %+v", rs)
	}
	if _, err := c.InsertBlock(ctx, a2, InsertOptions{}); err != ErrKnownBlock {
		t.Fatalf("reinsert: %v", err)
	}

	// Chain B: one block of difficulty 5 without tx0 is heavier than A.
	heads := make(chan HeadEvent, 4)
	sub := c.SubscribeHead(heads)
	defer sub.Unsubscribe()
	b1 := makeBlock(t, c, c.Genesis(), 5, nil, 'b')
	res, err := c.InsertBlock(ctx, b1, InsertOptions{})
	if err != nil || !res.NewHead {
		t.Fatalf("insert b1: %v newHead=%v", err, res.NewHead)
	}
	if c.CurrentHash() != c.Hash(b1.Header()) || c.CurrentTD().Int64() != 6 {
		t.Fatalf("head %s td %v", c.CurrentHash(), c.CurrentTD())
	}
	if c.GetHeaderByNumber(2) != nil {
		t.Fatal("canonical block 2 survived the reorg")
	}
	if _, _, ok := c.GetTransaction(tx0.Hash()); ok {
		t.Fatal("tx of a reorged block still found")
	}
	ev := <-heads
	if len(ev.Removed) != 2 || len(ev.Added) != 1 {
		t.Fatalf("event removed %d added %d", len(ev.Removed), len(ev.Added))
	}

	// A lighter sibling does not move the head.
	b1x := makeBlock(t, c, c.Genesis(), 2, nil, 'x')
	if res, err := c.InsertBlock(ctx, b1x, InsertOptions{}); err != nil || res.NewHead {
		t.Fatalf("light sibling: %v newHead=%v", err, res.NewHead)
	}
	// Extending A past B's weight reorgs back and restores tx0's lookup.
	a3 := makeBlock(t, c, a2.Header(), 5, nil, 'a')
	if res, err := c.InsertBlock(ctx, a3, InsertOptions{}); err != nil || !res.NewHead {
		t.Fatalf("a3: %v newHead=%v", err, res.NewHead)
	}
	if _, loc, ok := c.GetTransaction(tx0.Hash()); !ok || loc.BlockNumber != 1 {
		t.Fatalf("tx lookup after reorg back: ok=%v", ok)
	}
}

func TestRejectsBadBlocks(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	good := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{transfer(t, testKey, 0, common.Address{1})}, 0)

	h := good.Header()
	h.Root = common.Hash{1}
	if _, err := c.InsertBlock(ctx, types.NewBlockWithHeader(h).WithBody(*good.Body()), InsertOptions{}); err == nil {
		t.Fatal("bad state root accepted")
	}
	h = good.Header()
	h.GasUsed++
	if _, err := c.InsertBlock(ctx, types.NewBlockWithHeader(h).WithBody(*good.Body()), InsertOptions{}); err == nil {
		t.Fatal("bad gas used accepted")
	}
	orphan := good.Header()
	orphan.ParentHash = common.Hash{9}
	if _, err := c.InsertBlock(ctx, types.NewBlockWithHeader(orphan).WithBody(*good.Body()), InsertOptions{}); err == nil {
		t.Fatal("orphan accepted")
	}
	if c.CurrentHeader().Number.Uint64() != 0 {
		t.Fatal("head moved after rejected blocks")
	}
	// The invalid ones are remembered, most recent first; an orphan is not
	// invalid, only early.
	bad := c.BadBlocks()
	if len(bad) != 2 || bad[0].Block.GasUsed() != good.GasUsed()+1 || bad[1].Block.Root() != (common.Hash{1}) ||
		bad[0].Hash != c.Hash(bad[0].Block.Header()) || bad[0].Err == nil {
		t.Fatalf("bad blocks %+v", bad)
	}
	if _, err := c.InsertBlock(ctx, good, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
}

// sealRecorder is testEngine recording the seal argument of every header
// and ommer check.
type sealRecorder struct {
	testEngine
	header, uncles []bool
}

func (e *sealRecorder) VerifyHeader(c consensus.ChainReader, h, p *types.Header, seal bool) error {
	e.header = append(e.header, seal)
	return e.testEngine.VerifyHeader(c, h, p, seal)
}

func (e *sealRecorder) VerifyUncles(_ consensus.ChainReader, _ *types.Block, seal bool) error {
	e.uncles = append(e.uncles, seal)
	return nil
}

// TestSkipSealReachesEveryHeader: InsertOptions.SkipSeal (and so
// ImportOptions.SkipSeal, blocks import --skip-pow-validation-enabled)
// turns off the seal check of the block's header and of its ommers alike.
func TestSkipSealReachesEveryHeader(t *testing.T) {
	e := &sealRecorder{}
	c, err := Open(NewMemoryDatabase(), testGenesis(), e)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b1 := makeBlock(t, c, c.Genesis(), 1, nil, 1)
	if _, err := c.InsertBlock(ctx, b1, InsertOptions{SkipSeal: true}); err != nil {
		t.Fatal(err)
	}
	b2 := makeBlock(t, c, b1.Header(), 1, nil, 2)
	if _, err := c.InsertBlock(ctx, b2, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	b3 := makeBlock(t, c, b2.Header(), 1, nil, 3)
	var file bytes.Buffer
	if err := rlp.Encode(&file, b3); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(ctx, &file, ImportOptions{SkipSeal: true}); err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, false}
	if !slices.Equal(e.header, want) || !slices.Equal(e.uncles, want) {
		t.Fatalf("seal checked: headers %v, ommers %v; want %v for both", e.header, e.uncles, want)
	}
}

func TestReopenFromDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := OpenDatabase(dir, 16)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(db, testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	parent := c.Genesis()
	for i := uint64(0); i < 5; i++ {
		b := makeBlock(t, c, parent, 1, []*types.Transaction{transfer(t, testKey, i, common.Address{2})}, 0)
		if _, err := c.InsertBlock(context.Background(), b, InsertOptions{}); err != nil {
			t.Fatal(err)
		}
		parent = b.Header()
	}
	head := c.CurrentHash()
	c.Close()
	db.Close()

	db, err = OpenDatabase(dir, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err = Open(db, testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	if c.CurrentHash() != head {
		t.Fatalf("head %s after reopen, want %s", c.CurrentHash(), head)
	}
	st, err := c.State()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetNonce(testAddr); got != 5 {
		t.Fatalf("nonce %d after reopen, want 5", got)
	}
	// A different genesis is refused.
	g := testGenesis()
	g.ExtraData = []byte("other")
	if _, err := Open(db, g, testEngine{}); err == nil {
		t.Fatal("mismatched genesis accepted")
	}
}

func calcBaseFee(cfg *params.ChainConfig, parent *types.Header) *big.Int {
	return eip1559.CalcBaseFee(cfg, parent)
}

// TestRepairAfterBulkCrash inserts blocks the way blocks import does (state
// kept in memory), drops the process state without a Sync, and reopens: the
// head stays and its state is rebuilt by re-execution.
func TestRepairAfterBulkCrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := OpenDatabase(dir, 16)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(db, testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	parent := c.Genesis()
	for i := uint64(0); i < 10; i++ {
		b := makeBlock(t, c, parent, 1, []*types.Transaction{transfer(t, testKey, i, common.Address{3})}, 0)
		if _, err := c.InsertBlock(context.Background(), b, InsertOptions{NoSync: true}); err != nil {
			t.Fatal(err)
		}
		parent = b.Header()
	}
	head := c.CurrentHash()
	if c.HasState(c.CurrentHeader().Root) && c.states.lastFlush == 10 {
		t.Fatal("bulk insert wrote the head state; the test needs it in memory")
	}
	// Crash: the database keeps what reached it, the in-memory tries are lost.
	db.Close()

	db, err = OpenDatabase(dir, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err = Open(db, testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	if c.CurrentHash() != head {
		t.Fatalf("head %s after repair, want %s", c.CurrentHash(), head)
	}
	st, err := c.State()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetNonce(testAddr); got != 10 {
		t.Fatalf("nonce %d after repair, want 10", got)
	}
}

// TestExecuteThenInsert: Execute verifies and runs a block without storing
// it — a bad one is refused and recorded as InsertBlock records it, a
// proof-of-work block after the merge is refused — and InsertBlock stores
// what it produced without running the block again.
func TestExecuteThenInsert(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	good := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{transfer(t, testKey, 0, common.Address{1})}, 0)
	h := good.Header()
	h.Root = common.Hash{1}
	if _, err := c.Execute(ctx, types.NewBlockWithHeader(h).WithBody(*good.Body()), ExecuteOptions{}); err == nil {
		t.Fatal("bad state root accepted")
	}
	if bad := c.BadBlocks(); len(bad) != 1 || bad[0].Block.Root() != (common.Hash{1}) {
		t.Fatalf("bad blocks %+v", bad)
	}
	ex, err := c.Execute(ctx, good, ExecuteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.HasBlock(c.Hash(good.Header()), 1) || c.CurrentHeader().Number.Uint64() != 0 {
		t.Fatal("Execute stored the block")
	}
	var stats InsertStats
	c.SetInsertObserver(func(s InsertStats) { stats = s })
	res, err := c.InsertBlock(ctx, good, InsertOptions{Executed: ex})
	if err != nil || !res.NewHead {
		t.Fatalf("insert of the executed block: %v newHead=%v", err, res.NewHead)
	}
	if stats.Executed {
		t.Fatal("InsertBlock ran the executed block again")
	}
	if st, err := c.State(); err != nil || st.GetBalance(common.Address{1}).IsZero() {
		t.Fatalf("state after the insert: %v", err)
	}

	// A proof-of-work child of a post-merge block.
	post := makeBlock(t, c, c.CurrentHeader(), 0, nil, 'p')
	if _, err := c.InsertBlock(ctx, post, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	pow := makeBlock(t, c, post.Header(), 1, nil, 'w')
	if _, err := c.Execute(ctx, pow, ExecuteOptions{}); err == nil || !strings.Contains(err.Error(), "after the merge") {
		t.Fatalf("proof-of-work block after the merge: %v", err)
	}
}
