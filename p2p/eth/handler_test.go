package eth

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/testsupport/chaingen"
)

var (
	testGenesis = chaingen.Genesis(1)
	testEngine  = chaingen.UnsealedEngine(testGenesis)
)

// testChain returns a chain of n blocks with txs transfers each.
func testChain(t *testing.T, n, txs int) *chain.Chain {
	t.Helper()
	c, db, err := chaingen.OpenMemoryWith(testGenesis, testEngine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if n > 0 {
		if _, err := chaingen.New(c, chaingen.Options{TxsPerBlock: txs}).ExtendHead(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// testBackend serves a chain and records announcements.
type testBackend struct {
	chain     *chain.Chain
	networkID uint64
	genesis   common.Hash
	pooled    map[common.Hash]*types.Transaction

	mu      sync.Mutex
	blocks  []*types.Block
	txs     []*types.Transaction
	txMsgs  int // Transactions messages received
	hashes  []common.Hash
	annMsgs int // NewPooledTransactionHashes messages received
	anns    []BlockAnnounce
	peers   int
}

func newBackend(c *chain.Chain) *testBackend {
	return &testBackend{chain: c, networkID: 1337, genesis: c.GenesisHash(), pooled: map[common.Hash]*types.Transaction{}}
}

func (b *testBackend) Chain() Chain { return b.chain }
func (b *testBackend) Status() Status {
	return Status{NetworkID: b.networkID, TD: b.chain.CurrentTD(), Head: b.chain.CurrentHash(), Genesis: b.genesis}
}
func (b *testBackend) CheckForkID(forkid.ID) error               { return nil }
func (b *testBackend) PooledTx(h common.Hash) *types.Transaction { return b.pooled[h] }
func (b *testBackend) PeerConnected(*Peer) error                 { b.mu.Lock(); b.peers++; b.mu.Unlock(); return nil }
func (b *testBackend) PeerDisconnected(*Peer)                    { b.mu.Lock(); b.peers--; b.mu.Unlock() }
func (b *testBackend) HandleNewBlock(_ *Peer, bl *types.Block, _ *big.Int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.blocks = append(b.blocks, bl)
}
func (b *testBackend) HandleBlockHashes(_ *Peer, a []BlockAnnounce) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.anns = append(b.anns, a...)
}
func (b *testBackend) HandleTransactions(_ *Peer, txs []*types.Transaction) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.txs = append(b.txs, txs...)
	b.txMsgs++
}
func (b *testBackend) HandleTxHashes(_ *Peer, a *PooledHashes) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hashes = append(b.hashes, a.Hashes...)
	b.annMsgs++
}

// link runs the protocol between two backends over a message pipe and
// returns each side's peer (the one that talks to the other side) and the
// channels their Run errors arrive on.
func link(t *testing.T, a, b Backend, version uint) (pa, pb *Peer, erra, errb chan error) {
	t.Helper()
	rwa, rwb := p2p.MsgPipe()
	caps := []p2p.Cap{{Name: ProtocolName, Version: version}}
	pa = NewPeer(version, p2p.NewPeerPipe(enode.ID{1}, "b", caps, rwa), rwa, nil)
	pb = NewPeer(version, p2p.NewPeerPipe(enode.ID{2}, "a", caps, rwb), rwb, nil)
	erra, errb = make(chan error, 1), make(chan error, 1)
	go func() { erra <- Run(a, pa) }()
	go func() { errb <- Run(b, pb) }()
	t.Cleanup(func() { rwa.Close(); rwb.Close() })
	return pa, pb, erra, errb
}

// waitConnected waits until both ends registered their peer.
func waitConnected(t *testing.T, bs ...*testBackend) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, b := range bs {
		for {
			b.mu.Lock()
			n := b.peers
			b.mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("handshake did not complete")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestHandshakeAndRequests(t *testing.T) {
	serverChain, clientChain := testChain(t, 30, 2), testChain(t, 0, 0)
	for _, v := range ProtocolVersions {
		server, client := newBackend(serverChain), newBackend(clientChain)
		toServer, _, _, _ := link(t, client, server, v)
		waitConnected(t, client, server)
		head, td := toServer.Head()
		if head != server.chain.CurrentHash() || td.Cmp(server.chain.CurrentTD()) != 0 {
			t.Fatalf("eth/%d: status head %s td %v", v, head.Hex(), td)
		}
		ctx := context.Background()
		c := server.chain

		// By number, ascending with skip.
		hs, err := toServer.RequestHeadersByNumber(ctx, 3, 4, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 4 || hs[0].Number.Uint64() != 3 || hs[3].Number.Uint64() != 12 {
			t.Fatalf("eth/%d: headers %v", v, numbers(hs))
		}
		// By hash, reverse, past the genesis.
		hs, err = toServer.RequestHeadersByHash(ctx, c.GetCanonicalHash(5), 10, 0, true)
		if err != nil || len(hs) != 6 || hs[5].Number.Sign() != 0 {
			t.Fatalf("eth/%d: reverse headers %v %v", v, numbers(hs), err)
		}
		// Past the head: what exists.
		hs, _ = toServer.RequestHeadersByNumber(ctx, 28, 10, 0, false)
		if len(hs) != 3 {
			t.Fatalf("eth/%d: headers past the head %v", v, numbers(hs))
		}
		// Unknown hash: nothing.
		if hs, _ = toServer.RequestHeadersByHash(ctx, common.Hash{9}, 1, 0, false); len(hs) != 0 {
			t.Fatalf("unknown origin answered %v", numbers(hs))
		}

		// Bodies: the unknown hash is skipped.
		bodies, err := toServer.RequestBodies(ctx, []common.Hash{c.GetCanonicalHash(1), {9}, c.GetCanonicalHash(2)})
		if err != nil || len(bodies) != 2 || len(bodies[1].Transactions) != 2 || bodies[1].Withdrawals == nil {
			t.Fatalf("bodies %v %v", bodies, err)
		}
		want := c.GetBlockByNumber(2).Transactions()[1].Hash()
		if bodies[1].Transactions[1].Hash() != want {
			t.Fatal("wrong body")
		}

		// Receipts.
		receipts, err := toServer.RequestReceipts(ctx, []common.Hash{c.GetCanonicalHash(4)})
		if err != nil || len(receipts) != 1 || len(receipts[0]) != 2 || receipts[0][1].CumulativeGasUsed != 42000 {
			t.Fatalf("receipts %v %v", receipts, err)
		}

		// Pooled transactions.
		tx := c.GetBlockByNumber(3).Transactions()[0]
		server.pooled[tx.Hash()] = tx
		txs, err := toServer.RequestPooledTransactions(ctx, []common.Hash{{1}, tx.Hash()})
		if err != nil || len(txs) != 1 || txs[0].Hash() != tx.Hash() {
			t.Fatalf("pooled %v %v", txs, err)
		}
	}
}

func numbers(hs []*types.Header) []uint64 {
	var out []uint64
	for _, h := range hs {
		out = append(out, h.Number.Uint64())
	}
	return out
}

func TestAnnouncements(t *testing.T) {
	serverChain, clientChain := testChain(t, 3, 1), testChain(t, 0, 0)
	for _, v := range []uint{ETH67, ETH68} {
		server, client := newBackend(serverChain), newBackend(clientChain)
		toClient, _, _, _ := link(t, server, client, v)
		waitConnected(t, client, server)
		block := server.chain.GetBlockByNumber(3)
		hash := server.chain.CurrentHash()
		toClient.AsyncSendNewBlock(block, hash, server.chain.CurrentTD())
		toClient.AsyncSendNewBlockHash(hash, 3)
		toClient.AsyncSendTransactions(block.Transactions())
		toClient.AsyncSendPooledHashes(block.Transactions())
		if !toClient.KnowsBlock(hash) || !toClient.KnowsTx(block.Transactions()[0].Hash()) {
			t.Fatal("sent items not marked known")
		}
		waitFor(t, func() bool {
			client.mu.Lock()
			defer client.mu.Unlock()
			return len(client.blocks) == 1 && len(client.anns) == 1 && len(client.txs) == 1 && len(client.hashes) == 1
		})
		client.mu.Lock()
		if client.anns[0].Hash != hash || client.blocks[0].NumberU64() != 3 || client.hashes[0] != block.Transactions()[0].Hash() {
			t.Fatalf("eth/%d: announcements %+v", v, client.anns)
		}
		client.mu.Unlock()
	}
}

// TestLargeSendsSplit: an announcement of more hashes than a receiver takes
// in one message, and transactions larger together than a broadcast packet,
// go out as several messages the receiver accepts.
func TestLargeSendsSplit(t *testing.T) {
	c := testChain(t, 0, 0)
	for _, v := range []uint{ETH67, ETH68} {
		server, client := newBackend(c), newBackend(c)
		toClient, _, _, errc := link(t, server, client, v)
		waitConnected(t, client, server)
		many := make([]*types.Transaction, maxAnnouncedHashes+904)
		for i := range many {
			many[i] = types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 21000, GasPrice: big.NewInt(1)})
		}
		toClient.AsyncSendPooledHashes(many)
		big3 := make([]*types.Transaction, 3)
		for i := range big3 {
			big3[i] = types.NewTx(&types.LegacyTx{Nonce: uint64(i), Gas: 1_000_000, GasPrice: big.NewInt(1), Data: make([]byte, 60*1024)})
		}
		toClient.AsyncSendTransactions(big3)
		waitFor(t, func() bool {
			client.mu.Lock()
			defer client.mu.Unlock()
			return len(client.hashes) == len(many) && len(client.txs) == len(big3)
		})
		client.mu.Lock()
		if client.annMsgs != 2 || client.txMsgs != 3 || client.hashes[len(many)-1] != many[len(many)-1].Hash() {
			t.Fatalf("eth/%d: %d announcements, %d transaction messages; want 2 and 3", v, client.annMsgs, client.txMsgs)
		}
		client.mu.Unlock()
		select {
		case err := <-errc:
			t.Fatalf("eth/%d: the receiver disconnected: %v", v, err)
		default:
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHandshakeRejects(t *testing.T) {
	c := testChain(t, 0, 0)
	other := newBackend(c)
	other.networkID = 1
	wrongGenesis := newBackend(c)
	wrongGenesis.genesis = common.Hash{1}
	for _, tc := range []struct {
		name string
		peer *testBackend
		want error
	}{
		{"network ID", other, ErrNetworkIDMismatch},
		{"genesis", wrongGenesis, ErrGenesisMismatch},
	} {
		_, _, errLocal, _ := link(t, newBackend(c), tc.peer, ETH68)
		select {
		case err := <-errLocal:
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: handshake not rejected", tc.name)
		}
	}
}

// rawLink connects a backend to a raw message pipe end the test drives.
func rawLink(t *testing.T, b Backend) (*p2p.MsgPipeRW, chan error) {
	t.Helper()
	local, remote := p2p.MsgPipe()
	p := NewPeer(ETH68, p2p.NewPeerPipe(enode.ID{3}, "raw", nil, local), local, nil)
	errc := make(chan error, 1)
	go func() { errc <- Run(b, p) }()
	t.Cleanup(func() { local.Close(); remote.Close() })
	// Handshake from the raw side.
	msg, err := remote.ReadMsg()
	if err != nil {
		t.Fatal(err)
	}
	msg.Discard()
	st := b.Status()
	st.ProtocolVersion = ETH68
	if err := p2p.Send(remote, StatusMsg, &st); err != nil {
		t.Fatal(err)
	}
	return remote, errc
}

// A protocol violation ends Run with an error (the server disconnects the
// peer with it).
func TestViolationsEndConnection(t *testing.T) {
	c := testChain(t, 0, 0)
	status := newBackend(c).Status()
	status.ProtocolVersion = ETH68
	statusEnc, _ := rlp.EncodeToBytes(&status)
	for _, tc := range []struct {
		name    string
		code    uint64
		payload []byte
		want    error
	}{
		{"malformed RLP", TransactionsMsg, []byte{0xc5, 0x01}, ErrDecode},
		{"wrong type", NewBlockMsg, []byte{0xc2, 0x01, 0x02}, ErrDecode},
		{"oversize", TransactionsMsg, make([]byte, MaxMessageSize+1), ErrMsgTooLarge},
		{"second status", StatusMsg, statusEnc, ErrExtraStatusMsg},
		{"unknown code", 0x0c, []byte{0xc0}, ErrInvalidMsgCode},
	} {
		b := newBackend(c)
		raw, errc := rawLink(t, b)
		waitConnected(t, b)
		go raw.WriteMsg(p2p.Msg{Code: tc.code, Size: uint32(len(tc.payload)), Payload: bytesReader(tc.payload)})
		select {
		case err := <-errc:
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: connection not ended", tc.name)
		}
	}
}

func TestTimeoutAndUnsolicited(t *testing.T) {
	c := testChain(t, 0, 0)
	local, remote := p2p.MsgPipe()
	defer local.Close()
	defer remote.Close()
	p := NewPeer(ETH68, p2p.NewPeerPipe(enode.ID{4}, "slow", nil, local), local, nil)
	p.SetRequestTimeout(50 * time.Millisecond)
	b := newBackend(c)
	go Run(b, p)
	if msg, err := remote.ReadMsg(); err == nil {
		msg.Discard()
	}
	st := b.Status()
	st.ProtocolVersion = ETH68
	p2p.Send(remote, StatusMsg, &st)
	waitConnected(t, b)

	// The remote reads the request and never answers.
	go func() {
		msg, err := remote.ReadMsg()
		if err == nil {
			msg.Discard()
		}
	}()
	if _, err := p.RequestHeadersByNumber(context.Background(), 0, 1, 0, false); !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	if p.Reputation() != maxReputation-PenaltyTimeout {
		t.Fatalf("reputation %d after a timeout", p.Reputation())
	}
	// An answer nobody asked for costs a little.
	p2p.Send(remote, BlockHeadersMsg, &blockHeadersPacket{RequestID: 12345})
	waitFor(t, func() bool { return p.Reputation() == maxReputation-PenaltyTimeout-PenaltyUnsolicited })
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
