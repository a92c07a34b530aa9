package backend

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// Network is the node's peer-to-peer service as the services see it.
// Backend.Network is nil when --p2p-enabled=false; the services then
// answer ErrP2PDisabled where Besu answers P2P_DISABLED, and the node is
// has no peers to synchronise from.
type Network interface {
	// Running reports whether the network is up (admin_nodeInfo answers
	// P2P_NETWORK_NOT_RUNNING otherwise).
	Running() bool
	// Listening reports whether the node accepts peer connections.
	Listening() bool
	// PeerCount is the number of connected peers.
	PeerCount() int
	// Self is the local node.
	Self() *enode.Node
	// NodeInfo describes the local node.
	NodeInfo() NodeInfo
	// Peers describes the connected peers.
	Peers() []PeerInfo
	// AddPeer makes n a static node (kept connected, redialed every 60
	// seconds after a drop); false if it already was one.
	AddPeer(n *enode.Node) bool
	// RemovePeer stops keeping n connected and disconnects it; false if it
	// was not a static node.
	RemovePeer(n *enode.Node) bool
	// Service is where the node listens for peers (net_services "p2p").
	Service() Service
	// Enode is the node's enode URL; ErrP2PNotRunning while the network
	// is down.
	Enode() (string, error)
}

// NodeInfo is admin_nodeInfo's result (the API documents' node object).
type NodeInfo struct {
	Enode      string        `json:"enode"`
	ID         string        `json:"id"` // 128 hex digits, no 0x (Besu)
	IP         string        `json:"ip"`
	ListenAddr string        `json:"listenAddr"`
	Name       string        `json:"name"`
	Ports      NodePorts     `json:"ports"`
	Protocols  NodeProtocols `json:"protocols"`
}

// NodePorts are the node's ports, as numbers.
type NodePorts struct {
	Discovery int `json:"discovery"`
	Listener  int `json:"listener"`
}

// NodeProtocols holds the node's sub-protocol descriptions.
type NodeProtocols struct {
	Eth EthNodeInfo `json:"eth"`
}

// EthNodeInfo is the eth entry of admin_nodeInfo. Difficulty and network
// are JSON numbers, as Besu writes them.
type EthNodeInfo struct {
	Config     map[string]any `json:"config"`
	Difficulty *big.Int       `json:"difficulty"`
	Genesis    common.Hash    `json:"genesis"`
	Head       common.Hash    `json:"head"`
	Network    uint64         `json:"network"`
}

// PeerInfo is an element of admin_peers (the API documents' remote node
// object, in Besu's field order).
type PeerInfo struct {
	Version   hexutil.Uint64          `json:"version"`
	Name      string                  `json:"name"`
	Caps      []string                `json:"caps"`
	Network   PeerNetwork             `json:"network"`
	Port      hexutil.Uint64          `json:"port"`
	ID        string                  `json:"id"` // 0x + 128 hex digits (Besu)
	Protocols map[string]PeerProtocol `json:"protocols"`
	Enode     string                  `json:"enode"`
}

// PeerNetwork holds the two ends of a peer connection.
type PeerNetwork struct {
	LocalAddress  string `json:"localAddress"`
	RemoteAddress string `json:"remoteAddress"`
}

// PeerProtocol is what is known of a peer's chain.
type PeerProtocol struct {
	Difficulty *hexutil.Big `json:"difficulty"`
	Head       common.Hash  `json:"head"`
	Version    uint         `json:"version"`
}

// Enode answers the node's enode URL: ErrP2PDisabled without peer-to-peer
// networking, ErrP2PNotRunning while it is down.
func (b *Backend) Enode() (string, error) {
	if b.Network == nil {
		return "", ErrP2PDisabled
	}
	return b.Network.Enode()
}

// Services lists the enabled network services with where they listen: the
// node's own servers, and "p2p" while the network runs.
func (b *Backend) Services() map[string]Service {
	out := map[string]Service{}
	if b.Listeners != nil {
		out = b.Listeners.Services()
	}
	if b.Network != nil && b.Network.Running() {
		out["p2p"] = b.Network.Service()
	}
	return out
}

// SyncProgress is the progress of a running synchronisation, nil when the
// node is not synchronising (always, without a Sync).
func (b *Backend) SyncProgress() *SyncStatus {
	if b.Sync == nil {
		return nil
	}
	return b.Sync.SyncProgress()
}

// Hashrate is the engine's hash rate, 0 without proof of work.
func (b *Backend) Hashrate() uint64 {
	if b.PoW == nil {
		return 0
	}
	return b.PoW.Hashrate()
}

// SubmitHashrate records a remote miner's rate; false without proof of
// work.
func (b *Backend) SubmitHashrate(id common.Hash, rate uint64) bool {
	if b.PoW == nil {
		return false
	}
	b.PoW.SubmitHashrate(id, rate)
	return true
}

// AddPeer makes n a static peer: true if added, false if it already was
// one. The local node and, with the nodes allowlist on, a node it does not
// permit are refused, whichever front end asks.
func (b *Backend) AddPeer(n *enode.Node) (bool, error) {
	if b.Network == nil {
		return false, ErrP2PDisabled
	}
	if n.ID() == b.Network.Self().ID() {
		return false, ErrLocalPeer
	}
	if !b.Permissions.NodePermitted(n.ID(), n.IP(), n.TCP()) {
		return false, ErrPeerNotPermitted
	}
	return b.Network.AddPeer(n), nil
}

// RemovePeer drops the static peer n: true if removed, false if it was not
// one.
func (b *Backend) RemovePeer(n *enode.Node) (bool, error) {
	if b.Network == nil {
		return false, ErrP2PDisabled
	}
	return b.Network.RemovePeer(n), nil
}

// NodeInfo describes the local node: ErrP2PDisabled without peer-to-peer
// networking, ErrP2PNotRunning while it is down.
func (b *Backend) NodeInfo() (*NodeInfo, error) {
	switch {
	case b.Network == nil:
		return nil, ErrP2PDisabled
	case !b.Network.Running():
		return nil, ErrP2PNotRunning
	}
	info := b.Network.NodeInfo()
	return &info, nil
}

// Peers lists the connected peers (empty, not nil, when there are none).
func (b *Backend) Peers() ([]PeerInfo, error) {
	if b.Network == nil {
		return nil, ErrP2PDisabled
	}
	peers := b.Network.Peers()
	if peers == nil {
		peers = []PeerInfo{}
	}
	return peers, nil
}
