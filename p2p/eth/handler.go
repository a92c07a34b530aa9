package eth

import (
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rlp"
)

// handshakeTimeout bounds the status exchange.
const handshakeTimeout = 5 * time.Second

// Chain is the read access to the local chain that serving requests needs
// (*chain.Chain implements it). Hashes are the chain's (engine) hashes.
type Chain interface {
	Hash(header *types.Header) common.Hash
	GetHeader(hash common.Hash, number uint64) *types.Header
	GetHeaderByHash(hash common.Hash) *types.Header
	GetHeaderByNumber(number uint64) *types.Header
	GetCanonicalHash(number uint64) common.Hash
	GetBody(hash common.Hash, number uint64) *types.Body
	GetReceipts(hash common.Hash, number uint64) types.Receipts
}

// Backend is the node side of the protocol: the handler serves requests
// from Chain and PooledTx and passes announcements on. Announcement
// handlers run on the peer's read loop and must not block for long.
type Backend interface {
	// Chain is the chain requests are served from.
	Chain() Chain
	// Status is the local status sent in the handshake (ProtocolVersion is
	// filled in by the handler).
	Status() Status
	// CheckForkID validates the fork ID a peer sent (go-ethereum's forkid
	// filter).
	CheckForkID(id forkid.ID) error
	// PooledTx returns a pooled transaction, or nil.
	PooledTx(hash common.Hash) *types.Transaction

	// PeerConnected is called after a successful handshake; an error ends
	// the connection (for example a peer already connected).
	PeerConnected(p *Peer) error
	// PeerDisconnected is called when the connection of a registered peer ends.
	PeerDisconnected(p *Peer)

	// HandleNewBlock receives a propagated block and the total difficulty
	// the peer claims for it.
	HandleNewBlock(p *Peer, block *types.Block, td *big.Int)
	// HandleBlockHashes receives announced block hashes.
	HandleBlockHashes(p *Peer, anns []BlockAnnounce)
	// HandleTransactions receives propagated transactions.
	HandleTransactions(p *Peer, txs []*types.Transaction)
	// HandleTxHashes receives announced pooled transaction hashes.
	HandleTxHashes(p *Peer, ann *PooledHashes)
}

// Run runs the protocol with a newly connected peer: the handshake, then
// the message loop until the connection ends or the peer breaks the
// protocol. The returned error is the reason for the disconnect.
func Run(b Backend, p *Peer) error {
	defer p.close()
	if err := p.handshake(b.Status(), b.CheckForkID); err != nil {
		p.log.Debug("Handshake failed", "err", err)
		return err
	}
	if err := b.PeerConnected(p); err != nil {
		return err
	}
	defer b.PeerDisconnected(p)
	go p.sendLoop()
	for {
		if err := handleMessage(b, p); err != nil {
			p.log.Debug("Peer message loop ended", "err", err)
			return err
		}
	}
}

// handshake exchanges Status messages and checks the peer's: same version,
// network ID and genesis, and a compatible fork ID.
func (p *Peer) handshake(local Status, checkForkID func(forkid.ID) error) error {
	local.ProtocolVersion = uint32(p.version)
	errc := make(chan error, 2)
	var remote *Status
	go func() { errc <- p2p.Send(p.rw, StatusMsg, &local) }()
	go func() {
		st, err := p.readStatus()
		remote = st
		errc <- err
	}()
	timeout := time.NewTimer(handshakeTimeout)
	defer timeout.Stop()
	for range 2 {
		select {
		case err := <-errc:
			if err != nil {
				return err
			}
		case <-timeout.C:
			return p2p.DiscReadTimeout
		}
	}
	switch {
	case remote.ProtocolVersion != uint32(p.version):
		return fmt.Errorf("%w: %d (want %d)", ErrVersionMismatch, remote.ProtocolVersion, p.version)
	case remote.NetworkID != local.NetworkID:
		return fmt.Errorf("%w: %d (want %d)", ErrNetworkIDMismatch, remote.NetworkID, local.NetworkID)
	case remote.Genesis != local.Genesis:
		return fmt.Errorf("%w: %x (want %x)", ErrGenesisMismatch, remote.Genesis, local.Genesis)
	}
	if err := checkForkID(remote.ForkID); err != nil {
		return fmt.Errorf("%w: %v", ErrForkIDRejected, err)
	}
	p.SetHead(remote.Head, remote.TD)
	p.MarkBlock(remote.Head)
	return nil
}

func (p *Peer) readStatus() (*Status, error) {
	msg, err := p.rw.ReadMsg()
	if err != nil {
		return nil, err
	}
	defer msg.Discard()
	if msg.Code != StatusMsg {
		return nil, fmt.Errorf("%w: first message has code 0x%02x", ErrNoStatusMsg, msg.Code)
	}
	m, err := readMessage(p.version, msg)
	if err != nil {
		return nil, err
	}
	return m.(*Status), nil
}

// readMessage checks the size of msg, reads its payload and decodes it.
func readMessage(version uint, msg p2p.Msg) (Message, error) {
	if msg.Size > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrMsgTooLarge, msg.Size)
	}
	payload := make([]byte, msg.Size)
	if _, err := io.ReadFull(msg.Payload, payload); err != nil {
		return nil, err
	}
	return Decode(version, msg.Code, payload)
}

// handleMessage reads and handles one message.
func handleMessage(b Backend, p *Peer) error {
	msg, err := p.rw.ReadMsg()
	if err != nil {
		return err
	}
	defer msg.Discard()
	m, err := readMessage(p.version, msg)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *Status:
		return ErrExtraStatusMsg

	// Requests.
	case *GetHeaders:
		return serveHeaders(b.Chain(), p, m)
	case *GetHashes:
		switch m.Code {
		case GetBlockBodiesMsg:
			return serveBodies(b.Chain(), p, m)
		case GetReceiptsMsg:
			return serveReceipts(b.Chain(), p, m)
		case GetPooledTransactionsMsg:
			return servePooledTxs(b, p, m)
		case GetNodeDataMsg:
			// Basalt keeps no trie-node index to serve eth/66 state sync from.
			return p.sendRaw(NodeDataMsg, m.RequestID, nil)
		}

	// Responses.
	case *Headers:
		p.deliver(BlockHeadersMsg, m.RequestID, m)
	case *Bodies:
		p.deliver(BlockBodiesMsg, m.RequestID, m)
	case *Receipts:
		p.deliver(ReceiptsMsg, m.RequestID, m)
	case *PooledTxs:
		for _, tx := range m.Transactions {
			p.MarkTxs(tx.Hash())
		}
		p.deliver(PooledTransactionsMsg, m.RequestID, m)
	case *NodeData:
		p.deliver(NodeDataMsg, m.RequestID, m)

	// Announcements.
	case *NewBlockPacket:
		b.HandleNewBlock(p, m.Block, m.TD)
	case []BlockAnnounce:
		for _, a := range m {
			p.MarkBlock(a.Hash)
		}
		b.HandleBlockHashes(p, m)
	case []*types.Transaction:
		for _, tx := range m {
			p.MarkTxs(tx.Hash())
		}
		b.HandleTransactions(p, m)
	case *PooledHashes:
		p.MarkTxs(m.Hashes...)
		b.HandleTxHashes(p, m)
	}
	return nil
}

// serveHeaders answers GetBlockHeaders from the canonical chain; an origin
// given by hash may be a side-chain block, whose ancestors are then
// followed for reverse requests.
func serveHeaders(c Chain, p *Peer, req *GetHeaders) error {
	var (
		out    []rlp.RawValue
		size   int
		amount = min(req.Amount, maxHeadersServe)
		step   = req.Skip + 1
	)
	var origin *types.Header
	canonical := false
	if req.Origin.Hash != (common.Hash{}) {
		origin = c.GetHeaderByHash(req.Origin.Hash)
		if origin != nil {
			canonical = c.GetCanonicalHash(origin.Number.Uint64()) == req.Origin.Hash
		}
	} else {
		origin = c.GetHeaderByNumber(req.Origin.Number)
		canonical = true
	}
	for h := origin; h != nil && uint64(len(out)) < amount && size < softResponseLimit; {
		enc, err := rlp.EncodeToBytes(h)
		if err != nil {
			return err
		}
		out = append(out, enc)
		size += len(enc)

		n := h.Number.Uint64()
		switch {
		case req.Skip >= 1<<62: // would overflow
			h = nil
		case req.Reverse && canonical:
			if n < step {
				h = nil
			} else {
				h = c.GetHeaderByNumber(n - step)
			}
		case req.Reverse:
			for i := uint64(0); h != nil && i < step; i++ {
				if h.Number.Sign() == 0 {
					h = nil
					break
				}
				h = c.GetHeader(h.ParentHash, h.Number.Uint64()-1)
			}
		case canonical:
			h = c.GetHeaderByNumber(n + step)
		default:
			h = nil // forward walks are defined on the canonical chain only
		}
	}
	return p.sendRaw(BlockHeadersMsg, req.RequestID, out)
}

func serveBodies(c Chain, p *Peer, req *GetHashes) error {
	return serveByHash(p, BlockBodiesMsg, req, maxBodiesServe, func(hash common.Hash) (any, bool) {
		h := c.GetHeaderByHash(hash)
		if h == nil {
			return nil, false
		}
		body := c.GetBody(hash, h.Number.Uint64())
		if body == nil {
			return nil, false
		}
		return &BlockBody{Transactions: body.Transactions, Uncles: body.Uncles, Withdrawals: body.Withdrawals}, true
	})
}

func serveReceipts(c Chain, p *Peer, req *GetHashes) error {
	return serveByHash(p, ReceiptsMsg, req, maxReceiptsServe, func(hash common.Hash) (any, bool) {
		h := c.GetHeaderByHash(hash)
		if h == nil {
			return nil, false
		}
		receipts := c.GetReceipts(hash, h.Number.Uint64())
		if receipts == nil {
			if h.ReceiptHash != types.EmptyReceiptsHash {
				return nil, false
			}
			receipts = types.Receipts{}
		}
		return receipts, true
	})
}

func servePooledTxs(b Backend, p *Peer, req *GetHashes) error {
	return serveByHash(p, PooledTransactionsMsg, req, maxTxsServe, func(hash common.Hash) (any, bool) {
		tx := b.PooledTx(hash)
		if tx == nil {
			return nil, false
		}
		p.MarkTxs(hash)
		return tx, true
	})
}

// serveByHash answers a request for items by hash with code: the RLP of
// each item lookup finds, in the order asked, up to limit items or the soft
// response size; a hash lookup does not know is left out.
func serveByHash(p *Peer, code uint64, req *GetHashes, limit int, lookup func(common.Hash) (any, bool)) error {
	var (
		out  []rlp.RawValue
		size int
	)
	for _, hash := range req.Hashes {
		if len(out) >= limit || size >= softResponseLimit {
			break
		}
		v, ok := lookup(hash)
		if !ok {
			continue
		}
		enc, err := rlp.EncodeToBytes(v)
		if err != nil {
			return err
		}
		out = append(out, enc)
		size += len(enc)
	}
	return p.sendRaw(code, req.RequestID, out)
}
