package bftengine

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/consensus/bft"
)

// The commits a node receives tell it which validators hold a block: an
// admitted commit records its author for its digest, a prepare does not.
func TestNetworkRecordsCommitAuthors(t *testing.T) {
	fx := newNetFixture(100)
	fx.n.holders = newHolders()
	rw, _ := fx.connect(enode.ID{0xa})
	if err := p2p.Send(rw, uint64(bft.KindPrepare), plain(5, common.Address{1}, 8)); err != nil {
		t.Fatal(err)
	}
	if err := p2p.Send(rw, uint64(bft.KindCommit), plain(5, common.Address{2}, 7)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		(<-fx.inbox).Done()
	}
	digest := func(salt int64) common.Hash { return common.BigToHash(big.NewInt(salt)) }
	if !fx.n.holders.has(digest(7), common.Address{2}) {
		t.Fatal("the commit's author is not recorded as holding its block")
	}
	if fx.n.holders.has(digest(8), common.Address{1}) || fx.n.holders.has(digest(7), common.Address{1}) {
		t.Fatal("a prepare's author is recorded as holding a block")
	}
}

// holders keeps the authors of the most recent digests only, however many
// heights and rounds pass.
func TestHoldersBounded(t *testing.T) {
	h := newHolders()
	for i := range 1000 {
		for a := range 4 {
			h.add(common.BigToHash(big.NewInt(int64(i))), common.Address{byte(a)})
		}
		if n := h.digests(); n > holderDigests {
			t.Fatalf("%d digests remembered after %d, bound %d", n, i+1, holderDigests)
		}
	}
	if !h.has(common.BigToHash(big.NewInt(999)), common.Address{3}) {
		t.Fatal("the newest digest is forgotten")
	}
	if h.has(common.BigToHash(big.NewInt(999-holderDigests)), common.Address{3}) {
		t.Fatal("a digest older than the bound is remembered")
	}
}
