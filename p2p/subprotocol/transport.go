package subprotocol

import (
	"errors"
	"fmt"
	"slices"
	"sync"

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

	mu    sync.RWMutex
	peers map[enode.ID]p2p.MsgWriter
}

// ErrUnknownPeer is returned by Transport.Send for a peer the protocol does
// not run with.
var ErrUnknownPeer = errors.New("peer not connected on this protocol")

// NewTransport returns the transport of the sub-protocol name/version with
// message codes 0 to length-1, whose messages go to handle.
func NewTransport(name string, version uint, length uint64, handle MessageHandler) *Transport {
	return &Transport{name: name, version: version, length: length, handle: handle,
		peers: make(map[enode.ID]p2p.MsgWriter)}
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
	t.peers[id] = rw
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.peers, id)
		t.mu.Unlock()
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

// Send RLP-encodes data as message code to one peer.
func (t *Transport) Send(to enode.ID, code uint64, data any) error {
	t.mu.RLock()
	w := t.peers[to]
	t.mu.RUnlock()
	if w == nil {
		return ErrUnknownPeer
	}
	return p2p.Send(w, code, data)
}

// Broadcast RLP-encodes data as message code to every peer and returns how
// many it reached. Writes to one peer wait for its connection, so the
// caller should not hold locks a message handler needs.
func (t *Transport) Broadcast(code uint64, data any) int {
	t.mu.RLock()
	writers := make([]p2p.MsgWriter, 0, len(t.peers))
	for _, w := range t.peers {
		writers = append(writers, w)
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
