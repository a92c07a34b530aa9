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

// announced returns how many NewBlock and NewBlockHashes messages reg
// counted going out.
func announced(t *testing.T, reg *metrics.Registry) int {
	t.Helper()
	fams, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fams {
		if !strings.HasSuffix(f.GetName(), "p2p_messages_outbound") {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && (l.GetValue() == "NewBlock" || l.GetValue() == "NewBlockHashes") {
					n += int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return n
}

// A block is not announced to a peer the consensus engine knows holds it
// (Config.PeerHasBlock: a BFT validator that sent a commit for it); a
// block it does not hold is, and the peer fetches the one it was not sent.
func TestNoAnnouncementToHolders(t *testing.T) {
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
	held.Store(false)
	if _, err := chaingen.New(a.chain, chaingen.Options{TxsPerBlock: 1}).ExtendHead(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "b to reach block 2", func() bool { return b.chain.CurrentHash() == a.chain.CurrentHash() })
	if n := announced(t, reg); n != 1 {
		t.Fatalf("%d announcements sent, want 1 (block 2 only)", n)
	}
}
