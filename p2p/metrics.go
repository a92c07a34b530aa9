package p2p

import (
	"strconv"

	gethp2p "github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/metrics"
)

// serviceMetrics are the service's Besu metrics (all no-ops without
// Config.Metrics).
type serviceMetrics struct {
	reg          *metrics.Registry
	inbound      *metrics.CounterVec
	outbound     *metrics.CounterVec
	connected    metrics.Counter
	disconnected metrics.Counter
}

func (s *Service) registerMetrics(reg *metrics.Registry) {
	s.metrics = serviceMetrics{
		reg:          reg,
		inbound:      reg.CounterVec(metrics.Network, "p2p_messages_inbound", "Count of each P2P message received inbound.", "protocol", "name", "code"),
		outbound:     reg.CounterVec(metrics.Network, "p2p_messages_outbound", "Count of each P2P message sent outbound.", "protocol", "name", "code"),
		connected:    reg.Counter(metrics.Peers, "connected_total", "Total number of peers connected"),
		disconnected: reg.Counter(metrics.Peers, "disconnected_total", "Total number of peers disconnected"),
	}
	reg.GaugeFunc(metrics.Ethereum, "peer_count", "The current number of peers connected", func() float64 { return float64(s.PeerCount()) })
	reg.GaugeFunc(metrics.Ethereum, "peer_limit", "The maximum number of peers this node allows to connect", func() float64 { return float64(s.cfg.MaxPeers) })
	reg.GaugeFunc(metrics.Ethereum, "best_known_block_number", "The estimated highest block available", func() float64 { return float64(s.BestKnownBlock()) })
	reg.GaugeFunc(metrics.Synchronizer, "in_sync", "Whether or not the local node has caught up to the best known peer", func() float64 {
		if s.InSync() {
			return 1
		}
		return 0
	})
}

// metered wraps p so that every message read or written on it counts in
// besu_network_p2p_messages_{inbound,outbound}, labelled by protocol name,
// message name (name(code); the code itself where name has none) and code.
// The counters are resolved here, once per code, so a message costs one
// atomic add.
func (s *Service) metered(p gethp2p.Protocol, name func(uint64) string) gethp2p.Protocol {
	if s.metrics.inbound == nil {
		return p
	}
	in := make([]metrics.Counter, p.Length)
	out := make([]metrics.Counter, p.Length)
	for code := range p.Length {
		n := ""
		if name != nil {
			n = name(code)
		}
		c := strconv.FormatUint(code, 10)
		if n == "" {
			n = c
		}
		in[code] = s.metrics.inbound.With(p.Name, n, c)
		out[code] = s.metrics.outbound.With(p.Name, n, c)
	}
	run := p.Run
	p.Run = func(peer *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
		return run(peer, meteredRW{MsgReadWriter: rw, in: in, out: out})
	}
	return p
}

// meteredRW counts the messages that pass through it.
type meteredRW struct {
	gethp2p.MsgReadWriter
	in, out []metrics.Counter
}

func (rw meteredRW) ReadMsg() (gethp2p.Msg, error) {
	msg, err := rw.MsgReadWriter.ReadMsg()
	if err == nil && msg.Code < uint64(len(rw.in)) {
		rw.in[msg.Code].Inc()
	}
	return msg, err
}

func (rw meteredRW) WriteMsg(msg gethp2p.Msg) error {
	err := rw.MsgReadWriter.WriteMsg(msg)
	if err == nil && msg.Code < uint64(len(rw.out)) {
		rw.out[msg.Code].Inc()
	}
	return err
}
