package filters

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/testsupport/chaintest"
	"github.com/basaltchain/basalt/txpool"
)

var (
	addrA  = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	addrB  = common.HexToAddress("0x00000000000000000000000000000000000000b2")
	addrC  = common.HexToAddress("0x00000000000000000000000000000000000000c3")
	topic1 = common.HexToHash("0x01")
	topic2 = common.HexToHash("0x02")
	topic3 = common.HexToHash("0x03")
)

type fakePool struct{ feed event.Feed }

func (p *fakePool) SubscribeNewTxs(ch chan<- txpool.NewTxsEvent) event.Subscription {
	return p.feed.Subscribe(ch)
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type env struct {
	c     *chaintest.Chain
	s     *System
	pool  *fakePool
	clock *fakeClock
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	e := &env{c: chaintest.Open(t, db), pool: new(fakePool), clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}}
	if cfg.Now == nil {
		cfg.Now = e.clock.Now
	}
	e.s = New(e.c.Chain, e.pool, cfg)
	e.s.Start()
	t.Cleanup(e.s.Stop)
	return e
}

func lg(addr common.Address, topics ...common.Hash) *types.Log {
	return chaintest.Log(addr, []byte{1, 2, 3}, topics...)
}

func crit(t *testing.T, addrs []common.Address, topics ...[]common.Hash) *Criteria {
	t.Helper()
	c, err := NewCriteria(addrs, topics)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// summary renders logs as "block:address-low-byte/logIndex" for comparison.
func summary(logs []*types.Log) []string {
	out := make([]string, len(logs))
	for i, l := range logs {
		s := big.NewInt(int64(l.BlockNumber)).String() + ":" + big.NewInt(int64(l.Address[19])).Text(16) + "/" + big.NewInt(int64(l.Index)).String()
		if l.Removed {
			s += "R"
		}
		out[i] = s
	}
	return out
}

// fullSummary renders every field of each log.
func fullSummary(logs []*types.Log) []string {
	out := make([]string, len(logs))
	for i, l := range logs {
		out[i] = fmt.Sprintf("%d %x %d %x %d %d %x %x %x %v", l.BlockNumber, l.BlockHash, l.BlockTimestamp, l.TxHash, l.TxIndex, l.Index, l.Address, l.Topics, l.Data, l.Removed)
	}
	return out
}

func TestBloomBitsMatchGoEthereum(t *testing.T) {
	for i := range 200 {
		v := common.BigToHash(big.NewInt(int64(i * 7919)))
		var bloom types.Bloom
		bloom.Add(v[:])
		b := bitsOf(v[:])
		for _, bit := range b {
			if bloom[bit.index]&bit.mask == 0 {
				t.Fatalf("value %d: bit not in go-ethereum's bloom", i)
			}
		}
		c := crit(t, nil, []common.Hash{v})
		if !c.MayMatch(&bloom) {
			t.Fatalf("value %d: MayMatch false on its own bloom", i)
		}
		if c.MayMatch(&types.Bloom{}) {
			t.Fatal("MayMatch true on an empty bloom")
		}
	}
}

func TestCriteriaMatches(t *testing.T) {
	l := &types.Log{Address: addrA, Topics: []common.Hash{topic1, topic2}}
	cases := []struct {
		addrs  []common.Address
		topics [][]common.Hash
		want   bool
	}{
		{nil, nil, true},
		{[]common.Address{addrA}, nil, true},
		{[]common.Address{addrB, addrA}, nil, true},
		{[]common.Address{addrB}, nil, false},
		{nil, [][]common.Hash{{topic1}}, true},
		{nil, [][]common.Hash{{topic2}}, false},
		{nil, [][]common.Hash{{}, {topic2}}, true},
		{nil, [][]common.Hash{{topic3, topic1}, {topic2, topic3}}, true},
		{nil, [][]common.Hash{{topic1}, {topic2}, {}}, false}, // more positions than topics
		{nil, [][]common.Hash{{}, {}}, true},
	}
	for i, c := range cases {
		cr := crit(t, c.addrs, c.topics...)
		if got := cr.Matches(l); got != c.want {
			t.Errorf("case %d: Matches = %v, want %v", i, got, c.want)
		}
	}
	many := make([]common.Address, 20)
	for i := range many {
		many[i] = common.BigToAddress(big.NewInt(int64(1000 + i)))
	}
	if crit(t, many).Matches(l) || !crit(t, append(many, addrA)).Matches(l) {
		t.Error("address set matching")
	}
	if _, err := NewCriteria(make([]common.Address, MaxAddresses+1), nil); !errors.Is(err, ErrTooManyAddresses) {
		t.Errorf("too many addresses: %v", err)
	}
	if _, err := NewCriteria(nil, make([][]common.Hash, 5)); !errors.Is(err, ErrTooManyTopics) {
		t.Errorf("too many topics: %v", err)
	}
	if _, err := NewCriteria(nil, [][]common.Hash{make([]common.Hash, MaxTopicValues+1)}); !errors.Is(err, ErrTooManyValues) {
		t.Errorf("too many values: %v", err)
	}
}

func TestLogsQuery(t *testing.T) {
	e := newEnv(t, Config{MaxLogsRange: 5})
	// Blocks 1..6: block n has logs by A (topic1) in odd blocks, by B
	// (topic2, topic3) in even ones, and one by C in block 3.
	for n := 1; n <= 6; n++ {
		var txs [][]*types.Log
		if n%2 == 1 {
			txs = append(txs, []*types.Log{lg(addrA, topic1)})
		} else {
			txs = append(txs, []*types.Log{lg(addrB, topic2, topic3)})
		}
		if n == 3 {
			txs = append(txs, []*types.Log{lg(addrC), lg(addrA, topic1, topic2)})
		}
		e.c.Append(txs...)
	}
	ctx := context.Background()
	num := func(n uint64) Bound { return Bound{Number: n} }
	cases := []struct {
		name string
		q    Query
		want []string
	}{
		{"all", Query{From: num(1), To: Head}, []string{"1:a1/0", "2:b2/0", "3:a1/0", "3:c3/1", "3:a1/2", "4:b2/0", "5:a1/0", "6:b2/0"}},
		{"address", Query{From: num(1), To: num(4), Criteria: crit(t, []common.Address{addrA})}, []string{"1:a1/0", "3:a1/0", "3:a1/2"}},
		{"addresses", Query{From: num(3), To: num(4), Criteria: crit(t, []common.Address{addrC, addrB})}, []string{"3:c3/1", "4:b2/0"}},
		{"topic or", Query{From: num(1), To: Head, Criteria: crit(t, nil, []common.Hash{topic2, topic3})}, []string{"2:b2/0", "4:b2/0", "6:b2/0"}},
		{"second topic", Query{From: num(1), To: Head, Criteria: crit(t, nil, nil, []common.Hash{topic2})}, []string{"3:a1/2"}},
		{"address and topic", Query{From: num(1), To: Head, Criteria: crit(t, []common.Address{addrA}, []common.Hash{topic1}, []common.Hash{topic2})}, []string{"3:a1/2"}},
		{"latest", Query{From: Head, To: Head}, []string{"6:b2/0"}},
		{"past head", Query{From: num(5), To: num(9)}, []string{"5:a1/0", "6:b2/0"}},
		{"from after to", Query{From: num(5), To: num(2)}, []string{}},
		{"from after head", Query{From: num(8), To: Head}, []string{}},
	}
	for _, c := range cases {
		logs, err := e.s.Logs(ctx, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := summary(logs); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// Block hash queries.
	h3 := e.c.GetCanonicalHash(3)
	logs, err := e.s.Logs(ctx, Query{BlockHash: &h3, Criteria: crit(t, []common.Address{addrC})})
	if err != nil || !slices.Equal(summary(logs), []string{"3:c3/1"}) {
		t.Errorf("block hash: %v %v", summary(logs), err)
	}
	missing := common.HexToHash("0xaa")
	if _, err := e.s.Logs(ctx, Query{BlockHash: &missing}); !errors.Is(err, ErrBlockNotFound) {
		t.Errorf("missing block hash: %v", err)
	}
	// The range is checked before clamping to the head, as Besu does.
	if _, err := e.s.Logs(ctx, Query{From: num(0), To: num(6)}); !errors.Is(err, ErrRangeTooLarge) {
		t.Errorf("range 0..6 with max 5: %v", err)
	}
	if _, err := e.s.Logs(ctx, Query{From: num(1), To: num(6)}); err != nil {
		t.Errorf("range 1..6 with max 5: %v", err)
	}
	if _, err := e.s.Logs(ctx, Query{From: num(3), To: num(1 << 40)}); !errors.Is(err, ErrRangeTooLarge) {
		t.Errorf("huge range: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.s.Logs(cancelled, Query{From: num(1), To: Head}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestLogsResultCap(t *testing.T) {
	e := newEnv(t, Config{MaxLogResults: 3})
	e.c.Append([]*types.Log{lg(addrA), lg(addrA)})
	e.c.Append([]*types.Log{lg(addrA), lg(addrA)})
	if _, err := e.s.Logs(context.Background(), Query{From: Bound{}, To: Head}); !errors.Is(err, ErrTooManyResults) {
		t.Fatalf("want ErrTooManyResults, got %v", err)
	}
	if logs, err := e.s.Logs(context.Background(), Query{From: Head, To: Head}); err != nil || len(logs) != 2 {
		t.Fatalf("one block: %d %v", len(logs), err)
	}
}

// TestLogsAgainstNaiveScan compares bloom-scanned queries with reading every
// receipt, on a chain with random logs and a reorg.
func TestLogsAgainstNaiveScan(t *testing.T) {
	e := newEnv(t, Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	addrs := []common.Address{addrA, addrB, addrC}
	topics := []common.Hash{topic1, topic2, topic3, common.HexToHash("0x04")}
	randomLogs := func() [][]*types.Log {
		txs := make([][]*types.Log, rng.IntN(3))
		for i := range txs {
			for range rng.IntN(3) {
				ts := make([]common.Hash, rng.IntN(4))
				for k := range ts {
					ts[k] = topics[rng.IntN(len(topics))]
				}
				txs[i] = append(txs[i], lg(addrs[rng.IntN(len(addrs))], ts...))
			}
		}
		return txs
	}
	for range 40 {
		e.c.Append(randomLogs()...)
	}
	// A heavier branch from block 30 replaces blocks 31..40.
	parent := e.c.GetHeaderByNumber(30)
	for i := range 12 {
		b, rs := e.c.Build(parent, 2, byte(i+1), randomLogs()...)
		e.c.Insert(b, rs, false)
		parent = b.Header()
	}
	if e.c.CurrentHeader().Number.Uint64() != 42 {
		t.Fatalf("head %d", e.c.CurrentHeader().Number)
	}
	for i := range 300 {
		var as []common.Address
		for _, a := range addrs {
			if rng.IntN(3) == 0 {
				as = append(as, a)
			}
		}
		ts := make([][]common.Hash, rng.IntN(3))
		for p := range ts {
			for _, tp := range topics {
				if rng.IntN(3) == 0 {
					ts[p] = append(ts[p], tp)
				}
			}
		}
		cr := crit(t, as, ts...)
		from := uint64(rng.IntN(45))
		to := from + uint64(rng.IntN(20))
		got, err := e.s.Logs(context.Background(), Query{From: Bound{Number: from}, To: Bound{Number: to}, Criteria: cr})
		if err != nil {
			t.Fatal(err)
		}
		var want []*types.Log
		for n := from; n <= min(to, 42); n++ {
			h := e.c.GetCanonicalHash(n)
			for _, r := range e.c.GetReceipts(h, n) {
				for _, l := range r.Logs {
					if cr.Matches(l) {
						want = append(want, l)
					}
				}
			}
		}
		if !slices.Equal(fullSummary(got), fullSummary(want)) {
			t.Fatalf("query %d (%d..%d %v %v): got %v, want %v", i, from, to, as, ts, summary(got), summary(want))
		}
	}
}
