package api

import (
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/backend"
)

// Net is the NET method group.
type Net struct{ b *backend.Backend }

// Version is net_version: the network id.
func (n *Net) Version() string { return strconv.FormatUint(n.b.Config.NetworkID, 10) }

// Listening reports whether the node accepts peer connections.
func (n *Net) Listening() bool { return n.b.Network != nil && n.b.Network.Listening() }

// PeerCount is the number of connected peers; with p2p disabled Besu
// answers P2P_DISABLED.
func (n *Net) PeerCount() (hexutil.Uint64, error) {
	if n.b.Network == nil {
		return 0, backend.ErrP2PDisabled
	}
	return hexutil.Uint64(n.b.Network.PeerCount()), nil
}

// Enode answers the node's enode URL, or backend.ErrP2PDisabled while
// peer-to-peer networking is off.
func (n *Net) Enode() (string, error) { return n.b.Enode() }

// Services lists the enabled network services with their host and port,
// e.g. {"jsonrpc": {"host": "127.0.0.1", "port": "8545"}}.
func (n *Net) Services() map[string]backend.Service { return n.b.Services() }
