package p2p

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/p2p/eth"
	"github.com/basaltchain/basalt/testsupport/chaingen"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

func noop(*gethp2p.Peer, gethp2p.MsgReadWriter) error { return nil }

// The server runs every eth version, then the engine's sub-protocols; a
// sub-protocol that would clash with eth or another is refused.
func TestProtocolList(t *testing.T) {
	c, db, err := chaingen.OpenMemoryWith(testGenesis, testEngine)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, _ := crypto.GenerateKey()
	newService := func(extra ...gethp2p.Protocol) (*Service, error) {
		return New(Config{PrivateKey: key, Protocols: extra}, c, nil, &fakeMiner{}, quietLog)
	}
	istanbul := gethp2p.Protocol{Name: "istanbul", Version: 100, Length: 22, Run: noop}
	s, err := newService(istanbul)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.server.Protocols {
		got = append(got, gethp2p.Cap{Name: p.Name, Version: p.Version}.String())
	}
	want := []string{"eth/68", "eth/67", "eth/66", "istanbul/100"}
	if !slices.Equal(got, want) {
		t.Fatalf("protocols %v, want %v", got, want)
	}
	if ps, _ := newService(); len(ps.server.Protocols) != len(eth.ProtocolVersions) {
		t.Fatalf("without an engine protocol: %d protocols", len(ps.server.Protocols))
	}

	for name, bad := range map[string][]gethp2p.Protocol{
		"clashes with Basalt's eth": {{Name: eth.ProtocolName, Version: 69, Length: 17, Run: noop}},
		"given twice":               {istanbul, istanbul},
		"no handler":                {{Name: "x", Version: 1, Length: 1}},
	} {
		if _, err := newService(bad...); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// An engine's sub-protocol runs beside eth between two nodes: each side's
// transport sees the other and its broadcasts arrive.
func TestEngineSubProtocol(t *testing.T) {
	type message struct {
		from enode.ID
		text string
	}
	newTransport := func(got chan<- message) *subprotocol.Transport {
		return subprotocol.NewTransport("tst", 1, 2, func(from enode.ID, msg gethp2p.Msg) error {
			var s string
			if err := msg.Decode(&s); err != nil {
				return err
			}
			got <- message{from, s}
			return nil
		})
	}
	gotA, gotB := make(chan message, 1), make(chan message, 1)
	trA, trB := newTransport(gotA), newTransport(gotB)
	a := startNodeWith(t, 0, func(c *Config) { c.Protocols = []gethp2p.Protocol{trA.Protocol()} })
	b := startNodeWith(t, 0, func(c *Config) { c.Protocols = []gethp2p.Protocol{trB.Protocol()} })
	b.svc.AddStatic(a.enode(t))
	waitUntil(t, "the sub-protocol on both sides", func() bool { return len(trA.Peers()) == 1 && len(trB.Peers()) == 1 })
	if trA.Peers()[0] != b.svc.Self().ID() || trB.Peers()[0] != a.svc.Self().ID() {
		t.Fatalf("transport peers %v %v", trA.Peers(), trB.Peers())
	}
	waitUntil(t, "the eth handshake", func() bool { return b.svc.PeerCount() == 1 })
	if caps := b.svc.Peers()[0].Caps; !slices.Contains(caps, "tst/1") || !slices.Contains(caps, "eth/68") {
		t.Fatalf("peer capabilities %v", caps)
	}

	if n := trA.Broadcast(1, "prepare"); n != 1 {
		t.Fatalf("broadcast reached %d peers", n)
	}
	if m := <-gotB; m.from != a.svc.Self().ID() || m.text != "prepare" {
		t.Fatalf("b received %+v", m)
	}
	if err := trB.Send(a.svc.Self().ID(), 0, "commit"); err != nil {
		t.Fatal(err)
	}
	if m := <-gotA; m.from != b.svc.Self().ID() || m.text != "commit" {
		t.Fatalf("a received %+v", m)
	}
}

// A banned node (--banned-node-ids) is refused by every sub-protocol, not
// only at the eth handshake: an engine's protocol never runs for it, so a
// peer speaking only a consensus protocol is kept out too.
func TestBannedNodeRefusedBySubProtocols(t *testing.T) {
	counted := func(tr *subprotocol.Transport, runs, ends *atomic.Int32) gethp2p.Protocol {
		p := tr.Protocol()
		run := p.Run
		p.Run = func(peer *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
			runs.Add(1)
			defer ends.Add(1)
			return run(peer, rw)
		}
		return p
	}
	handler := func(enode.ID, gethp2p.Msg) error { return nil }
	var aRuns, aEnds, bRuns, bEnds atomic.Int32
	trA, trB := subprotocol.NewTransport("tst", 1, 2, handler), subprotocol.NewTransport("tst", 1, 2, handler)
	bKey, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	bID := enode.PubkeyToIDV4(&bKey.PublicKey)
	a := startNodeWith(t, 0, func(c *Config) {
		c.Protocols = []gethp2p.Protocol{counted(trA, &aRuns, &aEnds)}
		c.Banned = map[enode.ID]bool{bID: true}
	})
	b := startNodeWith(t, 0, func(c *Config) {
		c.PrivateKey = bKey
		c.Protocols = []gethp2p.Protocol{counted(trB, &bRuns, &bEnds)}
	})
	if b.svc.Self().ID() != bID {
		t.Fatalf("node b runs as %v, not its key's %v", b.svc.Self().ID(), bID)
	}
	b.svc.AddStatic(a.enode(t))
	// b's side of the session starts and ends: a dropped it.
	waitUntil(t, "b's session with a to end", func() bool { return bEnds.Load() >= 1 })
	if n := aRuns.Load(); n != 0 {
		t.Fatalf("a ran its sub-protocol %d times for a banned node", n)
	}
	if len(trA.Peers()) != 0 || a.svc.PeerCount() != 0 {
		t.Fatalf("a has peers %v (eth %d)", trA.Peers(), a.svc.PeerCount())
	}
}
