// Package p2p is the node's peer-to-peer networking: a devp2p server
// (go-ethereum's p2p library: RLPx transport, discv4 discovery, dialing)
// running Basalt's eth protocol (package eth), full sync (package
// chainsync), block and transaction propagation, and the static nodes of
// <data-path>/static-nodes.json and admin_addPeer. Beside eth, every
// connection runs the devp2p sub-protocols the consensus engine brings
// (Config.Protocols; IBFT 2.0's, say), which the engine serves itself.
//
// The Service owns these goroutines, each ended by Stop:
//
//   - the sync loop, which syncs from the heaviest peer whenever one is
//     heavier than the local chain (on connect, on announcements that do not
//     connect to the local chain, and every syncCheckInterval);
//   - the block import loop, which inserts propagated blocks in arrival
//     order and relays the valid ones;
//   - the head loop, which announces every new local head (mined or
//     imported) to the peers that do not have it;
//   - the transaction loop, which relays what the pool accepts and
//     announces what becomes executable;
//   - the static-node loop, which redials dropped static nodes every
//     ReconnectInterval (Besu: 60 seconds);
//   - short-lived fetches of announced blocks, and per peer at most one
//     fetch of announced transactions.
package p2p

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	gethlog "github.com/ethereum/go-ethereum/log"
	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/p2p/nat"
	"github.com/ethereum/go-ethereum/p2p/netutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/p2p/chainsync"
	"github.com/basaltchain/basalt/p2p/eth"
	"github.com/basaltchain/basalt/txpool"
)

// DefaultReconnectInterval is how often dropped static nodes are redialed
// (Besu's maintained-peers check).
const DefaultReconnectInterval = 60 * time.Second

// Config configures the service.
type Config struct {
	// PrivateKey is the node key.
	PrivateKey *ecdsa.PrivateKey
	// Host is the address advertised in the enode URL (--p2p-host).
	Host string
	// Interface is the address listened on (--p2p-interface).
	Interface string
	// Port is the TCP and UDP port (--p2p-port); 0 picks a free one.
	Port int
	// MaxPeers is --max-peers.
	MaxPeers int
	// Discovery enables discv4 (--discovery-enabled).
	Discovery bool
	// Bootnodes seed discovery (--bootnodes).
	Bootnodes []*enode.Node
	// StaticNodes are kept connected (static-nodes.json).
	StaticNodes []*enode.Node
	// StaticHosts are the host names of the static nodes given by name
	// (LoadStaticNodesDNS), resolved again at each dial: a restarted
	// Kubernetes pod keeps its name, not its address.
	StaticHosts map[enode.ID]string
	// NetworkID is sent in the handshake (--network-id).
	NetworkID uint64
	// Name is the client name sent to peers (web3_clientVersion).
	Name string
	// ReconnectInterval is how often dropped static nodes are redialed;
	// 0 means DefaultReconnectInterval.
	ReconnectInterval time.Duration
	// RequestTimeout bounds each request to a peer; 0 means
	// eth.DefaultRequestTimeout.
	RequestTimeout time.Duration
	// NAT, when set, maps the listening port on a gateway and tells the
	// external address (--nat-method=UPNP); nil advertises Host.
	NAT nat.Interface
	// NetRestrict, when set, limits the peers dialed, accepted and
	// discovered to these subnets (--net-restrict).
	NetRestrict *netutil.Netlist
	// Banned are node IDs refused as peers (--banned-node-ids).
	Banned map[enode.ID]bool
	// Protocols are devp2p sub-protocols run beside eth on every
	// connection: the consensus engine's (consensus.ProtocolProvider, e.g.
	// IBFT 2.0's). Their names must differ from eth's and from each other's
	// at the same version.
	Protocols []gethp2p.Protocol
	// MessageNames optionally names the message codes of Protocols, by
	// protocol name, for the p2p message metrics (codes stand in for names
	// otherwise).
	MessageNames map[string]func(code uint64) string
	// Metrics receives the service's metrics (peers, p2p messages in and
	// out, best known block, in sync); nil means none.
	Metrics *metrics.Registry
	// PeerHasBlock, when set, tells which peers hold a block without an
	// announcement (consensus.BlockHolders: BFT validators that sent a
	// commit for it); blocks are not announced to them.
	PeerHasBlock func(peer enode.ID, hash common.Hash) bool
	// Permissions, when set, is the nodes allowlist: the service neither
	// dials nor keeps a connection with a node it does not permit
	// (--permissions-nodes-config-file-enabled).
	Permissions NodeChecker
}

// Miner is paused while the node syncs (nil when there is none).
type Miner interface {
	SetPaused(paused bool)
}

// Service is the running peer-to-peer network of a node.
type Service struct {
	cfg    Config
	chain  *chain.Chain
	pool   *txpool.Pool
	miner  Miner
	log    *slog.Logger
	server *gethp2p.Server
	syncer *chainsync.Syncer
	filter forkid.Filter

	genesisBlock *types.Block

	mu     sync.RWMutex
	peers  map[string]*eth.Peer
	static map[enode.ID]*enode.Node
	// dialing are the static nodes a dial of staticLoop is under way to:
	// one at a time each, however long a handshake takes on a busy machine.
	dialing map[enode.ID]bool
	// peerHeads holds, by peer ID, the head number a peer is known to have
	// (learnt when a sync from it starts); BestKnownBlock reads it.
	peerHeads map[string]uint64

	metrics serviceMetrics

	syncStatus atomic.Pointer[SyncStatus] // non-nil while syncing
	syncReqs   chan syncRequest
	blocks     chan blockJob

	fetchMu       sync.Mutex
	fetchingTxs   map[common.Hash]struct{}
	fetchingBlock map[common.Hash]struct{}
	txQueues      map[*eth.Peer]*txFetchQueue
	fetchSlots    chan struct{} // block fetches

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started atomic.Bool
}

// SyncStatus is the progress of a running sync (eth_syncing).
type SyncStatus struct {
	StartingBlock uint64
	HighestBlock  uint64
}

// New builds the service; Start runs it.
func New(cfg Config, c *chain.Chain, pool *txpool.Pool, miner Miner, log *slog.Logger) (*Service, error) {
	if cfg.PrivateKey == nil {
		return nil, errors.New("p2p: node key missing")
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.ReconnectInterval <= 0 {
		cfg.ReconnectInterval = DefaultReconnectInterval
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = eth.DefaultRequestTimeout
	}
	s := &Service{
		cfg:           cfg,
		chain:         c,
		pool:          pool,
		miner:         miner,
		log:           log,
		syncer:        chainsync.New(c, log),
		peers:         make(map[string]*eth.Peer),
		peerHeads:     make(map[string]uint64),
		static:        make(map[enode.ID]*enode.Node),
		syncReqs:      make(chan syncRequest, 16),
		blocks:        make(chan blockJob, 64),
		fetchingTxs:   make(map[common.Hash]struct{}),
		fetchingBlock: make(map[common.Hash]struct{}),
		txQueues:      make(map[*eth.Peer]*txFetchQueue),
		fetchSlots:    make(chan struct{}, 16),
	}
	// The fork ID is computed from the genesis block as go-ethereum and Besu
	// do; for the engines Basalt runs today (ethash, beacon) the chain's
	// block hash is the plain header hash.
	s.genesisBlock = types.NewBlockWithHeader(c.Genesis())
	s.filter = forkid.NewFilter(forkChain{s})
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.registerMetrics(cfg.Metrics)

	protocols, err := s.protocols()
	if err != nil {
		return nil, err
	}
	listen := net.JoinHostPort(cfg.Interface, strconv.Itoa(cfg.Port))
	// Discovery advertises --p2p-host, as the enode URL does.
	natm := cfg.NAT
	if ip := net.ParseIP(cfg.Host); natm == nil && ip != nil && !ip.IsUnspecified() {
		natm = nat.ExtIP(ip)
	}
	s.server = &gethp2p.Server{Config: gethp2p.Config{
		PrivateKey:     cfg.PrivateKey,
		MaxPeers:       cfg.MaxPeers,
		Name:           cfg.Name,
		NoDiscovery:    !cfg.Discovery,
		DiscoveryV4:    cfg.Discovery,
		BootstrapNodes: cfg.Bootnodes,
		Protocols:      protocols,
		ListenAddr:     listen,
		NAT:            natm,
		NetRestrict:    cfg.NetRestrict,
		Logger:         gethLogger(log),
	}}
	if cfg.Permissions != nil {
		s.server.Dialer = &permittedDialer{s: s, d: net.Dialer{Timeout: serverDialTimeout}}
	}
	return s, nil
}

// protocols is what the server runs on each connection: every eth version
// Basalt speaks, then the extra sub-protocols of Config.Protocols.
func (s *Service) protocols() ([]gethp2p.Protocol, error) {
	var protocols []gethp2p.Protocol
	for _, v := range eth.ProtocolVersions {
		protocols = append(protocols, s.guarded(gethp2p.Protocol{
			Name:    eth.ProtocolName,
			Version: v,
			Length:  eth.ProtocolLength(v),
			Run: func(p *gethp2p.Peer, rw gethp2p.MsgReadWriter) error {
				peer := eth.NewPeer(v, p, rw, s.log)
				peer.SetRequestTimeout(s.cfg.RequestTimeout)
				return eth.Run(s, peer)
			},
		}, eth.MessageName))
	}
	seen := map[gethp2p.Cap]bool{}
	for _, p := range s.cfg.Protocols {
		c := gethp2p.Cap{Name: p.Name, Version: p.Version}
		switch {
		case p.Name == eth.ProtocolName:
			return nil, fmt.Errorf("p2p: sub-protocol %s clashes with Basalt's eth", c)
		case seen[c]:
			return nil, fmt.Errorf("p2p: sub-protocol %s given twice", c)
		case p.Run == nil || p.Length == 0:
			return nil, fmt.Errorf("p2p: sub-protocol %s has no handler or no messages", c)
		}
		seen[c] = true
		protocols = append(protocols, s.guarded(p, s.cfg.MessageNames[p.Name]))
	}
	return protocols, nil
}

// guarded is a sub-protocol as the server runs it: metered, and behind the
// ban list and the nodes allowlist when there are any. Every sub-protocol is
// guarded, not only eth: a peer may speak only a consensus protocol.
func (s *Service) guarded(p gethp2p.Protocol, names func(uint64) string) gethp2p.Protocol {
	p = s.metered(p, names)
	if s.cfg.Permissions != nil || len(s.cfg.Banned) > 0 {
		p = s.guard(p)
	}
	return p
}

// gethLogger routes go-ethereum's p2p logs into the node's logger, one
// level quieter: its Info lines are Basalt's Debug.
func gethLogger(log *slog.Logger) gethlog.Logger {
	return gethlog.NewLogger(quieter{log.Handler()})
}

type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return q.Handler.Enabled(ctx, l-4)
}

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level -= 4
	return q.Handler.Handle(ctx, r)
}

// Start opens the listener and discovery and starts the service's loops.
func (s *Service) Start() error {
	if err := s.server.Start(); err != nil {
		return fmt.Errorf("start p2p on %s: %w", s.server.ListenAddr, err)
	}
	s.started.Store(true)
	for _, n := range s.cfg.StaticNodes {
		s.AddStatic(n)
	}
	s.spawn(s.syncLoop)
	s.spawn(s.importLoop)
	s.spawn(s.headLoop)
	s.spawn(s.txLoop)
	s.spawn(s.staticLoop)
	s.log.Info("P2P network started", "enode", s.Enode(), "listen", s.server.ListenAddr)
	return nil
}

func (s *Service) spawn(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// Stop disconnects every peer and stops the service. It is safe to call
// more than once and on a service that never started.
func (s *Service) Stop() {
	s.cancel()
	if s.started.Load() {
		s.server.Stop()
	}
	s.wg.Wait()
	s.setSyncing(nil)
}

// Running reports whether the server is up.
func (s *Service) Running() bool { return s.started.Load() && s.ctx.Err() == nil }

// PeerCount is the number of peers that completed the eth handshake.
func (s *Service) PeerCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.peers)
}

// BestKnownBlock is the highest block number known to exist: the local
// head, or the head of a connected peer the node started to sync from, if
// higher (the /readiness check and ethereum_best_known_block_number).
func (s *Service) BestKnownBlock() uint64 {
	best := s.chain.CurrentHeader().Number.Uint64()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, n := range s.peerHeads {
		best = max(best, n)
	}
	return best
}

// InSync reports whether the node has caught up with the best known peer,
// within the tolerance a sync needs to count as one (Besu's in-sync
// tolerance).
func (s *Service) InSync() bool {
	return s.BestKnownBlock() <= s.chain.CurrentHeader().Number.Uint64()+syncTolerance
}

// notePeerNumber records the head number of a connected peer.
func (s *Service) notePeerNumber(p *eth.Peer, number uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.peers[p.ID()]; ok {
		s.peerHeads[p.ID()] = number
	}
}

// forgetPeerNumber drops what is known of a peer's head (it did not serve
// the head it claimed).
func (s *Service) forgetPeerNumber(p *eth.Peer) {
	s.mu.Lock()
	delete(s.peerHeads, p.ID())
	s.mu.Unlock()
}

// Self is the local node (with the advertised host and actual ports).
func (s *Service) Self() *enode.Node { return s.server.Self() }

// ListenPort returns the TCP port the server listens on.
func (s *Service) ListenPort() int {
	if addr, ok := s.listenAddr(); ok {
		return addr.Port
	}
	return s.cfg.Port
}

func (s *Service) listenAddr() (*net.TCPAddr, bool) {
	if !s.started.Load() {
		return nil, false
	}
	addr, err := net.ResolveTCPAddr("tcp", s.server.ListenAddr)
	if err != nil {
		return nil, false
	}
	return addr, true
}

// DiscoveryPort returns the UDP discovery port: the listening port, which
// discovery shares (and which the enode URL reports when discovery is off).
func (s *Service) DiscoveryPort() int {
	if s.started.Load() && s.cfg.Discovery {
		if udp := s.Self().UDP(); udp != 0 {
			return udp
		}
	}
	return s.ListenPort()
}

// peerList returns the registered peers.
func (s *Service) peerList() []*eth.Peer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*eth.Peer, 0, len(s.peers))
	for _, p := range s.peers {
		out = append(out, p)
	}
	return out
}

// --- eth.Backend ---

// Chain is the chain requests are served from.
func (s *Service) Chain() eth.Chain { return s.chain }

// Status is the local handshake status.
func (s *Service) Status() eth.Status {
	head := s.chain.CurrentHeader()
	return eth.Status{
		NetworkID: s.cfg.NetworkID,
		TD:        s.chain.CurrentTD(),
		Head:      s.chain.CurrentHash(),
		Genesis:   s.chain.GenesisHash(),
		ForkID:    forkid.NewID(s.chain.Config(), s.genesisBlock, head.Number.Uint64(), head.Time),
	}
}

// CheckForkID validates a peer's fork ID (EIP-2124).
func (s *Service) CheckForkID(id forkid.ID) error { return s.filter(id) }

// PooledTx returns a pooled transaction.
func (s *Service) PooledTx(hash common.Hash) *types.Transaction { return s.pool.Get(hash) }

// PeerConnected registers a peer after its handshake.
func (s *Service) PeerConnected(p *eth.Peer) error {
	if s.cfg.Banned[p.Peer().ID()] {
		// go-ethereum's server has no ban list: a banned node is dropped at
		// the eth handshake, before it is a peer for anything.
		s.log.Debug("Banned node refused", "peer", p.ID()[:16])
		return gethp2p.DiscUselessPeer
	}
	s.mu.Lock()
	if _, dup := s.peers[p.ID()]; dup {
		s.mu.Unlock()
		return gethp2p.DiscAlreadyConnected
	}
	s.peers[p.ID()] = p
	s.mu.Unlock()
	s.metrics.connected.Inc()
	head, td := p.Head()
	s.log.Debug("Peer connected", "peer", p.ID()[:16], "name", p.Peer().Name(), "eth", p.Version(), "td", td)
	switch c := td.Cmp(s.chain.CurrentTD()); {
	case c > 0:
		s.requestSync(nil, common.Hash{})
	case c == 0 && head != s.chain.CurrentHash():
		// An equally heavy head on another branch: proof-of-authority
		// signers that sealed competing blocks while apart, each unable
		// to extend its own. Fetching it lets fork choice settle both
		// nodes on the same head (Clique's EIP-3436 tie-break), where
		// keeping each its own would stall the chain for good.
		s.requestSync(p, head)
	}
	// Tell the new peer what the pool holds, as hashes: this is also how
	// the transactions the journal replayed at start-up, before any peer
	// was connected, reach the network.
	p.AsyncSendPooledHashes(s.pooledForAnnouncement())
	return nil
}

// PeerDisconnected unregisters a peer.
func (s *Service) PeerDisconnected(p *eth.Peer) {
	s.mu.Lock()
	delete(s.peers, p.ID())
	delete(s.peerHeads, p.ID())
	s.mu.Unlock()
	s.forgetTxQueue(p)
	s.metrics.disconnected.Inc()
	s.log.Debug("Peer disconnected", "peer", p.ID()[:16])
}

// forkChain adapts the chain to forkid.Blockchain.
type forkChain struct{ s *Service }

func (f forkChain) Config() *params.ChainConfig  { return f.s.chain.Config() }
func (f forkChain) Genesis() *types.Block        { return f.s.genesisBlock }
func (f forkChain) CurrentHeader() *types.Header { return f.s.chain.CurrentHeader() }

// tdOf returns the stored total difficulty of a block, or nil.
func (s *Service) tdOf(hash common.Hash, number uint64) *big.Int {
	return s.chain.GetTD(hash, number)
}
