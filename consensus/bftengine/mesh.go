package bftengine

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// Basalt's own devp2p sub-protocol "bftmesh/1", run beside the consensus
// protocols: each node tells its peers the addresses of the nodes it runs
// a consensus protocol with (one message, code 0: an RLP list of
// addresses, sent when the protocol starts and again when that set
// changes: a lost connection at once, new ones at most every meshDebounce). A validator broadcasts its own
// messages to every peer, so a peer connected to a message's author has it
// from the author directly and is not relayed a copy: in a full mesh of N
// validators a message then crosses N-1 links instead of (N-1)², which is
// what keeps a validator's cost per block gentle as N grows. Peers that do
// not speak it (Besu, GoQuorum) advertise nothing and are relayed to as
// before.
const (
	meshProtocolName    = "bftmesh"
	meshProtocolVersion = 1
	meshProtocolLength  = 1
	meshMsgPeers        = 0
	// maxMeshPeers bounds an advertisement; a longer one disconnects.
	maxMeshPeers = 4096
	// meshDebounce is how long a new connection waits before it is
	// advertised, so that a network coming up (a hundred connections a
	// node) sends a few advertisements, not hundreds. Until then the peers
	// relay to the node as before: a late advertisement of a connection
	// costs only copies. A lost connection is advertised at once: until
	// the peers know, they would not relay the messages it no longer
	// brings.
	meshDebounce = time.Second
)

// mesh is the local side of bftmesh: which consensus peers this node has
// (advertised), and which nodes each peer advertised.
type mesh struct {
	transport *subprotocol.Transport
	debounce  time.Duration

	mu    sync.Mutex
	local map[enode.ID]meshPeer                    // consensus peers (any protocol)
	of    map[enode.ID]map[common.Address]struct{} // each mesh peer's advertisement
	timer *time.Timer                              // the scheduled advertisement
	due   time.Time                                // when it fires (zero: none pending)
}

// meshPeer is a consensus peer: its address and on how many consensus
// protocols it runs (a migrating node runs two).
type meshPeer struct {
	addr common.Address
	runs int
}

func newMesh() *mesh {
	m := &mesh{debounce: meshDebounce, local: map[enode.ID]meshPeer{}, of: map[enode.ID]map[common.Address]struct{}{}}
	m.transport = subprotocol.NewTransport(meshProtocolName, meshProtocolVersion, meshProtocolLength, m.handle).
		WithPeerHook(m.meshPeer)
	return m
}

// consensusPeer is the consensus transports' peer hook: it keeps the local
// set and schedules its advertisement.
func (m *mesh) consensusPeer(id enode.ID, addr common.Address, up bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.local[id]
	if up {
		p.addr, p.runs = addr, p.runs+1
		m.local[id] = p
	} else if p.runs--; p.runs <= 0 {
		delete(m.local, id)
	} else {
		m.local[id] = p
	}
	delay := m.debounce
	if !up {
		delay = 0
	}
	m.schedule(delay)
}

// schedule has the local set advertised within delay (m.mu held).
func (m *mesh) schedule(delay time.Duration) {
	due := time.Now().Add(delay)
	switch {
	case m.timer == nil:
		m.timer = time.AfterFunc(delay, m.advertise)
	case m.due.IsZero() || due.Before(m.due):
		m.timer.Reset(delay)
	default:
		return // one is due sooner
	}
	m.due = due
}

// advertise sends the local set to every mesh peer.
func (m *mesh) advertise() {
	m.mu.Lock()
	m.due = time.Time{}
	set := m.localSet()
	m.mu.Unlock()
	m.transport.Broadcast(meshMsgPeers, set)
}

// localSet lists the addresses of the consensus peers (m.mu held).
func (m *mesh) localSet() []common.Address {
	out := make([]common.Address, 0, len(m.local))
	for _, p := range m.local {
		if p.addr != (common.Address{}) {
			out = append(out, p.addr)
		}
	}
	slices.SortFunc(out, func(a, b common.Address) int { return a.Cmp(b) })
	return out
}

// meshPeer is the mesh transport's peer hook: a new mesh peer is told the
// local set at once; a gone one's advertisement is forgotten.
func (m *mesh) meshPeer(id enode.ID, _ common.Address, up bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !up {
		delete(m.of, id)
		return
	}
	set := m.localSet()
	// Not from the protocol's own goroutine, which has yet to read: the
	// peer's advertisement may be on its way at the same time.
	go m.transport.Send(id, meshMsgPeers, set) //nolint:errcheck // a peer gone meanwhile is no error
}

// handle stores a peer's advertisement.
func (m *mesh) handle(from enode.ID, msg p2p.Msg) error {
	if msg.Code != meshMsgPeers {
		return msg.Discard()
	}
	if msg.Size > maxMeshPeers*(common.AddressLength+1)+8 {
		return fmt.Errorf("%s advertisement of %d bytes", meshProtocolName, msg.Size)
	}
	data, err := io.ReadAll(msg.Payload)
	if err != nil {
		return err
	}
	addrs, err := decodeMeshPeers(data)
	if err != nil {
		return fmt.Errorf("%s advertisement: %w", meshProtocolName, err)
	}
	set := make(map[common.Address]struct{}, len(addrs))
	for _, a := range addrs {
		set[a] = struct{}{}
	}
	m.mu.Lock()
	m.of[from] = set
	m.mu.Unlock()
	return nil
}

// connected reports whether peer id advertised a connection to author.
// connectedTo returns the peers that advertised a connection to author
// (nil when none did).
func (m *mesh) connectedTo(author common.Address) map[enode.ID]struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out map[enode.ID]struct{}
	for id, addrs := range m.of {
		if _, ok := addrs[author]; ok {
			if out == nil {
				out = make(map[enode.ID]struct{}, len(m.of))
			}
			out[id] = struct{}{}
		}
	}
	return out
}

func (m *mesh) connected(id enode.ID, author common.Address) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.of[id][author]
	return ok
}

// decodeMeshPeers decodes an advertisement.
func decodeMeshPeers(data []byte) ([]common.Address, error) {
	var addrs []common.Address
	if err := rlp.DecodeBytes(data, &addrs); err != nil {
		return nil, err
	}
	if len(addrs) > maxMeshPeers {
		return nil, fmt.Errorf("%d peers", len(addrs))
	}
	return addrs, nil
}
