package api

import (
	"errors"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/p2p/enodeurl"
	"github.com/basaltchain/basalt/rpc"
)

// Admin is the ADMIN method group (peer management; Besu's other ADMIN
// methods live elsewhere).
type Admin struct{ b *Backend }

// adminGroup is the ADMIN group: the peer methods.
func adminGroup(b *Backend) rpc.Group {
	a := &Admin{b}
	enodeParam := []*rpc.Error{rpc.ErrInvalidParams}
	return rpc.Group{Name: rpc.GroupAdmin, Methods: []rpc.Method{
		{Name: "admin_addPeer", Fn: a.AddPeer, ParamErrors: enodeParam},
		{Name: "admin_removePeer", Fn: a.RemovePeer, ParamErrors: enodeParam},
		{Name: "admin_nodeInfo", Fn: a.NodeInfo},
		{Name: "admin_peers", Fn: a.Peers},
	}}
}

// parseEnode reads an enode URL parameter and maps its faults to Besu's
// errors (AdminModifyPeer): a bad node ID is ENODE_ID_INVALID, a host name
// DNS_NOT_ENABLED, anything else PARSE_ERROR.
func parseEnode(s string) (*enode.Node, error) {
	n, err := enodeurl.Parse(s)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, enodeurl.ErrInvalidNodeID):
		return nil, rpc.ErrEnodeIDInvalid
	case errors.Is(err, enodeurl.ErrHostNotIP):
		return nil, rpc.ErrDNSNotEnabled
	default:
		return nil, rpc.ErrParse
	}
}

// AddPeer makes the node a static peer: true if added, false if it already
// was one.
func (a *Admin) AddPeer(url string) (bool, error) {
	n, err := parseEnode(url)
	if err != nil {
		return false, err
	}
	net := a.b.Network
	if net == nil {
		return false, rpc.ErrP2PDisabled
	}
	if n.ID() == net.Self().ID() {
		return false, rpc.ErrCantConnectToLocalPeer
	}
	return net.AddPeer(n), nil
}

// RemovePeer drops a static peer: true if removed, false if it was not
// one.
func (a *Admin) RemovePeer(url string) (bool, error) {
	n, err := parseEnode(url)
	if err != nil {
		return false, err
	}
	if a.b.Network == nil {
		return false, rpc.ErrP2PDisabled
	}
	return a.b.Network.RemovePeer(n), nil
}

// NodeInfo describes the local node.
func (a *Admin) NodeInfo() (*NodeInfo, error) {
	net := a.b.Network
	switch {
	case net == nil:
		return nil, rpc.ErrP2PDisabled
	case !net.Running():
		return nil, rpc.ErrP2PNetworkNotRunning
	}
	info := net.NodeInfo()
	return &info, nil
}

// Peers describes the connected peers.
func (a *Admin) Peers() ([]PeerInfo, error) {
	if a.b.Network == nil {
		return nil, rpc.ErrP2PDisabled
	}
	peers := a.b.Network.Peers()
	if peers == nil {
		peers = []PeerInfo{}
	}
	return peers, nil
}
