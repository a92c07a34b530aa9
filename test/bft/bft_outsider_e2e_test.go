package bft

import (
	"crypto/ecdsa"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// outsider is a devp2p node of the test (go-ethereum's server, over rlpx)
// that speaks only the BFT sub-protocol of format: no eth, no validator
// key. It records the consensus messages it receives, and with a forger
// key it sends consensus messages of its own to every node it reaches.
type outsider struct {
	srv    *gethp2p.Server
	format bftengine.Format

	mu       sync.Mutex
	authors  map[common.Address]int // of the messages received
	sessions int                    // connections opened
	ended    int                    // connections the nodes ended
	sent     int                    // forged messages the nodes took
}

// forger, when set, makes the outsider send messages signed by its key,
// for the height height() (and the next ones).
type forger struct {
	key    *ecdsa.PrivateKey
	height func() uint64
}

// startOutsider starts an outsider with node key key (a new one when nil)
// and dials nodes.
func startOutsider(t *testing.T, f bftengine.Format, key *ecdsa.PrivateKey, fg *forger, nodes ...*testnode.P2PNode) *outsider {
	t.Helper()
	o := &outsider{format: f, authors: map[common.Address]int{}}
	if key == nil {
		key, _ = crypto.GenerateKey()
	}
	o.srv = &gethp2p.Server{Config: gethp2p.Config{
		PrivateKey: key, MaxPeers: len(nodes) + 1, DialRatio: 1, NoDiscovery: true, ListenAddr: "127.0.0.1:0",
		Protocols: []gethp2p.Protocol{{Name: f.Spec().Protocol, Version: f.Spec().Version, Length: f.Spec().Length,
			Run: func(p *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
				o.mu.Lock()
				o.sessions++
				o.mu.Unlock()
				done := make(chan struct{})
				defer close(done)
				if fg != nil {
					go o.forge(rw, fg, done)
				}
				for {
					msg, err := rw.ReadMsg()
					if err != nil {
						o.mu.Lock()
						o.ended++
						o.mu.Unlock()
						return err
					}
					o.record(msg)
				}
			}}},
	}}
	if err := o.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.srv.Stop)
	for _, n := range nodes {
		node, err := enodeurl.Parse(n.Enode())
		if err != nil {
			t.Fatal(err)
		}
		o.srv.AddPeer(node)
	}
	return o
}

// record notes the author of a consensus message.
func (o *outsider) record(msg gethp2p.Msg) {
	defer msg.Discard()
	for k := bft.KindProposal; k <= bft.KindRoundChange; k++ {
		if o.format.Code(k) != msg.Code {
			continue
		}
		var raw rlp.RawValue
		if msg.Decode(&raw) != nil {
			return
		}
		if m, err := o.format.DecodeMessage(msg.Code, raw); err == nil {
			o.mu.Lock()
			o.authors[m.Author]++
			o.mu.Unlock()
		}
	}
}

// forge sends prepares, commits and round changes signed by the forger's
// key, of the current height and the two after it, until the node ends
// the connection (or 20,000 went out).
func (o *outsider) forge(rw gethp2p.MsgWriter, fg *forger, done <-chan struct{}) {
	author := crypto.PubkeyToAddress(fg.key.PublicKey)
	seq := fg.height()
	for i := range 20000 {
		select {
		case <-done:
			return
		default:
		}
		if i%100 == 0 {
			seq = fg.height()
		}
		kind := []bft.Kind{bft.KindPrepare, bft.KindCommit, bft.KindRoundChange}[i%3]
		m := &bft.Message{Kind: kind, Author: author, Digest: common.BigToHash(big.NewInt(int64(i))),
			View: bft.View{Sequence: seq + uint64(i%4%3), Round: uint32(i % 5)}}
		if kind == bft.KindRoundChange {
			m.View.Round++
		}
		if kind == bft.KindCommit {
			m.CommitSeal, _ = crypto.Sign(m.Digest[:], fg.key)
		}
		if err := o.format.Sign(m, fg.key); err != nil {
			panic(err)
		}
		if gethp2p.Send(rw, o.format.Code(kind), rlp.RawValue(m.Wire)) != nil {
			return
		}
		o.mu.Lock()
		o.sent++
		o.mu.Unlock()
	}
}

func (o *outsider) stats() (sessions, ended, sent int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sessions, o.ended, o.sent
}

func (o *outsider) received(a common.Address) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.authors[a]
}

// testOutsiders: a running network of 4 validators; an outsider peer that
// speaks only the consensus sub-protocol floods every validator with
// consensus messages signed by a key of no validator. Each validator
// disconnects it and keeps it out (its node, back at once, is dropped when
// its session starts); a second outsider, connected to the same validators, receives the
// validators' messages and none of the forged ones; blocks keep coming.
func testOutsiders(t *testing.T, net *bftnet.Network, f bftengine.Format) {
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 2, n...)

	observer := startOutsider(t, f, nil, nil, n...)
	testnode.WaitFor(t, 30*time.Second, "the observer connected to every validator", func() bool {
		return observer.srv.PeerCount() == len(n)
	})
	forgerKey, _ := crypto.GenerateKey()
	forged := crypto.PubkeyToAddress(forgerKey.PublicKey)
	var height atomic.Uint64
	height.Store(n[0].BlockNumber() + 1)
	stopHeights := make(chan struct{})
	go func() { // the forger tracks the height as an attacker reading the chain would
		for {
			select {
			case <-stopHeights:
				return
			case <-time.After(200 * time.Millisecond):
				height.Store(n[0].BlockNumber() + 1)
			}
		}
	}()
	defer close(stopHeights)
	attackerKey, _ := crypto.GenerateKey()
	attacker := startOutsider(t, f, attackerKey, &forger{key: forgerKey, height: height.Load}, n...)

	testnode.WaitFor(t, 60*time.Second, "every validator to drop the forger", func() bool {
		sessions, ended, _ := attacker.stats()
		return sessions >= len(n) && ended == sessions && attacker.srv.PeerCount() == 0
	})
	sessions, ended, sent := attacker.stats()
	t.Logf("forger: %d sessions, %d ended by the nodes, %d forged messages taken before that", sessions, ended, sent)
	if sent == 0 {
		t.Fatal("the forger sent nothing: the test proves nothing")
	}

	// Blocks keep coming, and the observer, still connected, hears the
	// validators and never the forger.
	top := n[0].BlockNumber()
	bftnet.WaitHeight(t, 60*time.Second, top+3, n...)
	bftnet.SameChain(t, n...)
	if observer.srv.PeerCount() != len(n) {
		t.Fatalf("the observer has %d peers, want %d", observer.srv.PeerCount(), len(n))
	}
	heard := 0
	for _, a := range net.Addrs {
		heard += observer.received(a)
	}
	if heard == 0 {
		t.Fatal("the observer heard no validator")
	}
	if got := observer.received(forged); got != 0 {
		t.Fatalf("the validators relayed %d forged messages to the observer", got)
	}
	t.Logf("observer: %d messages from the validators, 0 forged", heard)

	// The forger's node comes back at once: each validator drops it as
	// soon as the session starts, before it sends anything.
	attacker.srv.Stop()
	back := startOutsider(t, f, attackerKey, nil, n...)
	testnode.WaitFor(t, 30*time.Second, "every validator to drop the banned node again", func() bool {
		sessions, ended, _ := back.stats()
		return sessions >= len(n) && ended == sessions && back.srv.PeerCount() == 0
	})
	bftnet.WaitHeight(t, 30*time.Second, n[0].BlockNumber()+1, n...)
}

func TestQBFTOutsiderDisconnected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 4-validator network")
	}
	testOutsiders(t, generateQBFT(t, 4, 2), qbft.Format{})
}

func TestIBFTOutsiderDisconnected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 4-validator network")
	}
	testOutsiders(t, bftnet.GenerateIBFT(t, 4, 2), ibft2.Format{})
}
