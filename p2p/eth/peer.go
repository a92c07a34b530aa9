package eth

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"
)

// Reputation. A peer starts at maxReputation; failures cost points and a
// peer that reaches zero is disconnected as useless. Protocol violations
// disconnect at once, whatever the score.
const (
	maxReputation = 100
	// PenaltyTimeout is the cost of a request that timed out.
	PenaltyTimeout = 20
	// PenaltyUseless is the cost of a response that does not answer the
	// request (wrong or missing items the peer should have).
	PenaltyUseless = 10
	// PenaltyUnsolicited is the cost of a response nobody asked for (often
	// a late answer to a request that timed out).
	PenaltyUnsolicited = 2
)

// DefaultRequestTimeout is how long a peer has to answer a request.
const DefaultRequestTimeout = 10 * time.Second

const (
	maxKnownBlocks = 1024
	maxKnownTxs    = 32768
	maxQueuedSends = 256
	// maxTxPacketSize bounds one Transactions message we send
	// (go-ethereum's broadcast limit).
	maxTxPacketSize = 100 * 1024
)

// Request errors.
var (
	ErrTimeout      = errors.New("request timed out")
	ErrPeerGone     = errors.New("peer disconnected")
	errSendQueueful = errors.New("send queue full")
)

// Peer is a connected peer speaking eth. Its methods are safe for
// concurrent use.
type Peer struct {
	p       *p2p.Peer
	rw      p2p.MsgReadWriter
	version uint
	id      string
	log     *slog.Logger
	timeout time.Duration

	headMu sync.RWMutex
	head   common.Hash
	td     *big.Int

	knownBlocks *knownSet
	knownTxs    *knownSet

	reqMu   sync.Mutex
	pending map[uint64]*request

	reputation atomic.Int32
	queue      chan func() error
	term       chan struct{}
	closeOnce  sync.Once
}

type request struct {
	code uint64 // expected response code
	resp chan Message
}

// NewPeer wraps a connected devp2p peer that negotiated eth version.
func NewPeer(version uint, p *p2p.Peer, rw p2p.MsgReadWriter, log *slog.Logger) *Peer {
	if log == nil {
		log = slog.Default()
	}
	id := p.ID().String()
	peer := &Peer{
		p:           p,
		rw:          rw,
		version:     version,
		id:          id,
		log:         log.With("peer", id[:16]),
		timeout:     DefaultRequestTimeout,
		td:          new(big.Int),
		knownBlocks: newKnownSet(maxKnownBlocks),
		knownTxs:    newKnownSet(maxKnownTxs),
		pending:     make(map[uint64]*request),
		queue:       make(chan func() error, maxQueuedSends),
		term:        make(chan struct{}),
	}
	peer.reputation.Store(maxReputation)
	return peer
}

// ID is the peer's node ID in hex.
func (p *Peer) ID() string { return p.id }

// NodeID is the peer's node ID.
func (p *Peer) NodeID() enode.ID { return p.p.ID() }

// Version is the negotiated eth version.
func (p *Peer) Version() uint { return p.version }

// Peer is the underlying devp2p peer.
func (p *Peer) Peer() *p2p.Peer { return p.p }

// SetRequestTimeout changes how long requests wait (tests shorten it).
func (p *Peer) SetRequestTimeout(d time.Duration) { p.timeout = d }

// Head returns the hash and total difficulty of the peer's best block as
// far as we know.
func (p *Peer) Head() (common.Hash, *big.Int) {
	p.headMu.RLock()
	defer p.headMu.RUnlock()
	return p.head, new(big.Int).Set(p.td)
}

// SetHead records the peer's best block.
func (p *Peer) SetHead(hash common.Hash, td *big.Int) {
	p.headMu.Lock()
	defer p.headMu.Unlock()
	p.head, p.td = hash, new(big.Int).Set(td)
}

// Reputation is the peer's current score (0 to 100).
func (p *Peer) Reputation() int { return int(p.reputation.Load()) }

// Penalize lowers the peer's score by points; a peer at zero is
// disconnected as useless.
func (p *Peer) Penalize(points int, reason string) {
	left := p.reputation.Add(-int32(points))
	p.log.Debug("Peer penalized", "points", points, "reason", reason, "reputation", left)
	if left <= 0 {
		p.log.Info("Disconnecting useless peer", "reason", reason)
		p.Disconnect(p2p.DiscUselessPeer)
	}
}

func (p *Peer) reward() {
	for {
		cur := p.reputation.Load()
		if cur >= maxReputation || p.reputation.CompareAndSwap(cur, cur+1) {
			return
		}
	}
}

// Disconnect ends the connection.
func (p *Peer) Disconnect(reason p2p.DiscReason) { p.p.Disconnect(reason) }

// Done is closed when the peer's handler has ended.
func (p *Peer) Done() <-chan struct{} { return p.term }

// KnowsBlock reports whether the peer is known to have the block.
func (p *Peer) KnowsBlock(hash common.Hash) bool { return p.knownBlocks.has(hash) }

// KnowsTx reports whether the peer is known to have the transaction.
func (p *Peer) KnowsTx(hash common.Hash) bool { return p.knownTxs.has(hash) }

// MarkBlock records that the peer has the block.
func (p *Peer) MarkBlock(hash common.Hash) { p.knownBlocks.add(hash) }

// MarkTxs records that the peer has the transactions.
func (p *Peer) MarkTxs(hashes ...common.Hash) { p.knownTxs.add(hashes...) }

// close ends the send loop and fails the pending requests.
func (p *Peer) close() {
	p.closeOnce.Do(func() { close(p.term) })
}

// sendLoop writes the queued announcements, in order, until the peer ends.
func (p *Peer) sendLoop() {
	for {
		select {
		case send := <-p.queue:
			if err := send(); err != nil {
				p.log.Debug("Send failed", "err", err)
			}
		case <-p.term:
			return
		}
	}
}

// enqueue queues an announcement; when the queue is full (a slow peer) it
// is dropped rather than slowing the caller.
func (p *Peer) enqueue(send func() error) error {
	select {
	case p.queue <- send:
		return nil
	case <-p.term:
		return ErrPeerGone
	default:
		return errSendQueueful
	}
}

// AsyncSendNewBlock queues a NewBlock message and marks the block known.
// hash is the block's hash (the chain's, see chain.Hash).
func (p *Peer) AsyncSendNewBlock(block *types.Block, hash common.Hash, td *big.Int) {
	p.MarkBlock(hash)
	td = new(big.Int).Set(td)
	p.enqueue(func() error {
		return p2p.Send(p.rw, NewBlockMsg, &NewBlockPacket{Block: block, TD: td})
	})
}

// AsyncSendNewBlockHash queues a NewBlockHashes message for one block.
func (p *Peer) AsyncSendNewBlockHash(hash common.Hash, number uint64) {
	p.MarkBlock(hash)
	p.enqueue(func() error {
		return p2p.Send(p.rw, NewBlockHashesMsg, []BlockAnnounce{{Hash: hash, Number: number}})
	})
}

// AsyncSendTransactions queues Transactions messages of at most about
// maxTxPacketSize each (a larger transaction goes alone) and marks the
// transactions known to the peer. When the peer's send queue is full
// nothing is sent and nothing marked, so a later announcement (a
// promotion) can still reach it.
func (p *Peer) AsyncSendTransactions(txs []*types.Transaction) {
	if len(txs) == 0 {
		return
	}
	if p.enqueue(func() error {
		for rest := txs; len(rest) > 0; {
			n, size := 0, 0
			for n < len(rest) && (n == 0 || size+int(rest[n].Size()) <= maxTxPacketSize) {
				size += int(rest[n].Size())
				n++
			}
			if err := p2p.Send(p.rw, TransactionsMsg, rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}) != nil {
		return
	}
	for _, tx := range txs {
		p.MarkTxs(tx.Hash())
	}
}

// AsyncSendPooledHashes queues NewPooledTransactionHashes messages in the
// format of the peer's version, at most maxAnnouncedHashes hashes each (what
// a receiver takes in one), and marks the transactions known to the peer.
// When the peer's send queue is full nothing is sent and nothing marked.
func (p *Peer) AsyncSendPooledHashes(txs []*types.Transaction) {
	if len(txs) == 0 {
		return
	}
	ann := pooledHashes68{
		Types:  make([]byte, len(txs)),
		Sizes:  make([]uint32, len(txs)),
		Hashes: make([]common.Hash, len(txs)),
	}
	for i, tx := range txs {
		ann.Types[i], ann.Sizes[i], ann.Hashes[i] = tx.Type(), uint32(tx.Size()), tx.Hash()
	}
	if p.enqueue(func() error {
		for i := 0; i < len(ann.Hashes); i += maxAnnouncedHashes {
			j := min(i+maxAnnouncedHashes, len(ann.Hashes))
			var packet any = &pooledHashes68{Types: ann.Types[i:j], Sizes: ann.Sizes[i:j], Hashes: ann.Hashes[i:j]}
			if p.version < ETH68 {
				packet = ann.Hashes[i:j]
			}
			if err := p2p.Send(p.rw, NewPooledTransactionHashesMsg, packet); err != nil {
				return err
			}
		}
		return nil
	}) != nil {
		return
	}
	p.MarkTxs(ann.Hashes...)
}

// newRequestID returns a random request ID, so a stale answer to an old
// request of ours cannot match a new one.
func newRequestID() uint64 {
	var b [8]byte
	crand.Read(b[:])
	return binary.BigEndian.Uint64(b[:])
}

// roundTrip sends a request and waits for the response with the same ID
// (or for the timeout, ctx, or the peer leaving). A timeout costs the peer
// reputation.
func (p *Peer) roundTrip(ctx context.Context, code, respCode uint64, packet func(id uint64) any) (Message, error) {
	id := newRequestID()
	req := &request{code: respCode, resp: make(chan Message, 1)}
	p.reqMu.Lock()
	p.pending[id] = req
	p.reqMu.Unlock()
	defer func() {
		p.reqMu.Lock()
		delete(p.pending, id)
		p.reqMu.Unlock()
	}()
	if err := p2p.Send(p.rw, code, packet(id)); err != nil {
		return nil, err
	}
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	select {
	case m := <-req.resp:
		p.reward()
		return m, nil
	case <-timer.C:
		p.Penalize(PenaltyTimeout, fmt.Sprintf("timeout of request 0x%02x", code))
		return nil, ErrTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.term:
		return nil, ErrPeerGone
	}
}

// deliver hands a response to the request waiting for it.
func (p *Peer) deliver(code uint64, id uint64, m Message) {
	p.reqMu.Lock()
	req := p.pending[id]
	if req != nil && req.code == code {
		delete(p.pending, id)
	} else {
		req = nil
	}
	p.reqMu.Unlock()
	if req == nil {
		p.Penalize(PenaltyUnsolicited, fmt.Sprintf("unsolicited response 0x%02x", code))
		return
	}
	req.resp <- m
}

// RequestHeadersByHash asks for amount headers starting at the block hash.
func (p *Peer) RequestHeadersByHash(ctx context.Context, hash common.Hash, amount, skip int, reverse bool) ([]*types.Header, error) {
	return p.requestHeaders(ctx, HeadersRequest{Origin: HashOrNumber{Hash: hash}, Amount: uint64(amount), Skip: uint64(skip), Reverse: reverse})
}

// RequestHeadersByNumber asks for amount headers starting at block number.
func (p *Peer) RequestHeadersByNumber(ctx context.Context, number uint64, amount, skip int, reverse bool) ([]*types.Header, error) {
	return p.requestHeaders(ctx, HeadersRequest{Origin: HashOrNumber{Number: number}, Amount: uint64(amount), Skip: uint64(skip), Reverse: reverse})
}

func (p *Peer) requestHeaders(ctx context.Context, req HeadersRequest) ([]*types.Header, error) {
	m, err := p.roundTrip(ctx, GetBlockHeadersMsg, BlockHeadersMsg, func(id uint64) any {
		return &getBlockHeadersPacket{RequestID: id, HeadersRequest: req}
	})
	if err != nil {
		return nil, err
	}
	headers := m.(*Headers).Headers
	if uint64(len(headers)) > req.Amount {
		p.Penalize(PenaltyUseless, "more headers than requested")
		return nil, fmt.Errorf("peer sent %d headers for %d", len(headers), req.Amount)
	}
	return headers, nil
}

// RequestBodies asks for the bodies of the blocks with the given hashes.
// The answer holds at most one body per hash, in request order; it may
// stop early.
func (p *Peer) RequestBodies(ctx context.Context, hashes []common.Hash) ([]*BlockBody, error) {
	m, err := p.roundTrip(ctx, GetBlockBodiesMsg, BlockBodiesMsg, func(id uint64) any {
		return &hashesRequestPacket{RequestID: id, Hashes: hashes}
	})
	if err != nil {
		return nil, err
	}
	bodies := m.(*Bodies).Bodies
	if len(bodies) > len(hashes) {
		p.Penalize(PenaltyUseless, "more bodies than requested")
		return nil, fmt.Errorf("peer sent %d bodies for %d", len(bodies), len(hashes))
	}
	return bodies, nil
}

// RequestReceipts asks for the receipts of the blocks with the given hashes.
func (p *Peer) RequestReceipts(ctx context.Context, hashes []common.Hash) ([][]*types.Receipt, error) {
	m, err := p.roundTrip(ctx, GetReceiptsMsg, ReceiptsMsg, func(id uint64) any {
		return &hashesRequestPacket{RequestID: id, Hashes: hashes}
	})
	if err != nil {
		return nil, err
	}
	receipts := m.(*Receipts).Receipts
	if len(receipts) > len(hashes) {
		p.Penalize(PenaltyUseless, "more receipts than requested")
		return nil, fmt.Errorf("peer sent receipts of %d blocks for %d", len(receipts), len(hashes))
	}
	return receipts, nil
}

// RequestPooledTransactions asks for pooled transactions by hash.
func (p *Peer) RequestPooledTransactions(ctx context.Context, hashes []common.Hash) ([]*types.Transaction, error) {
	m, err := p.roundTrip(ctx, GetPooledTransactionsMsg, PooledTransactionsMsg, func(id uint64) any {
		return &hashesRequestPacket{RequestID: id, Hashes: hashes}
	})
	if err != nil {
		return nil, err
	}
	txs := m.(*PooledTxs).Transactions
	if len(txs) > len(hashes) {
		p.Penalize(PenaltyUseless, "more transactions than requested")
		return nil, fmt.Errorf("peer sent %d transactions for %d", len(txs), len(hashes))
	}
	return txs, nil
}

// sendRaw writes an already encoded list as the payload of code.
func (p *Peer) sendRaw(code uint64, id uint64, items []rlp.RawValue) error {
	return p2p.Send(p.rw, code, &struct {
		RequestID uint64
		Items     []rlp.RawValue
	}{id, items})
}
