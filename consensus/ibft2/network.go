package ibft2

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

// maxMessageSize bounds an IBF/1 message (a proposal carries a block).
const maxMessageSize = 16 << 20

// network is the IBF/1 side of the engine: the devp2p transport, the
// queue of decoded messages the producer consumes (messagequeuelimit), the
// received-message cache that drops duplicates before their signatures
// are checked (duplicatemessagelimit) and the gossiped-message history
// that makes each message go out once (gossipedhistorylimit).
type network struct {
	transport *consensus.Transport
	inbox     chan driver.Inbound
	received  *lru.Cache[common.Hash, struct{}]
	gossiped  *lru.Cache[common.Hash, struct{}]
}

func newNetwork(cfg *config.IBFT2Config) *network {
	n := &network{
		inbox:    make(chan driver.Inbound, max(1, int(cfg.MessageQueueLimit))),
		received: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.DuplicateMessageLimit))),
		gossiped: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.GossipedHistoryLimit))),
	}
	n.transport = consensus.NewTransport(ProtocolName, ProtocolVersion, ProtocolLength, n.handle)
	return n
}

// handle decodes one message from a peer and queues it for the producer.
// A malformed message disconnects the peer; a duplicate, or one arriving
// while the queue is full, is dropped.
func (n *network) handle(from enode.ID, msg p2p.Msg) error {
	if msg.Size > maxMessageSize {
		return fmt.Errorf("IBF/1 message of %d bytes", msg.Size)
	}
	data, err := io.ReadAll(msg.Payload)
	if err != nil {
		return err
	}
	hash := crypto.Keccak256Hash([]byte{byte(msg.Code)}, data)
	if n.received.Contains(hash) || n.gossiped.Contains(hash) {
		return nil
	}
	n.received.Add(hash, struct{}{})
	m, err := DecodeMessage(msg.Code, data)
	if err != nil {
		return err
	}
	select {
	case n.inbox <- driver.Inbound{From: from, Msg: m, Hash: hash}:
	default: // the queue is full: Besu drops too (messagequeuelimit)
	}
	return nil
}

// Gossip sends msg to every peer except one, once.
func (n *network) Gossip(m *bft.Message, hash common.Hash, except enode.ID) bool {
	// Only the producer's goroutine gossips, so testing and adding need
	// no lock of their own.
	if n.gossiped.Contains(hash) {
		return false
	}
	n.gossiped.Add(hash, struct{}{})
	for _, p := range n.transport.Peers() {
		if p != except {
			_ = n.transport.Send(p, uint64(m.Kind), rlp.RawValue(m.Wire))
		}
	}
	return true
}
