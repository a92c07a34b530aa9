package p2p

import (
	"io"
	"math/big"
	"slices"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethp2p "github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/p2p/eth"
)

// txWatcher is an eth/68 peer run by the test that records the
// transactions a node sends it, whole or announced by hash, in order.
type txWatcher struct {
	mu        sync.Mutex
	whole     []common.Hash // Transactions
	announced []common.Hash // NewPooledTransactionHashes
}

func (w *txWatcher) seen() (whole, announced []common.Hash) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.whole), slices.Clone(w.announced)
}

// connectRaw connects an eth/68 peer run by the test to n: it sends n's
// own status (so n has nothing to sync from it), then run reads and writes
// the connection. It returns once n counts the peer.
func connectRaw(t *testing.T, n *testNode, run func(rw gethp2p.MsgReadWriter) error) *gethp2p.Server {
	t.Helper()
	status := n.svc.Status()
	status.ProtocolVersion = eth.ETH68
	key, _ := crypto.GenerateKey()
	srv := &gethp2p.Server{Config: gethp2p.Config{
		PrivateKey: key, MaxPeers: 1, NoDiscovery: true, ListenAddr: "127.0.0.1:0",
		Protocols: []gethp2p.Protocol{{Name: eth.ProtocolName, Version: eth.ETH68, Length: eth.ProtocolLength(eth.ETH68),
			Run: func(p *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
				if err := gethp2p.Send(rw, eth.StatusMsg, &status); err != nil {
					return err
				}
				return run(rw)
			}}},
	}}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.AddPeer(n.enode(t))
	waitUntil(t, "the raw peer connected", func() bool { return n.svc.PeerCount() == 1 })
	return srv
}

// readEth reads and decodes the next eth message (the status included).
func readEth(rw gethp2p.MsgReadWriter) (eth.Message, error) {
	msg, err := rw.ReadMsg()
	if err != nil {
		return nil, err
	}
	payload, err := io.ReadAll(msg.Payload)
	if err != nil {
		return nil, err
	}
	return eth.Decode(eth.ETH68, msg.Code, payload)
}

// watchTxs connects a txWatcher to n.
func watchTxs(t *testing.T, n *testNode) *txWatcher {
	t.Helper()
	w := &txWatcher{}
	connectRaw(t, n, func(rw gethp2p.MsgReadWriter) error {
		for {
			m, err := readEth(rw)
			if err != nil {
				return err
			}
			w.mu.Lock()
			switch m := m.(type) {
			case []*types.Transaction:
				for _, tx := range m {
					w.whole = append(w.whole, tx.Hash())
				}
			case *eth.PooledHashes:
				w.announced = append(w.announced, m.Hashes...)
			}
			w.mu.Unlock()
		}
	})
	return w
}

// devTransfer is a transfer from dev account i with nonce, signed for
// n's chain.
func devTransfer(t *testing.T, n *testNode, i int, nonce uint64) *types.Transaction {
	t.Helper()
	key, err := crypto.HexToECDSA(config.DevAccounts[i].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return types.MustSignNewTx(key, types.LatestSigner(n.chain.Config()), &types.DynamicFeeTx{
		ChainID: n.chain.Config().ChainID, Nonce: nonce,
		GasTipCap: big.NewInt(2000), GasFeeCap: big.NewInt(1e12), Gas: 21000, To: &common.Address{1}, Value: big.NewInt(1),
	})
}

func mustAddLocal(t *testing.T, n *testNode, txs ...*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		if err := n.pool.AddLocal(tx); err != nil {
			t.Fatalf("add nonce %d: %v", tx.Nonce(), err)
		}
	}
}

func hashes(txs ...*types.Transaction) []common.Hash {
	out := make([]common.Hash, len(txs))
	for i, tx := range txs {
		out[i] = tx.Hash()
	}
	return out
}

// TestNewPeerGetsQueuedTxs: a peer that connects is told the hashes of the
// whole pool, executable transactions first, then the queued ones behind a
// nonce gap, each sender's in nonce order.
func TestNewPeerGetsQueuedTxs(t *testing.T) {
	n := startNode(t, 0)
	tx0, tx2, tx3 := devTransfer(t, n, 0, 0), devTransfer(t, n, 0, 2), devTransfer(t, n, 0, 3)
	mustAddLocal(t, n, tx0, tx2, tx3)
	if st := n.pool.Stats(); st.Pending != 1 || st.Queued != 2 {
		t.Fatalf("pool %+v, want 1 pending and 2 queued", st)
	}
	w := watchTxs(t, n)
	want := hashes(tx0, tx2, tx3)
	waitUntil(t, "the pool announced", func() bool {
		_, ann := w.seen()
		return len(ann) >= len(want)
	})
	if _, ann := w.seen(); !slices.Equal(ann, want) {
		t.Fatalf("announced %v, want %v", ann, want)
	}
}

// TestPromotionAnnounced: a queued transaction the peer was already sent
// is announced again when a new transaction makes it executable.
func TestPromotionAnnounced(t *testing.T) {
	n := startNode(t, 0)
	w := watchTxs(t, n)
	tx0, tx1 := devTransfer(t, n, 0, 0), devTransfer(t, n, 0, 1)
	mustAddLocal(t, n, tx1) // queued: sent whole (the only peer is a direct one)
	waitUntil(t, "the queued transaction sent", func() bool {
		whole, _ := w.seen()
		return len(whole) == 1
	})
	mustAddLocal(t, n, tx0)
	waitUntil(t, "the gap filler sent and the promoted one announced", func() bool {
		whole, ann := w.seen()
		return len(whole) == 2 && len(ann) == 1
	})
	whole, ann := w.seen()
	if !slices.Equal(whole, hashes(tx1, tx0)) || !slices.Equal(ann, hashes(tx1)) {
		t.Fatalf("sent %v and announced %v; want %v then %v, and %v announced", whole, ann, tx1.Hash(), tx0.Hash(), tx1.Hash())
	}
}

// TestGapsFillAcrossNodes: two nodes that each acknowledged every other
// nonce of one sender (a client submitting round-robin), then connect:
// both end with the whole run executable.
func TestGapsFillAcrossNodes(t *testing.T) {
	a, b := startNode(t, 0), startNode(t, 0)
	var txs []*types.Transaction
	for i := range 6 {
		tx := devTransfer(t, a, 0, uint64(i))
		txs = append(txs, tx)
		mustAddLocal(t, []*testNode{a, b}[i%2], tx)
	}
	a.svc.AddStatic(b.enode(t))
	for _, n := range []*testNode{a, b} {
		waitUntil(t, "every nonce executable on both nodes", func() bool {
			return n.pool.Stats().Pending == len(txs)
		})
	}
}

// TestTxFetchBounded: what a peer announces waits in a queue of at most
// maxTxFetchQueue hashes and is fetched maxTxFetch at a time by one fetch;
// the rest of an announcement beyond the queue is dropped, and nothing is
// left behind when the peer goes.
func TestTxFetchBounded(t *testing.T) {
	n := startNode(t, 0)
	var (
		mu        sync.Mutex
		requested int
		largest   int
	)
	batch := func(offset int) []common.Hash {
		hs := make([]common.Hash, 4096)
		for i := range hs {
			hs[i] = crypto.Keccak256Hash([]byte{byte(offset)}, big.NewInt(int64(i)).Bytes())
		}
		return hs
	}
	announce := func(rw gethp2p.MsgReadWriter, hs []common.Hash) error {
		return gethp2p.Send(rw, eth.NewPooledTransactionHashesMsg, &struct {
			Types  []byte
			Sizes  []uint32
			Hashes []common.Hash
		}{make([]byte, len(hs)), slices.Repeat([]uint32{100}, len(hs)), hs})
	}
	answer := func(rw gethp2p.MsgReadWriter, id uint64) error {
		return gethp2p.Send(rw, eth.PooledTransactionsMsg, &struct {
			RequestID uint64
			Txs       []*types.Transaction
		}{id, nil})
	}
	srv := connectRaw(t, n, func(rw gethp2p.MsgReadWriter) error {
		// The first request is held until a second full announcement is
		// sent behind it, so the node queues the second while 3,840 hashes
		// of the first still wait.
		if err := announce(rw, batch(1)); err != nil {
			return err
		}
		held := uint64(0)
		for {
			m, err := readEth(rw)
			if err != nil {
				return err
			}
			req, ok := m.(*eth.GetHashes)
			if !ok || req.Code != eth.GetPooledTransactionsMsg {
				continue
			}
			mu.Lock()
			requested += len(req.Hashes)
			largest = max(largest, len(req.Hashes))
			mu.Unlock()
			if held == 0 {
				held = req.RequestID
				if err := announce(rw, batch(2)); err != nil {
					return err
				}
				if err := answer(rw, held); err != nil {
					return err
				}
				continue
			}
			if err := answer(rw, req.RequestID); err != nil {
				return err
			}
		}
	})
	want := maxTxFetch + maxTxFetchQueue // the first request, then a full queue
	waitUntil(t, "the queue fetched", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return requested >= want
	})
	waitUntil(t, "the fetch done", func() bool {
		n.svc.fetchMu.Lock()
		defer n.svc.fetchMu.Unlock()
		return len(n.svc.fetchingTxs) == 0
	})
	mu.Lock()
	if requested != want || largest != maxTxFetch {
		t.Fatalf("requested %d hashes, at most %d a request; want %d, %d a request", requested, largest, want, maxTxFetch)
	}
	mu.Unlock()
	srv.Stop()
	waitUntil(t, "the peer's queue dropped", func() bool {
		n.svc.fetchMu.Lock()
		defer n.svc.fetchMu.Unlock()
		return len(n.svc.txQueues) == 0 && n.svc.PeerCount() == 0
	})
}
