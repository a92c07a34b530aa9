package api

import (
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/p2p/enodeurl"
	"github.com/basaltchain/basalt/rpc"
)

// fakeNetwork is a Network holding a static set.
type fakeNetwork struct {
	self    *enode.Node
	static  map[enode.ID]bool
	running bool
}

func (f *fakeNetwork) Running() bool     { return f.running }
func (f *fakeNetwork) Listening() bool   { return f.running }
func (f *fakeNetwork) PeerCount() int    { return len(f.static) }
func (f *fakeNetwork) Self() *enode.Node { return f.self }
func (f *fakeNetwork) NodeInfo() NodeInfo {
	return NodeInfo{ID: enodeurl.ID(f.self), Protocols: NodeProtocols{Eth: EthNodeInfo{Difficulty: big.NewInt(100), Network: 1337}}}
}
func (f *fakeNetwork) Peers() []PeerInfo { return nil }
func (f *fakeNetwork) Service() Service  { return Service{Host: "127.0.0.1", Port: "30303"} }
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

func TestAdminPeerMethods(t *testing.T) {
	self, other := testNode(t), testNode(t)
	net := &fakeNetwork{self: self, static: map[enode.ID]bool{}, running: true}
	a := &Admin{&Backend{Network: net}}
	url := enodeurl.Format(other, "127.0.0.1", 30303, 30303)
	if ok, err := a.AddPeer(url); !ok || err != nil {
		t.Fatalf("first add: %v %v", ok, err)
	}
	if ok, err := a.AddPeer(url); ok || err != nil {
		t.Fatalf("second add: %v %v", ok, err)
	}
	if ok, _ := a.RemovePeer(url); !ok {
		t.Fatal("remove: false")
	}
	if ok, _ := a.RemovePeer(url); ok {
		t.Fatal("second remove: true")
	}
	id := enodeurl.ID(other)
	for _, tc := range []struct {
		url  string
		want *rpc.Error
	}{
		{"enode://" + id[:10] + "@127.0.0.1:30303", rpc.ErrEnodeIDInvalid},
		{"enode://0x" + id + "@127.0.0.1:30303", rpc.ErrEnodeIDInvalid},
		{"enode://" + id + "@example.org:30303", rpc.ErrDNSNotEnabled},
		{"enode://" + id + "@127.0.0.1", rpc.ErrParse},
		{"", rpc.ErrParse},
		{enodeurl.Format(self, "127.0.0.1", 1, 1), rpc.ErrCantConnectToLocalPeer},
	} {
		_, err := a.AddPeer(tc.url)
		if !errors.Is(err, tc.want) {
			t.Errorf("AddPeer(%q) = %v, want %v", tc.url, err, tc.want)
		}
	}
	info, err := a.NodeInfo()
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(info)
	if !strings.Contains(string(enc), `"difficulty":100,`) || !strings.Contains(string(enc), `"network":1337}`) {
		t.Fatalf("node info JSON %s", enc)
	}
	peers, err := a.Peers()
	if err != nil || peers == nil {
		t.Fatalf("peers %v %v", peers, err)
	}
	net.running = false
	if _, err := a.NodeInfo(); !errors.Is(err, rpc.ErrP2PNetworkNotRunning) {
		t.Fatalf("not running: %v", err)
	}
}

func TestAdminP2PDisabled(t *testing.T) {
	a := &Admin{&Backend{}}
	url := enodeurl.Format(testNode(t), "127.0.0.1", 30303, 30303)
	if _, err := a.AddPeer(url); !errors.Is(err, rpc.ErrP2PDisabled) {
		t.Errorf("addPeer: %v", err)
	}
	if _, err := a.RemovePeer(url); !errors.Is(err, rpc.ErrP2PDisabled) {
		t.Errorf("removePeer: %v", err)
	}
	if _, err := a.NodeInfo(); !errors.Is(err, rpc.ErrP2PDisabled) {
		t.Errorf("nodeInfo: %v", err)
	}
	if _, err := a.Peers(); !errors.Is(err, rpc.ErrP2PDisabled) {
		t.Errorf("peers: %v", err)
	}
	// An invalid enode is reported before the disabled network, as Besu's
	// parsing comes first.
	if _, err := a.AddPeer("enode://zz@127.0.0.1:1"); !errors.Is(err, rpc.ErrEnodeIDInvalid) {
		t.Errorf("bad enode with p2p off: %v", err)
	}
	n := &Net{&Backend{}}
	if _, err := n.PeerCount(); !errors.Is(err, rpc.ErrP2PDisabled) {
		t.Errorf("net_peerCount: %v", err)
	}
	if n.Listening() {
		t.Error("net_listening true")
	}
}
