package subprotocol

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/consensus"
)

type received struct {
	from enode.ID
	code uint64
	text string
}

// pipePeer runs tr's protocol for one fake peer over an in-memory pipe and
// returns the peer's end of it and the protocol's result.
func pipePeer(tr *Transport, id enode.ID) (p2p.MsgReadWriter, <-chan error) {
	local, remote := p2p.MsgPipe()
	done := make(chan error, 1)
	proto := tr.Protocol()
	go func() {
		done <- proto.Run(p2p.NewPeer(id, "peer", []p2p.Cap{{Name: proto.Name, Version: proto.Version}}), local)
	}()
	return remote, done
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTransport(t *testing.T) {
	var (
		mu  sync.Mutex
		got []received
	)
	tr := NewTransport("test", 1, 3, func(from enode.ID, msg p2p.Msg) error {
		var s string
		if err := msg.Decode(&s); err != nil {
			return err
		}
		mu.Lock()
		got = append(got, received{from, msg.Code, s})
		mu.Unlock()
		return nil
	})
	if p := tr.Protocol(); p.Name != "test" || p.Version != 1 || p.Length != 3 || p.Run == nil {
		t.Fatalf("protocol %+v", p)
	}
	a, b := enode.ID{1}, enode.ID{2}
	rwA, doneA := pipePeer(tr, a)
	rwB, doneB := pipePeer(tr, b)
	waitFor(t, "both peers", func() bool { return len(tr.Peers()) == 2 })
	if ps := tr.Peers(); ps[0] != a || ps[1] != b {
		t.Fatalf("peers %v", ps)
	}

	// Messages from peers reach the handler with their sender.
	if err := p2p.Send(rwB, 2, "from b"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the message", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	if got[0] != (received{b, 2, "from b"}) {
		t.Fatalf("received %+v", got[0])
	}

	// A broadcast reaches every peer; Send reaches one.
	var wg sync.WaitGroup
	for _, rw := range []p2p.MsgReadWriter{rwA, rwB} {
		wg.Go(func() {
			if err := p2p.ExpectMsg(rw, 1, "vote"); err != nil {
				t.Error(err)
			}
		})
	}
	if n := tr.Broadcast(1, "vote"); n != 2 {
		t.Fatalf("broadcast reached %d peers", n)
	}
	wg.Wait()
	wg.Go(func() {
		if err := p2p.ExpectMsg(rwA, 0, "to a"); err != nil {
			t.Error(err)
		}
	})
	if err := tr.Send(a, 0, "to a"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := tr.Send(enode.ID{9}, 0, "x"); !errors.Is(err, ErrUnknownPeer) {
		t.Fatalf("send to a stranger: %v", err)
	}

	// A message code outside the protocol drops the peer.
	if err := p2p.Send(rwA, 3, "bad"); err != nil {
		t.Fatal(err)
	}
	if err := <-doneA; err == nil {
		t.Fatal("out-of-range code accepted")
	}
	if ps := tr.Peers(); len(ps) != 1 || ps[0] != b {
		t.Fatalf("peers after a drop %v", ps)
	}
	// A closed connection ends the protocol.
	rwB.(*p2p.MsgPipeRW).Close()
	<-doneB
	if n := tr.Broadcast(1, "nobody"); n != 0 || len(tr.Peers()) != 0 {
		t.Fatalf("broadcast to %d, peers %v after disconnects", n, tr.Peers())
	}
}

// A handler error wrapping ErrMisbehaved bans the peer: it is dropped, and
// dropped again at once when it comes back, until the ban ends; a plain
// handler error only drops it.
func TestTransportBans(t *testing.T) {
	clock := consensus.NewManualClock(time.Unix(1000, 0))
	bans := NewBanList(clock, time.Minute, 8)
	tr := NewTransport("test", 1, 2, func(from enode.ID, msg p2p.Msg) error {
		if msg.Code == 1 {
			return fmt.Errorf("%w: forged message", ErrMisbehaved)
		}
		return errors.New("malformed")
	}).WithBans(bans)
	bad, clumsy := enode.ID{1}, enode.ID{2}
	rw, done := pipePeer(tr, bad)
	if err := p2p.Send(rw, 1, "forged"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrMisbehaved) || !bans.Banned(bad) {
		t.Fatalf("run ended with %v, banned %v", err, bans.Banned(bad))
	}
	_, done = pipePeer(tr, bad)
	if err := <-done; !errors.Is(err, p2p.DiscUselessPeer) {
		t.Fatalf("a banned peer's comeback ended with %v", err)
	}
	rw, done = pipePeer(tr, clumsy)
	if err := p2p.Send(rw, 0, "junk"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || bans.Banned(clumsy) {
		t.Fatalf("run ended with %v, banned %v", err, bans.Banned(clumsy))
	}
	// Once the ban is over the peer runs the protocol again.
	clock.Advance(time.Minute)
	rw, done = pipePeer(tr, bad)
	waitFor(t, "the peer back", func() bool { return len(tr.Peers()) == 1 })
	rw.(*p2p.MsgPipeRW).Close()
	<-done
}
