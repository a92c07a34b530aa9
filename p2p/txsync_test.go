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

// watchTxs connects a txWatcher to n, with n's own status, so that n has
// nothing to sync from it.
func watchTxs(t *testing.T, n *testNode) *txWatcher {
	t.Helper()
	w := &txWatcher{}
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
				for {
					msg, err := rw.ReadMsg()
					if err != nil {
						return err
					}
					payload, err := io.ReadAll(msg.Payload)
					if err != nil {
						return err
					}
					m, err := eth.Decode(eth.ETH68, msg.Code, payload)
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
			}}},
	}}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.AddPeer(n.enode(t))
	waitUntil(t, "the watcher connected", func() bool { return n.svc.PeerCount() == 1 })
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
