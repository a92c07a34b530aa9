package bftengine

import (
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/driver"
)

// maxMessageSize bounds a consensus message (a proposal carries a block).
const maxMessageSize = 16 << 20

// network is one protocol's sub-protocol side of the engine: the devp2p
// transport, the received-message cache that drops duplicates before their
// signatures are checked (duplicatemessagelimit) and the gossiped-message
// history that makes each message go out once (gossipedhistorylimit).
// Decoded messages go to the engine's one queue (messagequeuelimit).
type network struct {
	format    Format
	transport *consensus.Transport
	inbox     chan<- driver.Inbound
	received  *lru.Cache[common.Hash, struct{}]
	gossiped  *lru.Cache[common.Hash, struct{}]
}

func newNetwork(f Format, cfg *config.IBFT2Config, inbox chan<- driver.Inbound) *network {
	n := &network{
		format:   f,
		inbox:    inbox,
		received: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.DuplicateMessageLimit))),
		gossiped: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.GossipedHistoryLimit))),
	}
	n.transport = consensus.NewTransport(f.ProtocolName(), f.ProtocolVersion(), f.ProtocolLength(), n.handle)
	return n
}

// handle decodes one message from a peer and queues it for the producer.
// A malformed message disconnects the peer; a duplicate, a code the
// protocol declares but does not use, or a message arriving while the
// queue is full, is dropped.
func (n *network) handle(from enode.ID, msg p2p.Msg) error {
	if msg.Size > maxMessageSize {
		return fmt.Errorf("%s message of %d bytes", n.format.Name(), msg.Size)
	}
	kind, ok := n.kind(msg.Code)
	if !ok {
		return msg.Discard()
	}
	data, err := io.ReadAll(msg.Payload)
	if err != nil {
		return err
	}
	// The hash driver.MessageHash gives the message, so what went out
	// and comes back is known.
	hash := crypto.Keccak256Hash([]byte{byte(kind)}, data)
	if n.received.Contains(hash) || n.gossiped.Contains(hash) {
		return nil
	}
	n.received.Add(hash, struct{}{})
	m, err := n.format.DecodeMessage(msg.Code, data)
	if err != nil {
		return err
	}
	select {
	case n.inbox <- driver.Inbound{From: from, Msg: m, Hash: hash}:
	default: // the queue is full: Besu drops too (messagequeuelimit)
	}
	return nil
}

// kind returns the message kind of code, if it is one of the four
// consensus messages (istanbul/100 declares 22 codes, of which QBFT uses
// the last four).
func (n *network) kind(code uint64) (bft.Kind, bool) {
	for k := bft.KindProposal; k <= bft.KindRoundChange; k++ {
		if n.format.Code(k) == code {
			return k, true
		}
	}
	return 0, false
}

// gossip sends msg to every peer except one, once.
func (n *network) gossip(m *bft.Message, hash common.Hash, except enode.ID) bool {
	// Only the producer's goroutine gossips, so testing and adding need
	// no lock of their own.
	if n.gossiped.Contains(hash) {
		return false
	}
	n.gossiped.Add(hash, struct{}{})
	code := n.format.Code(m.Kind)
	for _, p := range n.transport.Peers() {
		if p != except {
			_ = n.transport.Send(p, code, rlp.RawValue(m.Wire))
		}
	}
	return true
}

// router is the driver's Network: a message goes out on the sub-protocol
// of the protocol that runs its height.
type router struct{ e *Engine }

func (r router) Gossip(m *bft.Message, hash common.Hash, except enode.ID) bool {
	name := r.e.format(m.View.Sequence).ProtocolName()
	for _, n := range r.e.nets {
		if n.format.ProtocolName() == name {
			return n.gossip(m, hash, except)
		}
	}
	return false
}
