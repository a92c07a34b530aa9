package bftengine

import (
	"errors"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/driver"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// plainFormat decodes a message as [sequence, author]: the network's
// bookkeeping without the signatures (FuzzAdmit covers those).
type plainFormat struct{ Format }

func (plainFormat) Spec() Spec {
	return Spec{Name: "plain", Protocol: "plain", Version: 1, Length: 4, Rules: bft.QBFT}
}
func (plainFormat) Code(k bft.Kind) uint64 { return uint64(k) }
func (plainFormat) DecodeMessage(code uint64, data []byte) (*bft.Message, error) {
	var v struct {
		Seq    uint64
		Author common.Address
		Salt   uint64
	}
	if err := rlp.DecodeBytes(data, &v); err != nil {
		return nil, err
	}
	return &bft.Message{Kind: bft.Kind(code), View: bft.View{Sequence: v.Seq}, Author: v.Author,
		Digest: common.BigToHash(new(big.Int).SetUint64(v.Salt)), Wire: data}, nil
}

func plain(seq uint64, author common.Address, salt uint64) []any {
	return []any{seq, author, salt}
}

type netFixture struct {
	n     *network
	inbox chan driver.Inbound
	bans  *subprotocol.BanList
	clock *consensus.ManualClock
}

func newNetFixture(queue int) *netFixture {
	fx := &netFixture{inbox: make(chan driver.Inbound, queue), clock: consensus.NewManualClock(time.Unix(1000, 0))}
	fx.bans = subprotocol.NewBanList(fx.clock, banDuration, maxBans)
	gate := &atomic.Pointer[Gate]{}
	gate.Store(&Gate{Sequence: 5, Validators: []common.Address{{1}, {2}}, MaxDistance: 10})
	fx.n = newNetwork(plainFormat{}, &config.IBFT2Config{DuplicateMessageLimit: 100, GossipedHistoryLimit: 100}, fx.inbox, gate, fx.bans)
	return fx
}

// connect runs the sub-protocol with peer id over a pipe.
func (fx *netFixture) connect(id enode.ID) (p2p.MsgReadWriter, <-chan error) {
	local, remote := p2p.MsgPipe()
	done := make(chan error, 1)
	proto := fx.n.transport.Protocol()
	go func() {
		done <- proto.Run(p2p.NewPeer(id, "peer", []p2p.Cap{{Name: proto.Name, Version: proto.Version}}), local)
	}()
	return remote, done
}

// A peer holds at most its share of the queue: its messages beyond it are
// dropped, not marked received, and the other peers' still get in; as the
// driver takes its messages, it may queue more.
func TestNetworkPeerShare(t *testing.T) {
	fx := newNetFixture(400) // a share of 100
	if fx.n.perPeer != 100 {
		t.Fatalf("share %d", fx.n.perPeer)
	}
	a, b := enode.ID{0xa}, enode.ID{0xb}
	rwA, _ := fx.connect(a)
	rwB, _ := fx.connect(b)
	for i := range 300 {
		if err := p2p.Send(rwA, 1, plain(5, common.Address{1}, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	// A duplicate: once the pipe took it, the handler is done with
	// every message before it (a peer's messages are handled in turn).
	if err := p2p.Send(rwA, 1, plain(5, common.Address{1}, 0)); err != nil {
		t.Fatal(err)
	}
	if err := p2p.Send(rwB, 1, plain(5, common.Address{2}, 0)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(fx.inbox) < 101 {
		if time.Now().After(deadline) {
			t.Fatalf("queued %d", len(fx.inbox))
		}
		time.Sleep(time.Millisecond)
	}
	from := map[enode.ID]int{}
	for len(fx.inbox) > 0 {
		in := <-fx.inbox
		from[in.From]++
		in.Done()
	}
	if from[a] != 100 || from[b] != 1 {
		t.Fatalf("queued by peer: %v", from)
	}
	// A dropped message was not marked received: sent again, it is queued.
	if err := p2p.Send(rwA, 1, plain(5, common.Address{1}, 299)); err != nil {
		t.Fatal(err)
	}
	if in := <-fx.inbox; in.From != a {
		t.Fatalf("from %x", in.From)
	}
}

// A current-height message by a non-validator bans its sender: it is
// disconnected, and dropped at once when it comes back, until the ban
// ends. A later height's message by an unknown author is only dropped.
func TestNetworkBansOutsider(t *testing.T) {
	fx := newNetFixture(100)
	id := enode.ID{0xe}
	rw, done := fx.connect(id)
	if err := p2p.Send(rw, 1, plain(6, common.Address{9}, 0)); err != nil {
		t.Fatal(err)
	}
	if err := p2p.Send(rw, 1, plain(5, common.Address{9}, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, subprotocol.ErrMisbehaved) || !errors.Is(err, bft.ErrNotValidator) {
		t.Fatalf("outsider's run ended with %v", err)
	}
	if len(fx.inbox) != 0 || !fx.bans.Banned(id) {
		t.Fatalf("queued %d, banned %v", len(fx.inbox), fx.bans.Banned(id))
	}
	_, done = fx.connect(id)
	if err := <-done; !errors.Is(err, p2p.DiscUselessPeer) {
		t.Fatalf("comeback ended with %v", err)
	}
	fx.clock.Advance(banDuration)
	rw, done = fx.connect(id)
	if err := p2p.Send(rw, 1, plain(5, common.Address{2}, 1)); err != nil {
		t.Fatal(err)
	}
	if in := <-fx.inbox; in.From != id {
		t.Fatalf("from %x", in.From)
	}
	rw.(*p2p.MsgPipeRW).Close()
	<-done
}
