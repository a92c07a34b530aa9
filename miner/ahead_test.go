package miner

import (
	"log/slog"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
)

// nextNonceSource offers, for each block, the one transfer whose nonce is
// the sender's next at the head: one transaction per block while any is
// left, then none.
type nextNonceSource struct {
	c    *chain.Chain
	from common.Address
	txs  []*types.Transaction
}

func (s *nextNonceSource) PendingIterator(*big.Int) TxIterator {
	st, err := s.c.State()
	if err != nil {
		return &sliceIter{}
	}
	n := st.GetNonce(s.from)
	if n >= uint64(len(s.txs)) {
		return &sliceIter{}
	}
	return &sliceIter{txs: []*types.Transaction{s.txs[n]}}
}

// unboundedScheduler is a Scheduler that sets no time, as the beacon
// wrapper around ethash on a pre-merge head.
type unboundedScheduler struct{}

func (unboundedScheduler) NextSeal(consensus.ChainReader, *types.Header, time.Time) (time.Time, error) {
	return time.Time{}, nil
}

// With the clock standing still, a proof-of-work miner mines the blocks
// that have transactions one after the other, stamped a second apart ahead
// of the clock, but never more than maxPoWAhead ahead; it does not run
// ahead with empty blocks, which wait for the clock. The same with a
// Scheduler that sets no time (the dev network's ethash is wrapped by the
// beacon engine, whose Scheduler only refuses post-merge heads).
func TestPoWRunsAheadOnlyWithTransactions(t *testing.T) {
	t.Run("no scheduler", func(t *testing.T) { testPoWRunsAhead(t, nil) })
	t.Run("unbounded scheduler", func(t *testing.T) { testPoWRunsAhead(t, unboundedScheduler{}) })
}

func testPoWRunsAhead(t *testing.T, sched consensus.Scheduler) {
	c := newTestChain(t, nil)
	g := config.DevGenesis()
	key, err := crypto.HexToECDSA(config.DevAccounts[1].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(g.ChainID())
	src := &nextNonceSource{c: c, from: crypto.PubkeyToAddress(key.PublicKey)}
	for n := range 15 {
		src.txs = append(src.txs, types.MustSignNewTx(key, signer, &types.LegacyTx{
			Nonce: uint64(n), Gas: 21000, GasPrice: new(big.Int).Set(g.Core.BaseFee), To: &testCoinbase, Value: big.NewInt(1),
		}))
	}
	start := time.Unix(time.Now().Unix(), 5e8) // half a second into a second
	clock := consensus.NewManualClock(start)
	pow := c.Engine().(*testEngine).Ethash
	m := New(c, src, Config{Coinbase: &testCoinbase, PoW: pow, Scheduler: sched, Clock: clock}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()

	// Block 1 at the clock's second, then a block a second ahead of the
	// last while that is within maxPoWAhead of the clock: with the clock
	// half a second into its second, 1 + maxPoWAhead/1 s blocks.
	ahead := uint64(1 + maxPoWAhead/time.Second)
	head := func() uint64 { return c.CurrentHeader().Number.Uint64() }
	eventually(t, "the blocks ahead without the clock moving", func() bool { return head() == ahead })
	stays(t, "the head", func() bool { return head() == ahead })
	for n := uint64(1); n <= ahead; n++ {
		b := c.GetBlockByNumber(n)
		if want := uint64(start.Unix()) + n - 1; b.Time() != want || len(b.Transactions()) != 1 {
			t.Fatalf("block %d: time %d (want %d), %d transactions", n, b.Time(), want, len(b.Transactions()))
		}
	}
	// Each second of the clock lets one more go, until all 15 are mined.
	for h := ahead + 1; h <= 15; h++ {
		clock.Advance(time.Second)
		eventually(t, "the next block", func() bool { return head() == h })
		stays(t, "the head", func() bool { return head() == h })
	}
	// Nothing left: empty blocks wait until the clock reaches their time.
	stays(t, "the head without transactions", func() bool { return head() == 15 })
	last := c.CurrentHeader().Time
	clock.Advance(time.Unix(int64(last), 0).Sub(clock.Now()) + time.Second)
	eventually(t, "an empty block once its second came", func() bool { return head() == 16 })
	if b := c.GetBlockByNumber(16); len(b.Transactions()) != 0 || b.Time() != last+1 {
		t.Fatalf("block 16: time %d (want %d), %d transactions", b.Time(), last+1, len(b.Transactions()))
	}
	stays(t, "the head once caught up", func() bool { return head() == 16 })
}

// lateSource offers its transfers only once released: transactions that
// reach the pool while the miner waits for its next second.
type lateSource struct {
	nextNonceSource
	released atomic.Bool
}

func (s *lateSource) PendingIterator(baseFee *big.Int) TxIterator {
	if !s.released.Load() {
		return &sliceIter{}
	}
	return s.nextNonceSource.PendingIterator(baseFee)
}

// A proof-of-work miner waiting, with nothing to mine, for the second of
// its next (empty) block mines a transaction soon after TransactionsArrived
// says it came — once no other came for quietBeforeAhead — stamped ahead of
// the clock, instead of at that second.
func TestTransactionsArrivedWakesPoWMiner(t *testing.T) {
	c := newTestChain(t, nil)
	g := config.DevGenesis()
	key, err := crypto.HexToECDSA(config.DevAccounts[1].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	src := &lateSource{nextNonceSource: nextNonceSource{c: c, from: crypto.PubkeyToAddress(key.PublicKey)}}
	src.txs = []*types.Transaction{types.MustSignNewTx(key, types.LatestSignerForChainID(g.ChainID()), &types.LegacyTx{
		Gas: 21000, GasPrice: new(big.Int).Set(g.Core.BaseFee), To: &testCoinbase, Value: big.NewInt(1),
	})}
	start := time.Unix(time.Now().Unix(), 5e8)
	clock := consensus.NewManualClock(start)
	pow := c.Engine().(*testEngine).Ethash
	m := New(c, src, Config{Coinbase: &testCoinbase, PoW: pow, Scheduler: unboundedScheduler{}, Clock: clock}, slog.New(slog.DiscardHandler))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	head := func() uint64 { return c.CurrentHeader().Number.Uint64() }
	// Block 1 (empty) at the clock's second; block 2 waits for the next.
	eventually(t, "the first block", func() bool { return head() == 1 })
	stays(t, "the head without transactions", func() bool { return head() == 1 })
	src.released.Store(true)
	m.TransactionsArrived()
	// Built once no transaction came for quietBeforeAhead, well before
	// the block's second.
	stays(t, "the head while transactions may still come", func() bool { return head() == 1 })
	clock.Advance(quietBeforeAhead)
	eventually(t, "the transaction mined before its second", func() bool { return head() == 2 })
	if b := c.GetBlockByNumber(2); len(b.Transactions()) != 1 || b.Time() != uint64(start.Unix())+1 {
		t.Fatalf("block 2: time %d (want %d), %d transactions", b.Time(), start.Unix()+1, len(b.Transactions()))
	}
}
