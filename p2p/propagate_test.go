package p2p

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/testsupport/chaingen"
)

// TestWholeBlockSends: up to Besu's 25 peers every peer lacking a block
// gets it whole; beyond, √n do and the others get its hash.
func TestWholeBlockSends(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 1, 25: 25, 26: 6, 99: 10, 100: 10} {
		if got := wholeBlockSends(n); got != want {
			t.Errorf("%d peers: %d whole, want %d", n, got, want)
		}
	}
}

// announced returns how many messages of each name (NewBlock,
// NewBlockHashes) reg counted going out.
func announced(t *testing.T, reg *metrics.Registry) map[string]int {
	t.Helper()
	fams, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, f := range fams {
		if !strings.HasSuffix(f.GetName(), "p2p_messages_outbound") {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && (l.GetValue() == "NewBlock" || l.GetValue() == "NewBlockHashes") {
					n[l.GetValue()] += int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return n
}

// A peer the consensus engine believes holds a block (Config.PeerHasBlock:
// a BFT validator that sent a commit for it) is sent its hash only, not
// the whole block; and when it does not hold it after all (its commit did
// not reach a quorum on its side), it fetches the block from the hash: a
// holder left without any announcement never learns the block was made.
// A peer that does not hold a block gets it whole.
func TestHolderGetsHashOnly(t *testing.T) {
	var held atomic.Bool
	var asked atomic.Pointer[common.Hash]
	reg := metrics.New(metrics.Config{Categories: []metrics.Category{metrics.Network}})
	a := startNodeWith(t, 0, func(c *Config) {
		c.Metrics = reg
		c.PeerHasBlock = func(_ enode.ID, hash common.Hash) bool {
			asked.Store(&hash)
			return held.Load()
		}
	})
	b := startNode(t, 0)
	b.svc.AddStatic(a.enode(t))
	waitUntil(t, "the peers to connect", func() bool { return a.svc.PeerCount() == 1 && b.svc.PeerCount() == 1 })

	held.Store(true)
	if _, err := chaingen.New(a.chain, chaingen.Options{TxsPerBlock: 1}).ExtendHead(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	one := a.chain.CurrentHash()
	waitUntil(t, "block 1's broadcast", func() bool { h := asked.Load(); return h != nil && *h == one })
	waitUntil(t, "b, told it holds block 1 but lacking it, to fetch it from the hash", func() bool { return b.chain.CurrentHash() == one })
	if n := announced(t, reg); n["NewBlock"] != 0 || n["NewBlockHashes"] != 1 {
		t.Fatalf("block 1 to a holder: sent %v, want its hash only", n)
	}
	held.Store(false)
	if _, err := chaingen.New(a.chain, chaingen.Options{TxsPerBlock: 1}).ExtendHead(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "b to reach block 2", func() bool { return b.chain.CurrentHash() == a.chain.CurrentHash() })
	if n := announced(t, reg); n["NewBlock"] != 1 || n["NewBlockHashes"] != 1 {
		t.Fatalf("after block 2 to a peer lacking it: sent %v, want 1 NewBlock and the 1 hash before", n)
	}
}
