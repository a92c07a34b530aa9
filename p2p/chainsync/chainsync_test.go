package chainsync

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/p2p/eth"
	"github.com/basaltchain/basalt/testsupport/chaingen"
)

// chainPeer serves a chain the way an honest peer does; tamper, when set,
// may change what it answers.
type chainPeer struct {
	c      *chain.Chain
	tamper func(headers []*types.Header, bodies []*eth.BlockBody)
	calls  int
}

func (p *chainPeer) ID() string { return "00000000000000000000000000000000fake" }

func (p *chainPeer) RequestHeadersByHash(_ context.Context, hash common.Hash, amount, skip int, reverse bool) ([]*types.Header, error) {
	p.calls++
	h := p.c.GetHeaderByHash(hash)
	if h == nil {
		return nil, nil
	}
	return p.RequestHeadersByNumber(context.Background(), h.Number.Uint64(), amount, skip, reverse)
}

func (p *chainPeer) RequestHeadersByNumber(_ context.Context, number uint64, amount, skip int, reverse bool) ([]*types.Header, error) {
	p.calls++
	var out []*types.Header
	for i := 0; i < amount; i++ {
		h := p.c.GetHeaderByNumber(number + uint64(i*(skip+1)))
		if h == nil {
			break
		}
		out = append(out, h)
	}
	if p.tamper != nil {
		p.tamper(out, nil)
	}
	return out, nil
}

func (p *chainPeer) RequestBodies(_ context.Context, hashes []common.Hash) ([]*eth.BlockBody, error) {
	p.calls++
	var out []*eth.BlockBody
	for _, hash := range hashes {
		h := p.c.GetHeaderByHash(hash)
		if h == nil {
			continue
		}
		b := p.c.GetBody(hash, h.Number.Uint64())
		out = append(out, &eth.BlockBody{Transactions: b.Transactions, Uncles: b.Uncles, Withdrawals: b.Withdrawals})
	}
	if p.tamper != nil {
		p.tamper(nil, out)
	}
	return out, nil
}

var (
	genesis = chaingen.Genesis(1)
	// engine skips proof of work, whose hashes are slow under the race
	// detector; the end-to-end tests run the real one.
	engine = chaingen.UnsealedEngine(genesis)
)

// newChain returns an empty chain on the test genesis.
func newChain(t *testing.T) *chain.Chain {
	t.Helper()
	c, db, err := chaingen.OpenMemoryWith(genesis, engine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return c
}

func extend(t *testing.T, c *chain.Chain, parent common.Hash, n, txs int, coinbase common.Address) []*types.Block {
	t.Helper()
	blocks, err := chaingen.New(c, chaingen.Options{TxsPerBlock: txs, Coinbase: coinbase}).Extend(context.Background(), parent, n)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// copyBlocks inserts blocks (from another chain) into c.
func copyBlocks(t *testing.T, c *chain.Chain, blocks []*types.Block) {
	t.Helper()
	for _, b := range blocks {
		if _, err := c.InsertBlock(context.Background(), b, chain.InsertOptions{}); err != nil && !errors.Is(err, chain.ErrKnownBlock) {
			t.Fatal(err)
		}
	}
}

func TestSyncFromGenesis(t *testing.T) {
	remote, local := newChain(t), newChain(t)
	extend(t, remote, remote.GenesisHash(), 250, 2, common.Address{})
	s := New(local, nil)
	var started *Progress
	res, err := s.Sync(context.Background(), &chainPeer{c: remote}, remote.CurrentHash(), func(p Progress) { started = &p })
	if err != nil {
		t.Fatal(err)
	}
	if local.CurrentHash() != remote.CurrentHash() || res.Imported != 250 {
		t.Fatalf("head %d (imported %d), want the remote head 250", local.CurrentHeader().Number, res.Imported)
	}
	if started == nil || started.Starting != 0 || started.Highest != 250 {
		t.Fatalf("progress at start %+v", started)
	}
	if res.TD.Cmp(remote.CurrentTD()) != 0 || s.Progress() != nil {
		t.Fatalf("result TD %v, want %v; progress after %+v", res.TD, remote.CurrentTD(), s.Progress())
	}
	// A second sync has nothing to do.
	res, err = s.Sync(context.Background(), &chainPeer{c: remote}, remote.CurrentHash(), nil)
	if err != nil || res.Imported != 0 {
		t.Fatalf("second sync: %+v %v", res, err)
	}
}

// A heavier branch that forked long ago (beyond the first header window)
// is found by binary search and replaces the local branch.
func TestSyncReorgDeepFork(t *testing.T) {
	remote, local := newChain(t), newChain(t)
	common10 := extend(t, remote, remote.GenesisHash(), 10, 1, common.Address{})
	copyBlocks(t, local, common10)
	fork := remote.CurrentHash()
	extend(t, remote, fork, 220, 1, common.Address{1})
	extend(t, local, fork, 210, 1, common.Address{2})
	peer := &chainPeer{c: remote}
	res, err := New(local, nil).Sync(context.Background(), peer, remote.CurrentHash(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if local.CurrentHash() != remote.CurrentHash() || res.Imported != 220 {
		t.Fatalf("head %d, imported %d", local.CurrentHeader().Number, res.Imported)
	}
	// The local branch is still stored, as a side chain.
	if local.GetCanonicalHash(11) != remote.GetCanonicalHash(11) {
		t.Fatal("canonical block 11 is not the remote one")
	}
}

// A lighter branch is stored but does not become the head.
func TestSyncLighterBranch(t *testing.T) {
	remote, local := newChain(t), newChain(t)
	base := extend(t, remote, remote.GenesisHash(), 5, 0, common.Address{})
	copyBlocks(t, local, base)
	extend(t, remote, remote.CurrentHash(), 3, 1, common.Address{1})
	extend(t, local, remote.GetCanonicalHash(5), 6, 1, common.Address{2})
	head := local.CurrentHash()
	res, err := New(local, nil).Sync(context.Background(), &chainPeer{c: remote}, remote.CurrentHash(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if local.CurrentHash() != head || res.Imported != 3 || !local.HasBlock(remote.CurrentHash(), 8) {
		t.Fatalf("head moved or side blocks missing: imported %d", res.Imported)
	}
	if res.TD.Cmp(remote.CurrentTD()) != 0 {
		t.Fatalf("result TD %v, want %v", res.TD, remote.CurrentTD())
	}
}

func TestSyncBadPeers(t *testing.T) {
	remote := newChain(t)
	extend(t, remote, remote.GenesisHash(), 40, 2, common.Address{})
	for _, tc := range []struct {
		name   string
		tamper func([]*types.Header, []*eth.BlockBody)
	}{
		{"headers not linked", func(hs []*types.Header, _ []*eth.BlockBody) {
			if len(hs) > 5 {
				h := types.CopyHeader(hs[5])
				h.ParentHash = common.Hash{1}
				hs[5] = h
			}
		}},
		{"headers renumbered", func(hs []*types.Header, _ []*eth.BlockBody) {
			if len(hs) > 5 {
				h := types.CopyHeader(hs[5])
				h.Number = big.NewInt(99)
				hs[5] = h
			}
		}},
		{"body swapped", func(_ []*types.Header, bs []*eth.BlockBody) {
			if len(bs) > 3 {
				bs[2], bs[3] = bs[3], bs[2]
			}
		}},
		{"transaction dropped", func(_ []*types.Header, bs []*eth.BlockBody) {
			if len(bs) > 3 {
				bs[3] = &eth.BlockBody{Transactions: bs[3].Transactions[1:], Withdrawals: bs[3].Withdrawals}
			}
		}},
		{"withdrawals missing", func(_ []*types.Header, bs []*eth.BlockBody) {
			if len(bs) > 3 {
				bs[3] = &eth.BlockBody{Transactions: bs[3].Transactions}
			}
		}},
	} {
		local := newChain(t)
		_, err := New(local, nil).Sync(context.Background(), &chainPeer{c: remote, tamper: tc.tamper}, remote.CurrentHash(), nil)
		if !errors.Is(err, ErrBadPeer) {
			t.Errorf("%s: got %v, want ErrBadPeer", tc.name, err)
		}
	}
}

// A block whose content is valid for its header but fails execution (here:
// a header whose state root was altered and resealed) is a bad peer.
func TestSyncInvalidBlock(t *testing.T) {
	remote, local := newChain(t), newChain(t)
	extend(t, remote, remote.GenesisHash(), 3, 1, common.Address{})
	// A fake peer whose block 3 claims another coinbase than it paid.
	bad := &chainPeer{c: remote, tamper: func(hs []*types.Header, _ []*eth.BlockBody) {
		for i, h := range hs {
			if h.Number.Uint64() == 3 {
				h = types.CopyHeader(h)
				h.Coinbase = config.DevAccounts[0].Address
				hs[i] = h
			}
		}
	}}
	_, err := New(local, nil).Sync(context.Background(), bad, remote.GetCanonicalHash(2), nil)
	if err != nil {
		t.Fatalf("sync to block 2: %v", err)
	}
	// Asked for the real head, the peer serves a different block 3, which
	// fails at the hash check of the target or at execution.
	_, err = New(local, nil).Sync(context.Background(), bad, remote.CurrentHash(), nil)
	if !errors.Is(err, ErrBadPeer) {
		t.Fatalf("got %v, want ErrBadPeer", err)
	}
	if local.CurrentHeader().Number.Uint64() != 2 {
		t.Fatalf("head %d after the bad block", local.CurrentHeader().Number)
	}
}

func TestSyncHeadUnknown(t *testing.T) {
	remote, local := newChain(t), newChain(t)
	extend(t, remote, remote.GenesisHash(), 3, 0, common.Address{})
	_, err := New(local, nil).Sync(context.Background(), &chainPeer{c: remote}, common.Hash{7}, nil)
	if !errors.Is(err, ErrHeadUnknown) {
		t.Fatalf("got %v", err)
	}
}
