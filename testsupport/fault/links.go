package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// Shape is what a link does to the bytes flowing one way on it. The zero
// Shape passes them untouched.
type Shape struct {
	// Latency delays every byte by this much (in order, pipelined: a
	// one-way delay, not a serialising one).
	Latency time.Duration
	// RateKB caps the bandwidth at this many KB/s (0: unlimited).
	RateKB int64
	// Loss is the fraction of packets lost. The links carry TCP, which
	// retransmits: a lost segment shows as a delay of one retransmission
	// timeout for it and everything behind it, which is what the loss
	// toxic does (see lossToxic).
	Loss float64
	// Drop discards every byte while the shape holds (a one-way link: the
	// other way still flows); removing it closes the connection, which
	// the nodes redial.
	Drop bool
}

// Links are the peer-to-peer links of a Fabric: one TCP proxy (Shopify's
// toxiproxy, in this process) per ordered pair of nodes, link (i, j)
// listening on PeerIP(j) at port LinkPort(i) and forwarding to node j's
// p2p port. Node i's static nodes name node j at that address, so every
// connection i dials to j runs through link (i, j), where Shape acts on it.
type Links struct {
	t      testing.TB
	f      *Fabric
	port   int // node p2p port, in its namespace
	server *toxiproxy.ApiServer

	mu      sync.Mutex
	proxies map[[2]int]*toxiproxy.Proxy
	seq     int
}

// LinkPort is the port of the link from node i (on PeerIP of the node it
// leads to).
func LinkPort(i int) int { return 40000 + i }

// NewLinks starts the links between every pair of the fabric's nodes,
// forwarding to p2pPort in the nodes' namespaces, and stops them when the
// test ends.
func NewLinks(t testing.TB, f *Fabric, p2pPort int) *Links {
	t.Helper()
	l := &Links{t: t, f: f, port: p2pPort, proxies: map[[2]int]*toxiproxy.Proxy{},
		server: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())}
	for i := range f.count {
		for j := range f.count {
			if i == j {
				continue
			}
			p := toxiproxy.NewProxy(l.server, fmt.Sprintf("%d-%d", i, j),
				fmt.Sprintf("%s:%d", f.PeerIP(j), LinkPort(i)), fmt.Sprintf("%s:%d", f.NodeIP(j), p2pPort))
			if err := p.Start(); err != nil {
				t.Fatalf("link %d->%d: %v", i, j, err)
			}
			l.proxies[[2]int{i, j}] = p
		}
	}
	t.Cleanup(func() {
		for _, p := range l.proxies {
			p.Stop()
		}
	})
	return l
}

// Addr is where node from reaches node to (host:port of link (from, to)).
func (l *Links) Addr(from, to int) string {
	return fmt.Sprintf("%s:%d", l.f.PeerIP(to), LinkPort(from))
}

// Shape applies s to the bytes node from sends to node to, on both links
// between them (the connection either of them dialed), until Clear.
func (l *Links) Shape(from, to int, s Shape) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	// On link (from, to) from's bytes go upstream; on (to, from) downstream.
	l.add(l.proxies[[2]int{from, to}], "upstream", s)
	l.add(l.proxies[[2]int{to, from}], "downstream", s)
}

// ShapeNode applies s to every byte node i sends and receives.
func (l *Links) ShapeNode(i int, s Shape) {
	l.t.Helper()
	for j := range l.f.count {
		if j != i {
			l.Shape(i, j, s)
			l.Shape(j, i, s)
		}
	}
}

func (l *Links) add(p *toxiproxy.Proxy, stream string, s Shape) {
	l.t.Helper()
	type toxic struct {
		typ   string
		attrs map[string]any
	}
	var ts []toxic
	if s.Latency > 0 {
		ts = append(ts, toxic{"latency", map[string]any{"latency": s.Latency.Milliseconds()}})
	}
	if s.RateKB > 0 {
		ts = append(ts, toxic{"bandwidth", map[string]any{"rate": s.RateKB}})
	}
	if s.Loss > 0 {
		ts = append(ts, toxic{lossToxicName, map[string]any{"loss": s.Loss}})
	}
	if s.Drop {
		ts = append(ts, toxic{"timeout", map[string]any{"timeout": 0}})
	}
	for _, x := range ts {
		l.seq++
		body, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("%s-%d", x.typ, l.seq), "type": x.typ,
			"stream": stream, "toxicity": 1.0, "attributes": x.attrs})
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(string(body))); err != nil {
			l.t.Fatalf("link %s: add %s: %v", p.Name, x.typ, err)
		}
	}
}

// Clear removes every shape from every link.
func (l *Links) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.proxies {
		p.Toxics.ResetToxics(context.Background())
	}
}

// lossToxicName is the toxic type of lossToxic.
const lossToxicName = "basalt_tcp_loss"

// minRTO is Linux's minimum TCP retransmission timeout (TCP_RTO_MIN), the
// least a lost segment delays the stream by on a low-latency link.
const minRTO = 200 * time.Millisecond

// lossToxic is packet loss as a TCP connection sees it: toxiproxy works on
// the byte stream, where nothing can vanish without breaking the stream,
// so a chunk "lost" with probability Loss is delivered one retransmission
// timeout late, doubled for each consecutive loss (TCP's backoff), and
// holds back what follows (in-order delivery).
type lossToxic struct {
	Loss float64 `json:"loss"`
}

// Pipe forwards chunks, delaying the lost ones.
func (t *lossToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			delay := time.Duration(0)
			for rto := minRTO; rand.Float64() < t.Loss && rto <= 8*minRTO; rto *= 2 {
				delay += rto
			}
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-stub.Interrupt:
					stub.Output <- c // keep the bytes: only the toxic is being replaced
					return
				}
			}
			stub.Output <- c
		}
	}
}

func init() {
	toxics.Register(lossToxicName, new(lossToxic))
}
