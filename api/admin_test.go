package api

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// fakeNetwork is a backend.Network holding a static set.
type fakeNetwork struct {
	self    *enode.Node
	static  map[enode.ID]bool
	running bool
}

func (f *fakeNetwork) Running() bool     { return f.running }
func (f *fakeNetwork) Listening() bool   { return f.running }
func (f *fakeNetwork) PeerCount() int    { return len(f.static) }
func (f *fakeNetwork) Self() *enode.Node { return f.self }
func (f *fakeNetwork) NodeInfo() backend.NodeInfo {
	return backend.NodeInfo{ID: enodeurl.ID(f.self), Protocols: backend.NodeProtocols{Eth: backend.EthNodeInfo{Difficulty: big.NewInt(100), Network: 1337}}}
}
func (f *fakeNetwork) Peers() []backend.PeerInfo { return nil }
func (f *fakeNetwork) Service() backend.Service {
	return backend.Service{Host: "127.0.0.1", Port: "30303"}
}
func (f *fakeNetwork) Enode() (string, error) { return f.self.URLv4(), nil }
func (f *fakeNetwork) AddPeer(n *enode.Node) bool {
	if f.static[n.ID()] {
		return false
	}
	f.static[n.ID()] = true
	return true
}
func (f *fakeNetwork) RemovePeer(n *enode.Node) bool {
	had := f.static[n.ID()]
	delete(f.static, n.ID())
	return had
}

func testNode(t *testing.T) *enode.Node {
	t.Helper()
	key, _ := crypto.GenerateKey()
	return enode.NewV4(&key.PublicKey, net.IPv4(127, 0, 0, 1), 30303, 30303)
}

// peerServer serves the ADMIN and NET groups of b, so that the tests see
// what a client sees: decoded parameters and mapped errors.
func peerServer(t *testing.T, b *backend.Backend) *rpc.Server {
	t.Helper()
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(b)...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupAdmin, rpctypes.GroupNet}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// callPeer calls method with params and returns its result, or its error
// as an *rpctypes.Error.
func callPeer(t *testing.T, srv *rpc.Server, method string, params ...any) (json.RawMessage, error) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, _ := srv.HandleMessage(context.Background(), req)
	var out struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		t.Fatalf("%s: %s", method, resp)
	}
	if out.Error != nil {
		return nil, rpctypes.NewError(out.Error.Code, out.Error.Message)
	}
	return out.Result, nil
}

func TestAdminPeerMethods(t *testing.T) {
	self, other := testNode(t), testNode(t)
	net := &fakeNetwork{self: self, static: map[enode.ID]bool{}, running: true}
	srv := peerServer(t, &backend.Backend{Network: net})
	url := enodeurl.Format(other, "127.0.0.1", 30303, 30303)
	if res, err := callPeer(t, srv, "admin_addPeer", url); string(res) != "true" || err != nil {
		t.Fatalf("first add: %s %v", res, err)
	}
	if res, err := callPeer(t, srv, "admin_addPeer", url); string(res) != "false" || err != nil {
		t.Fatalf("second add: %s %v", res, err)
	}
	if res, _ := callPeer(t, srv, "admin_removePeer", url); string(res) != "true" {
		t.Fatal("remove: false")
	}
	if res, _ := callPeer(t, srv, "admin_removePeer", url); string(res) != "false" {
		t.Fatal("second remove: true")
	}
	id := enodeurl.ID(other)
	for _, tc := range []struct {
		url  string
		want *rpctypes.Error
	}{
		{"enode://" + id[:10] + "@127.0.0.1:30303", rpctypes.ErrEnodeIDInvalid},
		{"enode://0x" + id + "@127.0.0.1:30303", rpctypes.ErrEnodeIDInvalid},
		{"enode://" + id + "@example.org:30303", rpctypes.ErrDNSNotEnabled},
		{"enode://" + id + "@127.0.0.1", rpctypes.ErrParse},
		{"", rpctypes.ErrParse},
		{enodeurl.Format(self, "127.0.0.1", 1, 1), rpctypes.ErrCantConnectToLocalPeer},
	} {
		_, err := callPeer(t, srv, "admin_addPeer", tc.url)
		if !errors.Is(err, tc.want) {
			t.Errorf("AddPeer(%q) = %v, want %v", tc.url, err, tc.want)
		}
	}
	info, err := callPeer(t, srv, "admin_nodeInfo")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(info), `"difficulty":100,`) || !strings.Contains(string(info), `"network":1337}`) {
		t.Fatalf("node info JSON %s", info)
	}
	peers, err := callPeer(t, srv, "admin_peers")
	if err != nil || string(peers) != "[]" {
		t.Fatalf("peers %s %v", peers, err)
	}
	net.running = false
	if _, err := callPeer(t, srv, "admin_nodeInfo"); !errors.Is(err, rpctypes.ErrP2PNetworkNotRunning) {
		t.Fatalf("not running: %v", err)
	}
}

func TestAdminP2PDisabled(t *testing.T) {
	srv := peerServer(t, &backend.Backend{})
	url := enodeurl.Format(testNode(t), "127.0.0.1", 30303, 30303)
	for _, m := range []string{"admin_addPeer", "admin_removePeer"} {
		if _, err := callPeer(t, srv, m, url); !errors.Is(err, rpctypes.ErrP2PDisabled) {
			t.Errorf("%s: %v", m, err)
		}
	}
	for _, m := range []string{"admin_nodeInfo", "admin_peers", "net_peerCount", "net_enode"} {
		if _, err := callPeer(t, srv, m); !errors.Is(err, rpctypes.ErrP2PDisabled) {
			t.Errorf("%s: %v", m, err)
		}
	}
	// An invalid enode is reported before the disabled network, as Besu's
	// parsing comes first.
	if _, err := callPeer(t, srv, "admin_addPeer", "enode://zz@127.0.0.1:1"); !errors.Is(err, rpctypes.ErrEnodeIDInvalid) {
		t.Errorf("bad enode with p2p off: %v", err)
	}
	if res, _ := callPeer(t, srv, "net_listening"); string(res) != "false" {
		t.Errorf("net_listening %s", res)
	}
}
