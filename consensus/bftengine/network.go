package bftengine

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/driver"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// maxMessageSize bounds a consensus message (a proposal carries a block).
const maxMessageSize = 16 << 20

// Bans of peers that sent a forged consensus message or one by a
// non-validator: long enough that reconnecting does not pay, short enough
// that a node whose key was briefly misused (or a validator removed and
// re-added) is not out for good. The list is bounded; a flood of fresh
// identities evicts the bans that end first.
const (
	banDuration = 10 * time.Minute
	maxBans     = 1024
)

// knownPerPeer bounds the hashes of consensus messages remembered per peer
// as ones it has (it sent us a copy, or was sent one): enough for a round
// of a hundred validators; a message is only relayed in the milliseconds
// after it arrives.
const knownPerPeer = 512

// peerQueueShare is the part of the message queue (messagequeuelimit) one
// peer's messages may hold at once, so that no peer can fill it and crowd
// out the others: a quarter, and at least minPeerQueue.
const (
	peerQueueShare = 4
	minPeerQueue   = 64
)

// network is one protocol's sub-protocol side of the engine: the devp2p
// transport, the received-message cache that drops duplicates before their
// signatures are checked (duplicatemessagelimit) and the gossiped-message
// history that makes each message go out once (gossipedhistorylimit).
// Admitted messages (see Admit) go to the engine's one queue
// (messagequeuelimit), each peer holding at most its share of it.
type network struct {
	format    Format
	transport *subprotocol.Transport
	inbox     chan<- driver.Inbound
	gate      *atomic.Pointer[Gate] // the engine's
	received  *lru.Cache[common.Hash, struct{}]
	gossiped  *lru.Cache[common.Hash, struct{}]

	// self is the local validator's address; mesh, when set, tells which
	// peers have a message from its author directly (see mesh.go).
	self common.Address
	mesh *mesh
	// holders, when set, learns who sent commits (Engine.PeerHasBlock).
	holders *holders

	perPeer  int // queued messages a peer may have at once
	mu       sync.Mutex
	queued   map[enode.ID]int
	checking map[common.Hash]struct{} // messages being admitted (one copy at a time)
	known    map[enode.ID]*lru.Cache[common.Hash, struct{}]
}

func newNetwork(f Format, cfg *config.IBFT2Config, inbox chan<- driver.Inbound, gate *atomic.Pointer[Gate], bans *subprotocol.BanList) *network {
	n := &network{
		format:   f,
		inbox:    inbox,
		gate:     gate,
		received: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.DuplicateMessageLimit))),
		gossiped: lru.NewCache[common.Hash, struct{}](max(1, int(cfg.GossipedHistoryLimit))),
		perPeer:  max(minPeerQueue, cap(inbox)/peerQueueShare),
		queued:   map[enode.ID]int{},
		checking: map[common.Hash]struct{}{},
		known:    map[enode.ID]*lru.Cache[common.Hash, struct{}]{},
	}
	n.transport = subprotocol.NewTransport(f.Spec().Protocol, f.Spec().Version, f.Spec().Length, n.handle).
		WithBans(bans).WithPeerHook(n.peer)
	return n
}

// peer is the transport's peer hook: a gone peer's known set is dropped,
// and the mesh learns of both.
func (n *network) peer(id enode.ID, addr common.Address, up bool) {
	if !up {
		n.mu.Lock()
		delete(n.known, id)
		n.mu.Unlock()
	}
	if n.mesh != nil {
		n.mesh.consensusPeer(id, addr, up)
	}
}

// markKnown records that peer id has message hash.
func (n *network) markKnown(id enode.ID, hash common.Hash) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := n.known[id]
	if k == nil {
		k = lru.NewCache[common.Hash, struct{}](knownPerPeer)
		n.known[id] = k
	}
	k.Add(hash, struct{}{})
}

// knows reports whether peer id has message hash.
func (n *network) knows(id enode.ID, hash common.Hash) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.known[id] != nil && n.known[id].Contains(hash)
}

// claim marks hash as being admitted, unless it is already: every peer's
// handler runs on its own goroutine, and copies of one message relayed by
// many peers arrive together; only the first is decoded and its signature
// recovered, the others are dropped.
func (n *network) claim(hash common.Hash) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.checking[hash]; ok {
		return false
	}
	n.checking[hash] = struct{}{}
	return true
}

func (n *network) unclaim(hash common.Hash) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.checking, hash)
}

// handle admits one message from a peer (Admit) and queues it for the
// producer. A malformed message disconnects the peer; a forged one, or
// one by a non-validator of the current height, bans it too (the
// transport's ban list). A duplicate, a code the protocol declares but
// does not use, a message Admit drops, or one arriving while the queue or
// the peer's share of it is full, is dropped.
func (n *network) handle(from enode.ID, msg p2p.Msg) error {
	if msg.Size > maxMessageSize {
		return fmt.Errorf("%s message of %d bytes", n.format.Spec().Name, msg.Size)
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
	n.markKnown(from, hash) // whatever becomes of it, the peer need not be sent it
	if n.received.Contains(hash) || n.gossiped.Contains(hash) || !n.claim(hash) {
		return nil
	}
	defer n.unclaim(hash) // after it is marked received, if it is
	if !n.take(from) {
		return nil // not marked received: the same message may come from another peer
	}
	m, err := Admit(n.format, n.gate.Load(), msg.Code, data)
	if err != nil {
		n.release(from)
	}
	switch {
	case errors.Is(err, ErrStaleMessage):
		n.received.Add(hash, struct{}{}) // it stays stale: no copy needs decoding again
		return nil
	case errors.Is(err, ErrUnknownAhead), errors.Is(err, bft.ErrTooFarAhead):
		// Not marked received: once the node reaches the height, a copy
		// from another peer is admitted.
		return nil
	case err != nil:
		return fmt.Errorf("%s message: %w", n.format.Spec().Name, err)
	}
	if m.Kind == bft.KindCommit && n.holders != nil {
		n.holders.add(m.Digest, m.Author)
	}
	select {
	case n.inbox <- driver.Inbound{From: from, Msg: m, Hash: hash, Done: func() { n.release(from) }}:
		n.received.Add(hash, struct{}{})
	default: // the queue is full: Besu drops too (messagequeuelimit)
		n.release(from)
	}
	return nil
}

// take counts one more queued message of peer id, unless it holds its
// share of the queue already.
func (n *network) take(id enode.ID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.queued[id] >= n.perPeer {
		return false
	}
	n.queued[id]++
	return true
}

// release counts one queued message of peer id less.
func (n *network) release(id enode.ID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.queued[id]--; n.queued[id] <= 0 {
		delete(n.queued, id)
	}
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

// gossip sends msg once to every peer that does not have it: not to
// except (it came from there), nor to a peer that sent a copy or was sent
// one, nor to its author, nor (unless this node is the author, whose own
// broadcast this is) to a peer that advertised a connection to its author,
// which has it from the author directly.
func (n *network) gossip(m *bft.Message, hash common.Hash, except enode.ID) bool {
	// Only the producer's goroutine gossips, so testing and adding need
	// no lock of their own.
	if n.gossiped.Contains(hash) {
		return false
	}
	n.gossiped.Add(hash, struct{}{})
	code := n.format.Code(m.Kind)
	var direct map[enode.ID]struct{} // peers that have a relayed message from its author
	if m.Author != n.self && n.mesh != nil {
		direct = n.mesh.connectedTo(m.Author)
	}
	// Every received message passes here to be relayed: the peers are
	// chosen under one lock, not two per peer (at N = 30 that was 3,500
	// locked map lookups a block, a tenth of an idle validator's CPU).
	peers := n.transport.PeerAddresses()
	to := make([]enode.ID, 0, len(peers))
	n.mu.Lock()
	for id, addr := range peers {
		if id == except || addr == m.Author {
			continue
		}
		if _, ok := direct[id]; ok {
			continue
		}
		k := n.known[id]
		if k == nil {
			k = lru.NewCache[common.Hash, struct{}](knownPerPeer)
			n.known[id] = k
		} else if k.Contains(hash) {
			continue
		}
		k.Add(hash, struct{}{})
		to = append(to, id)
	}
	n.mu.Unlock()
	for _, id := range to {
		_ = n.transport.Send(id, code, rlp.RawValue(m.Wire))
	}
	return true
}

// router is the driver's Network: a message goes out on the sub-protocol
// of the protocol that runs its height.
type router struct{ e *Engine }

// NewHeight sets the gate every sub-protocol admits messages through.
func (r router) NewHeight(h bft.Height) {
	vals := slices.Clone(h.Validators)
	bft.SortValidators(vals)
	r.e.gate.Store(&Gate{Sequence: h.Sequence, Validators: vals,
		MaxDistance: r.e.cfg(h.Sequence).FutureMessagesMaxDistance})
}

func (r router) Gossip(m *bft.Message, hash common.Hash, except enode.ID) bool {
	name := r.e.format(m.View.Sequence).Spec().Protocol
	for _, n := range r.e.nets {
		if n.format.Spec().Protocol == name {
			return n.gossip(m, hash, except)
		}
	}
	return false
}
