package api

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// Network is the node's peer-to-peer service as the ADMIN and NET methods
// see it. Backend.Network is nil when --p2p-enabled=false; the methods then
// answer Besu's P2P_DISABLED where Besu does.
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
