package driver

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
)

// The driver with a fake host and a manual clock: the timers it sets come
// from the core, the block it proposes from the host's builder, and the
// committed block goes back to the host sealed.

type fakeProtocol struct {
	self       common.Address
	validators []common.Address
}

func (fakeProtocol) Digest(b *types.Block) (common.Hash, error) {
	h := b.Header()
	h.Extra = h.Extra[:4] // without seals
	return h.Hash(), nil
}
func (fakeProtocol) BlockRound(b *types.Block) (uint32, error) {
	return binary.BigEndian.Uint32(b.Extra()), nil
}
func (fakeProtocol) WithRound(b *types.Block, r uint32) (*types.Block, error) {
	h := b.Header()
	h.Extra = binary.BigEndian.AppendUint32(nil, r)
	return b.WithSeal(h), nil
}
func (fakeProtocol) Sign(m *bft.Message) error {
	m.Signed = m.Author.Bytes()
	m.Wire = m.Signed
	return nil
}
func (p fakeProtocol) SealHash(b *types.Block, r uint32) (common.Hash, error) {
	b, _ = p.WithRound(b, r)
	return p.Digest(b)
}
func (p fakeProtocol) CommitSeal(d common.Hash) ([]byte, error) {
	return append(p.self.Bytes(), d[:]...), nil
}
func (fakeProtocol) SealSigner(d common.Hash, s []byte) (common.Address, error) {
	if len(s) != 52 || !bytes.Equal(s[20:], d[:]) {
		return common.Address{}, errors.New("bad seal")
	}
	return common.BytesToAddress(s[:20]), nil
}
func (fakeProtocol) Hash(h *types.Header) common.Hash { return h.Hash() }
func (p fakeProtocol) Height(_ consensus.ChainReader, head *types.Header) (bft.Height, error) {
	return bft.Height{Sequence: head.Number.Uint64() + 1, ParentTime: head.Time, Validators: p.validators}, nil
}
func (fakeProtocol) Seal(h *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	h = types.CopyHeader(h)
	h.Extra = binary.BigEndian.AppendUint32(nil, round)
	for _, s := range seals {
		h.Extra = append(h.Extra, s...)
	}
	return h, nil
}

type fakeChain struct {
	mu   sync.Mutex
	head *types.Header
}

func (c *fakeChain) Config() *params.ChainConfig { return params.TestChainConfig }
func (c *fakeChain) GetHeader(common.Hash, uint64) *types.Header {
	return nil
}
func (c *fakeChain) GetHeaderByNumber(uint64) *types.Header { return nil }
func (c *fakeChain) GetHeaderByHash(common.Hash) *types.Header {
	return nil
}
func (c *fakeChain) CurrentHeader() *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head
}

type fakeHost struct {
	clock    *consensus.ManualClock
	chain    *fakeChain
	mu       sync.Mutex
	subs     []chan<- consensus.Head
	inserted chan *types.Header
	budgets  []time.Duration // each Build's (consensus.BuildBudget)
}

func (h *fakeHost) Clock() consensus.Clock           { return h.clock }
func (h *fakeHost) Chain() consensus.ChainHeadReader { return h.chain }
func (h *fakeHost) Import(context.Context, *types.Block) error {
	return errors.New("unexpected import")
}
func (h *fakeHost) SubscribeHeads(ch chan<- consensus.Head) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs = append(h.subs, ch)
	return func() {}
}
func (h *fakeHost) Build(ctx context.Context, parent *types.Header, parentHash common.Hash, ts uint64) (consensus.Candidate, error) {
	d, _ := consensus.BuildBudget(ctx)
	h.mu.Lock()
	h.budgets = append(h.budgets, d)
	h.mu.Unlock()
	b := types.NewBlockWithHeader(&types.Header{ParentHash: parentHash, Number: new(big.Int).Add(parent.Number, common.Big1),
		Time: ts, Difficulty: common.Big1, Extra: make([]byte, 4)})
	return &fakeCandidate{h: h, b: b}, nil
}
func (h *fakeHost) Execute(_ context.Context, b *types.Block) (consensus.Candidate, error) {
	return &fakeCandidate{h: h, b: b}, nil
}

type fakeCandidate struct {
	h *fakeHost
	b *types.Block
}

func (c *fakeCandidate) Block() *types.Block { return c.b }
func (c *fakeCandidate) Insert(_ context.Context, sealed *types.Header) error {
	c.h.chain.mu.Lock()
	c.h.chain.head = sealed
	c.h.chain.mu.Unlock()
	c.h.inserted <- sealed
	c.h.mu.Lock()
	subs := c.h.subs
	c.h.mu.Unlock()
	for _, s := range subs {
		s <- consensus.Head{Header: sealed, Hash: sealed.Hash()}
	}
	return nil
}

type fakeNetwork struct {
	mu      sync.Mutex
	sent    []*bft.Message
	except  []enode.ID
	heights []uint64
}

func (n *fakeNetwork) Gossip(m *bft.Message, _ common.Hash, except enode.ID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, m)
	n.except = append(n.except, except)
	return true
}

func (n *fakeNetwork) NewHeight(h bft.Height) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.heights = append(n.heights, h.Sequence)
}

func newFakeHost(start time.Time) *fakeHost {
	genesis := &types.Header{Number: big.NewInt(0), Time: uint64(start.Unix()), Difficulty: common.Big1}
	return &fakeHost{clock: consensus.NewManualClock(start), chain: &fakeChain{head: genesis},
		inserted: make(chan *types.Header, 4)}
}

// waitTimers waits until the driver set n timers on the manual clock.
func waitTimers(t *testing.T, c *consensus.ManualClock, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.Timers() < n {
		if time.Now().After(deadline) {
			t.Fatalf("driver set %d timers, want %d", c.Timers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitTimerAt waits until c has a timer firing at at.
func waitTimerAt(t *testing.T, c *consensus.ManualClock, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.ContainsFunc(c.Deadlines(), at.Equal) {
		if time.Now().After(deadline) {
			t.Fatalf("driver set timers at %v, want one at %v", c.Deadlines(), at)
		}
		time.Sleep(time.Millisecond)
	}
}

// A lone validator proposes when the block period is over and commits its
// own block with its seal, block after block, on the manual clock alone.
func TestDriverLoneValidator(t *testing.T) {
	self := common.Address{0x01}
	host := newFakeHost(time.Unix(1000, 0))
	net := &fakeNetwork{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, host, Config{
			Core:     bft.Config{Self: self, RequestTimeout: time.Second, BlockPeriod: time.Second},
			Protocol: fakeProtocol{self: self, validators: []common.Address{self}},
			Network:  net,
			Inbox:    make(chan Inbound),
		})
	}()
	for n := uint64(1); n <= 3; n++ {
		waitTimers(t, host.clock, 1) // the block timer
		host.clock.Advance(time.Second)
		select {
		case h := <-host.inserted:
			if h.Number.Uint64() != n || h.Time != 1000+n {
				t.Fatalf("inserted block %d at %d", h.Number, h.Time)
			}
			if len(h.Extra) != 4+52 || binary.BigEndian.Uint32(h.Extra) != 0 {
				t.Fatalf("block %d extra %x: want round 0 and one seal", n, h.Extra)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("block %d not committed", n)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	net.mu.Lock()
	defer net.mu.Unlock()
	if len(net.sent) < 3 || net.sent[0].Kind != bft.KindProposal {
		t.Fatalf("gossiped %d messages", len(net.sent))
	}
}

// At a 250 ms period the block timer runs from each head's arrival, the
// blocks share their parent's second, and the proposer's build has a
// budget: three quarters of the period, within a quarter of the round
// timer.
func TestDriverSubSecondPeriod(t *testing.T) {
	self := common.Address{0x01}
	host := newFakeHost(time.Unix(1000, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, host, Config{
			Core:     bft.Config{Self: self, RequestTimeout: time.Second, BlockPeriod: 250 * time.Millisecond},
			Protocol: fakeProtocol{self: self, validators: []common.Address{self}},
			Network:  &fakeNetwork{},
			Inbox:    make(chan Inbound),
		})
	}()
	for n := uint64(1); n <= 3; n++ {
		// The block timer runs from when the driver took the head: wait
		// for it (a round timer of the height before may still be
		// waiting) before moving the clock, or it would be set after.
		waitTimerAt(t, host.clock, host.clock.Now().Add(250*time.Millisecond))
		host.clock.Advance(250 * time.Millisecond)
		select {
		case h := <-host.inserted:
			if h.Number.Uint64() != n || h.Time != 1000 {
				t.Fatalf("inserted block %d at %d, want the genesis second 1000", h.Number, h.Time)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("block %d not committed", n)
		}
	}
	cancel()
	<-done
	host.mu.Lock()
	defer host.mu.Unlock()
	for _, d := range host.budgets {
		if d != 187500*time.Microsecond {
			t.Fatalf("build budgets %v, want 187.5ms (3/4 of 250ms, under 1s/4)", host.budgets)
		}
	}
}

// A node that is not a validator of the next block stands by.
func TestDriverNotValidator(t *testing.T) {
	host := newFakeHost(time.Unix(1000, 0))
	err := Run(context.Background(), host, Config{
		Core:     bft.Config{Self: common.Address{0x09}, RequestTimeout: time.Second, BlockPeriod: time.Second},
		Protocol: fakeProtocol{validators: []common.Address{{0x01}}},
		Network:  &fakeNetwork{},
		Inbox:    make(chan Inbound),
	})
	var cs *consensus.CannotSealError
	if !errors.As(err, &cs) || cs.Reason != consensus.ReasonNotAuthorised {
		t.Fatalf("Run returned %v", err)
	}
}

// The driver relays only what the core accepted: a message of the current
// height by a validator goes on (not back to its sender); one by an
// outsider, and one of a later height (whose validators the core does not
// know yet), go nowhere. The network is told the height first.
func TestDriverRelaysOnlyAccepted(t *testing.T) {
	self, v2, v3, v4 := common.Address{0x01}, common.Address{0x02}, common.Address{0x03}, common.Address{0x04}
	host := newFakeHost(time.Unix(1000, 0))
	net := &fakeNetwork{}
	inbox := make(chan Inbound)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, host, Config{
			Core:     bft.Config{Self: self, RequestTimeout: time.Second, BlockPeriod: time.Second, Rules: bft.QBFT},
			Protocol: fakeProtocol{self: self, validators: []common.Address{self, v2, v3, v4}},
			Network:  net,
			Inbox:    inbox,
		})
	}()
	msg := func(author common.Address, seq uint64) *bft.Message {
		m := &bft.Message{Kind: bft.KindPrepare, View: bft.View{Sequence: seq}, Author: author, Digest: common.Hash{9}}
		m.Wire = append(author.Bytes(), byte(seq))
		return m
	}
	outsider, ahead, good := msg(common.Address{0xee}, 1), msg(v3, 2), msg(v2, 1)
	released := 0
	for i, m := range []*bft.Message{outsider, ahead, good} {
		inbox <- Inbound{From: enode.ID{byte(i + 1)}, Msg: m, Hash: MessageHash(m), Done: func() { released++ }}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		net.mu.Lock()
		n := len(net.sent)
		net.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the validator's prepare was not relayed")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	net.mu.Lock()
	defer net.mu.Unlock()
	if len(net.sent) != 1 || net.sent[0] != good || net.except[0] != (enode.ID{3}) {
		t.Fatalf("relayed %d messages (first %+v, except %x)", len(net.sent), net.sent[0], net.except[0])
	}
	if len(net.heights) == 0 || net.heights[0] != 1 {
		t.Fatalf("heights told the network: %v", net.heights)
	}
	if released != 3 {
		t.Fatalf("Done called %d times", released)
	}
}
