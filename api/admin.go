package api

import (
	"errors"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/rpctypes"
)

// Admin is the ADMIN method group (peer management; Besu's other ADMIN
// methods live elsewhere).
type Admin struct{ b *backend.Backend }

// adminGroup is the ADMIN group: the peer methods.
func adminGroup(b *backend.Backend) rpctypes.Group {
	a := &Admin{b}
	enodeParam := []*rpctypes.Error{rpctypes.ErrInvalidParams}
	return rpctypes.Group{Name: rpctypes.GroupAdmin, Errors: jsonrpcError, Methods: []rpctypes.Method{
		{Name: "admin_addPeer", Fn: a.AddPeer, ParamErrors: enodeParam},
		{Name: "admin_removePeer", Fn: a.RemovePeer, ParamErrors: enodeParam},
		{Name: "admin_nodeInfo", Fn: a.NodeInfo},
		{Name: "admin_peers", Fn: a.Peers},
	}}
}

// EnodeURL is an enode URL parameter. Its faults are Besu's errors
// (AdminModifyPeer): a bad node ID is ENODE_ID_INVALID, a host name
// DNS_NOT_ENABLED, anything else PARSE_ERROR; a value that is not a string
// is the method's declared parameter error.
type EnodeURL struct{ *enode.Node }

// UnmarshalJSON implements json.Unmarshaler.
func (u *EnodeURL) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return errBadParam
	}
	n, err := enodeurl.Parse(s)
	switch {
	case err == nil:
		u.Node = n
		return nil
	case errors.Is(err, enodeurl.ErrInvalidNodeID):
		return rpctypes.ErrEnodeIDInvalid
	case errors.Is(err, enodeurl.ErrHostNotIP):
		return rpctypes.ErrDNSNotEnabled
	default:
		return rpctypes.ErrParse
	}
}

// AddPeer is admin_addPeer: the node becomes a static peer; true if added,
// false if it already was one.
func (a *Admin) AddPeer(url EnodeURL) (bool, error) { return a.b.AddPeer(url.Node) }

// RemovePeer is admin_removePeer: the static peer is dropped; true if
// removed, false if it was not one.
func (a *Admin) RemovePeer(url EnodeURL) (bool, error) { return a.b.RemovePeer(url.Node) }

// NodeInfo is admin_nodeInfo: the local node.
func (a *Admin) NodeInfo() (*backend.NodeInfo, error) { return a.b.NodeInfo() }

// Peers is admin_peers: the connected peers.
func (a *Admin) Peers() ([]backend.PeerInfo, error) { return a.b.Peers() }
