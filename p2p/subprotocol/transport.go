package subprotocol

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// MessageHandler handles one message of an engine's sub-protocol from peer
// from. It must read msg.Payload before returning; an error disconnects the
// peer, and one wrapping ErrMisbehaved bans it too.
type MessageHandler func(from enode.ID, msg p2p.Msg) error

// Transport runs one devp2p sub-protocol for an engine: it keeps the peers
// the protocol runs with, hands every message they send to the engine's
// handler, and sends the engine's messages to them. It is the network
// adapter a BFT core sits behind (STYLE.md §1): the core returns
// "broadcast this", the engine calls Broadcast; the engine's
// ProtocolProvider returns Protocol(), which the node runs beside eth.
type Transport struct {
	name    string
	version uint
	length  uint64
	handle  MessageHandler
	bans    *BanList

	// onPeer, when set, is told of each peer the protocol starts and
	// stops running with (WithPeerHook).
	onPeer func(id enode.ID, addr common.Address, up bool)

	mu    sync.RWMutex
	peers map[enode.ID]peer
}

// peer is one peer the protocol runs with: its writer and the address of
// its node key (a BFT validator's address, when the peer is one).
type peer struct {
	w    p2p.MsgWriter
	addr common.Address
}

// ErrUnknownPeer is returned by Transport.Send for a peer the protocol does
// not run with.
var ErrUnknownPeer = errors.New("peer not connected on this protocol")

// NewTransport returns the transport of the sub-protocol name/version with
// message codes 0 to length-1, whose messages go to handle.
func NewTransport(name string, version uint, length uint64, handle MessageHandler) *Transport {
	return &Transport{name: name, version: version, length: length, handle: handle,
		peers: make(map[enode.ID]peer)}
}

// WithPeerHook makes t call hook when the protocol starts running with a
// peer (up) and when it stops (after the last message was handled), with
// the address of the peer's node key (the zero address when unknown).
// Call it before t runs.
func (t *Transport) WithPeerHook(hook func(id enode.ID, addr common.Address, up bool)) *Transport {
	t.onPeer = hook
	return t
}

// nodeAddress is the address of p's node key, the zero address when p has
// none (a test's peer).
func nodeAddress(p *p2p.Peer) common.Address {
	if n := p.Node(); n != nil {
		if k := n.Pubkey(); k != nil {
			return crypto.PubkeyToAddress(*k)
		}
	}
	return common.Address{}
}

// WithBans makes t put the peers its handler reports as misbehaving on
// bans, and drop a banned peer as soon as the protocol starts with it
// (without it, such a peer is only disconnected). Call it before t runs.
func (t *Transport) WithBans(bans *BanList) *Transport {
	t.bans = bans
	return t
}

// Protocol is the devp2p protocol to run on every connection.
func (t *Transport) Protocol() p2p.Protocol {
	return p2p.Protocol{Name: t.name, Version: t.version, Length: t.length, Run: t.run}
}

// run serves one peer until the connection ends or its handler fails.
func (t *Transport) run(p *p2p.Peer, rw p2p.MsgReadWriter) error {
	id := p.ID()
	if t.bans != nil && t.bans.Banned(id) {
		// The connection ends with it: the peer is out of every protocol
		// of the node, not only this one.
		return p2p.DiscUselessPeer
	}
	t.mu.Lock()
	if _, dup := t.peers[id]; dup {
		t.mu.Unlock()
		return p2p.DiscAlreadyConnected
	}
	addr := nodeAddress(p)
	t.peers[id] = peer{w: rw, addr: addr}
	t.mu.Unlock()
	if t.onPeer != nil {
		t.onPeer(id, addr, true)
	}
	defer func() {
		t.mu.Lock()
		delete(t.peers, id)
		t.mu.Unlock()
		if t.onPeer != nil {
			t.onPeer(id, addr, false)
		}
	}()
	for {
		msg, err := rw.ReadMsg()
		if err != nil {
			return err
		}
		if msg.Code >= t.length {
			msg.Discard()
			return fmt.Errorf("%s/%d: message code %d out of range", t.name, t.version, msg.Code)
		}
		err = t.handle(id, msg)
		msg.Discard() // whatever the handler left unread
		if err != nil {
			if t.bans != nil && errors.Is(err, ErrMisbehaved) {
				t.bans.Ban(id)
			}
			return err
		}
	}
}

// Peers returns the peers the protocol runs with.
func (t *Transport) Peers() []enode.ID {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]enode.ID, 0, len(t.peers))
	for id := range t.peers {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b enode.ID) int { return slices.Compare(a[:], b[:]) })
	return out
}

// PeerAddresses returns the peers the protocol runs with and the address
// of each one's node key (the zero address when unknown).
func (t *Transport) PeerAddresses() map[enode.ID]common.Address {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make(map[enode.ID]common.Address, len(t.peers))
	for id, p := range t.peers {
		out[id] = p.addr
	}
	return out
}

// PeerAddress returns the address of peer id, if it is connected.
func (t *Transport) PeerAddress(id enode.ID) (common.Address, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	p, ok := t.peers[id]
	if !ok {
		return common.Address{}, false
	}
	return p.addr, true
}

// Send RLP-encodes data as message code to one peer.
func (t *Transport) Send(to enode.ID, code uint64, data any) error {
	t.mu.RLock()
	p, ok := t.peers[to]
	t.mu.RUnlock()
	if !ok {
		return ErrUnknownPeer
	}
	return p2p.Send(p.w, code, data)
}

// Broadcast RLP-encodes data as message code to every peer and returns how
// many it reached. Writes to one peer wait for its connection, so the
// caller should not hold locks a message handler needs.
func (t *Transport) Broadcast(code uint64, data any) int {
	t.mu.RLock()
	writers := make([]p2p.MsgWriter, 0, len(t.peers))
	for _, p := range t.peers {
		writers = append(writers, p.w)
	}
	t.mu.RUnlock()
	sent := 0
	for _, w := range writers {
		if p2p.Send(w, code, data) == nil {
			sent++
		}
	}
	return sent
}
