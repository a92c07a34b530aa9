package bftengine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/bft"
)

// countingFormat counts the messages decoded: a real format recovers the
// signature (and a proposal's block signatures) as it decodes.
type countingFormat struct {
	plainFormat
	decoded *atomic.Int64
}

func (f countingFormat) DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	f.decoded.Add(1)
	return f.plainFormat.DecodeMessage(code, data)
}

// waitInbox waits until the fixture's queue holds n messages.
func (fx *netFixture) waitInbox(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(fx.inbox) < n {
		if time.Now().After(deadline) {
			t.Fatalf("queued %d, want %d", len(fx.inbox), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A message relayed by many peers at once (each peer's handler on its own
// goroutine, as devp2p runs them) is decoded and verified once and queued
// once; every later copy is dropped before decoding too.
func TestNetworkVerifiesRelayedMessageOnce(t *testing.T) {
	fx := newNetFixture(1000)
	var decoded atomic.Int64
	fx.n.format = countingFormat{decoded: &decoded}
	const peers = 40
	rws := make([]p2p.MsgReadWriter, peers)
	for i := range rws {
		rws[i], _ = fx.connect(enode.ID{byte(i + 1)})
	}
	shared := plain(5, common.Address{1}, 7)
	var wg sync.WaitGroup
	for round := range 3 { // copies at once, then copies of a message known
		for _, rw := range rws {
			wg.Go(func() {
				if err := p2p.Send(rw, uint64(bft.KindPrepare), shared); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if round == 0 {
			fx.waitInbox(t, 1)
		}
	}
	// A message of each peer's own after its copies: once all are queued,
	// each peer's handler is done with the copies it got before.
	for i, rw := range rws {
		if err := p2p.Send(rw, uint64(bft.KindPrepare), plain(5, common.Address{2}, uint64(100+i))); err != nil {
			t.Fatal(err)
		}
	}
	fx.waitInbox(t, 1+peers)
	if got := decoded.Load(); got != 1+peers {
		t.Fatalf("decoded %d messages for 1 relayed by %d peers 3 times and %d distinct ones, want %d", got, peers, peers, 1+peers)
	}
	hash := crypto.Keccak256Hash([]byte{byte(bft.KindPrepare)}, mustRLP(t, shared))
	copies := 0
	for len(fx.inbox) > 0 {
		in := <-fx.inbox
		if in.Hash == hash {
			copies++
		}
		in.Done()
	}
	if copies != 1 {
		t.Fatalf("the relayed message was queued %d times", copies)
	}
}

func mustRLP(t *testing.T, v any) []byte {
	t.Helper()
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// received collects what one pipe peer is sent.
func received(rw p2p.MsgReadWriter) <-chan []byte {
	out := make(chan []byte, 16)
	go func() {
		defer close(out)
		for {
			msg, err := rw.ReadMsg()
			if err != nil {
				return
			}
			var raw rlp.RawValue
			_ = msg.Decode(&raw)
			out <- raw
		}
	}()
	return out
}

// A relayed message goes to the peers that do not have it: not back to
// the peer it came from, nor to another peer that sent a copy, nor to a
// peer that advertised (bftmesh) a connection to its author; and only
// once. A message of the node's own goes to every peer, the ones
// connected to it included.
func TestNetworkRelaysOnlyToPeersWithout(t *testing.T) {
	fx := newNetFixture(100)
	fx.n.mesh = newMesh()
	fx.n.self = common.Address{0x5e}
	author := common.Address{1}
	from, copier, meshed, other := enode.ID{0xa}, enode.ID{0xb}, enode.ID{0xc}, enode.ID{0xd}
	rws := map[enode.ID]p2p.MsgReadWriter{}
	for _, id := range []enode.ID{from, copier, meshed, other} {
		rws[id], _ = fx.connect(id)
	}
	// meshed tells the node it runs the consensus protocol with author
	// (and with the node itself).
	meshLocal, meshRemote := p2p.MsgPipe()
	proto := fx.n.mesh.transport.Protocol()
	go proto.Run(p2p.NewPeer(meshed, "meshed", []p2p.Cap{{Name: proto.Name, Version: proto.Version}}), meshLocal) //nolint:errcheck
	go func() {                                                                                                   // the node's own advertisement to meshed
		for {
			if msg, err := meshRemote.ReadMsg(); err != nil {
				return
			} else {
				msg.Discard()
			}
		}
	}()
	if err := p2p.Send(meshRemote, meshMsgPeers, []common.Address{author, fx.n.self}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return fx.n.mesh.connected(meshed, author) })

	relayed := plain(5, author, 1)
	if err := p2p.Send(rws[from], uint64(bft.KindPrepare), relayed); err != nil {
		t.Fatal(err)
	}
	fx.waitInbox(t, 1)
	in := <-fx.inbox
	in.Done()
	if err := p2p.Send(rws[copier], uint64(bft.KindPrepare), relayed); err != nil {
		t.Fatal(err)
	}
	// Once copier's next message is queued, its copy was handled.
	if err := p2p.Send(rws[copier], uint64(bft.KindPrepare), plain(5, author, 2)); err != nil {
		t.Fatal(err)
	}
	fx.waitInbox(t, 1)
	(<-fx.inbox).Done()

	got := map[enode.ID]<-chan []byte{}
	for id, rw := range rws {
		got[id] = received(rw)
	}
	if !fx.n.gossip(in.Msg, in.Hash, in.From) {
		t.Fatal("a new message was not gossiped")
	}
	if fx.n.gossip(in.Msg, in.Hash, in.From) {
		t.Fatal("a message was gossiped twice")
	}
	own := &bft.Message{Kind: bft.KindCommit, View: bft.View{Sequence: 5}, Author: fx.n.self,
		Wire: mustRLP(t, plain(5, fx.n.self, 3))}
	fx.n.gossip(own, common.Hash{0x0e}, enode.ID{})
	// Every pipe delivers in order: the own message last.
	for id, ch := range got {
		first := <-ch
		wantRelayed := id == other
		if gotRelayed := string(first) == string(in.Msg.Wire); gotRelayed != wantRelayed {
			t.Errorf("peer %x: relayed message sent %v, want %v", id[:1], gotRelayed, wantRelayed)
		}
		if wantRelayed {
			first = <-ch
		}
		if string(first) != string(own.Wire) {
			t.Errorf("peer %x: got %x, want the node's own message", id[:1], first)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// FuzzMeshAdvertisement: any bytes decode to an error or at most
// maxMeshPeers addresses, without a panic.
func FuzzMeshAdvertisement(f *testing.F) {
	f.Add(mustEncode([]common.Address{{1}, {2}}))
	f.Add([]byte{0xc0})
	f.Add([]byte{0xf8, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		addrs, err := decodeMeshPeers(data)
		if err == nil && len(addrs) > maxMeshPeers {
			t.Fatalf("%d addresses", len(addrs))
		}
	})
}

func mustEncode(v any) []byte {
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		panic(err)
	}
	return b
}

// sealCounter counts commit-seal recoveries.
type sealCounter struct{ n int }

func (f *sealCounter) recover(common.Hash, []byte) (common.Address, error) {
	f.n++
	return common.Address{byte(f.n)}, nil
}

// A commit seal is recovered once: as its commit message comes, and not
// again when the block holding it is imported.
func TestSealRecoveredOnce(t *testing.T) {
	e, err := New([]Segment{{From: 0, Format: plainFormat{}, Config: &config.IBFT2Config{}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &sealCounter{}
	e.recover = f.recover
	first, _ := e.recoverSeal(common.Hash{1}, []byte{1})
	again, _ := e.recoverSeal(common.Hash{1}, []byte{1})
	other, _ := e.recoverSeal(common.Hash{1}, []byte{2})
	if f.n != 2 || first != again || other == first {
		t.Fatalf("%d recoveries; signers %x %x %x", f.n, first, again, other)
	}
}

// A node advertises its consensus peers on bftmesh: a new mesh peer is
// told the set at once, a new connection within the debounce, a lost one
// at once.
func TestMeshAdvertises(t *testing.T) {
	m := newMesh()
	m.debounce = 50 * time.Millisecond
	a, b := common.Address{0xa}, common.Address{0xb}
	m.consensusPeer(enode.ID{0xa}, a, true)
	local, remote := p2p.MsgPipe()
	proto := m.transport.Protocol()
	go proto.Run(p2p.NewPeer(enode.ID{0x1}, "mesh", []p2p.Cap{{Name: proto.Name, Version: proto.Version}}), local) //nolint:errcheck
	read := func() []common.Address {
		t.Helper()
		msg, err := remote.ReadMsg()
		if err != nil {
			t.Fatal(err)
		}
		var addrs []common.Address
		if err := msg.Decode(&addrs); err != nil {
			t.Fatal(err)
		}
		return addrs
	}
	if got := read(); len(got) != 1 || got[0] != a {
		t.Fatalf("first advertisement %x", got)
	}
	m.consensusPeer(enode.ID{0xb}, b, true)
	if got := read(); len(got) != 2 {
		t.Fatalf("after a new peer %x", got)
	}
	m.debounce = time.Hour // a loss does not wait for it
	m.consensusPeer(enode.ID{0xa}, a, false)
	if got := read(); len(got) != 1 || got[0] != b {
		t.Fatalf("after a lost peer %x", got)
	}
	remote.Close()
}
