package node

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"
	"github.com/ethereum/go-ethereum/p2p/nat"
	"github.com/ethereum/go-ethereum/p2p/netutil"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/p2p"
)

// newP2P builds the peer-to-peer service from the --p2p-* options, the
// static nodes file (--static-nodes-file, default
// <data-path>/static-nodes.json), --nat-method, --net-restrict and
// --banned-node-ids; nil when --p2p-enabled=false.
func newP2P(n *Node) (*p2p.Service, error) {
	cfg := n.cfg.P2P
	if !cfg.Enabled {
		return nil, nil
	}
	file := cfg.StaticNodesFile
	if file == "" {
		file = filepath.Join(n.cfg.DataPath, p2p.StaticNodesFile)
	}
	// With --Xdns-enabled (Besu's switch for host names in enode URLs) the
	// file may name hosts, as a Kubernetes StatefulSet's peers are named.
	var static []*enode.Node
	var hosts map[enode.ID]string
	var err error
	if n.cfg.Permissions.DNSEnabled {
		static, hosts, err = p2p.LoadStaticNodesDNS(file)
	} else {
		static, err = p2p.LoadStaticNodes(file)
	}
	if err != nil {
		return nil, err
	}
	var restrict *netutil.Netlist
	if len(cfg.NetRestrict) > 0 {
		cidrs := make([]string, len(cfg.NetRestrict))
		for i, s := range cfg.NetRestrict {
			if !strings.Contains(s, "/") { // one address
				if strings.Contains(s, ":") {
					s += "/128"
				} else {
					s += "/32"
				}
			}
			cidrs[i] = s
		}
		if restrict, err = netutil.ParseNetlist(strings.Join(cidrs, ",")); err != nil {
			return nil, fmt.Errorf("--net-restrict: %w", err) // validated by config.Load already
		}
	}
	banned := make(map[enode.ID]bool, len(cfg.BannedNodeIDs))
	for _, id := range cfg.BannedNodeIDs {
		pub, err := hex.DecodeString(id)
		if err != nil || len(pub) != 64 {
			return nil, fmt.Errorf("--banned-node-ids: %q is not a node ID", id)
		}
		banned[enode.ID(crypto.Keccak256Hash(pub))] = true
	}
	var natm nat.Interface
	if cfg.NATMethod == "UPNP" || cfg.NATMethod == "UPNPP2PONLY" {
		natm = nat.UPnP()
	}
	if !cfg.DiscoveryEnabled && len(cfg.Bootnodes) > 0 {
		// Bootnodes only seed discovery: say so rather than leave an
		// operator wondering why the node finds no peers (Besu's warning).
		n.log.Warn("Discovery disabled: bootnodes will be ignored.", "bootnodes", len(cfg.Bootnodes))
	}
	var bootnodes []*enode.Node
	for _, u := range cfg.Bootnodes {
		b, err := enodeurl.Parse(u) // validated by config.Load already
		if err != nil {
			return nil, err
		}
		bootnodes = append(bootnodes, b)
	}
	return p2p.New(p2p.Config{
		PrivateKey:        n.key,
		Host:              cfg.Host,
		Interface:         cfg.Interface,
		Port:              cfg.Port,
		MaxPeers:          cfg.MaxPeers,
		Discovery:         cfg.DiscoveryEnabled,
		Bootnodes:         bootnodes,
		StaticNodes:       static,
		StaticHosts:       hosts,
		NetworkID:         n.cfg.NetworkID,
		Name:              n.clientID(),
		ReconnectInterval: cfg.StaticReconnectInterval,
		Protocols:         n.caps.p2pProtocols(),
		PeerHasBlock:      n.caps.peerHasBlock(),
		NAT:               natm,
		NetRestrict:       restrict,
		Banned:            banned,
		Metrics:           n.metrics,
		Permissions:       nodeChecker(n.perms),
	}, n.chain, n.pool, n.miner, n.log)
}

// P2P returns the node's peer-to-peer service, nil when it is disabled.
func (n *Node) P2P() *p2p.Service { return n.p2p }

// networkService is the peer-to-peer service as the backend sees it (the
// ADMIN peer methods, net_listening, net_peerCount, net_enode, the "p2p"
// entry of net_services and the sync progress of eth_syncing and
// GraphQL's syncing); nil with p2p disabled, and the node is then never
// synchronising.
func (n *Node) networkService() *networkAPI {
	if n.p2p == nil {
		return nil
	}
	return &networkAPI{s: n.p2p, config: p2p.GenesisConfig(n.cfg.Genesis, n.cfg.Network == config.NetworkDev)}
}

// networkAPI adapts the service to backend.Network.
type networkAPI struct {
	s      *p2p.Service
	config map[string]any
}

func (a *networkAPI) Running() bool                 { return a.s.Running() }
func (a *networkAPI) Listening() bool               { return a.s.Running() }
func (a *networkAPI) PeerCount() int                { return a.s.PeerCount() }
func (a *networkAPI) Self() *enode.Node             { return a.s.Self() }
func (a *networkAPI) AddPeer(n *enode.Node) bool    { return a.s.AddStatic(n) }
func (a *networkAPI) RemovePeer(n *enode.Node) bool { return a.s.RemoveStatic(n) }

func (a *networkAPI) Enode() (string, error) {
	if !a.s.Running() {
		return "", backend.ErrP2PNotRunning
	}
	return a.s.Enode(), nil
}

func (a *networkAPI) SyncProgress() *backend.SyncStatus {
	start, cur, high, ok := a.s.Syncing()
	if !ok {
		return nil
	}
	return &backend.SyncStatus{StartingBlock: start, CurrentBlock: cur, HighestBlock: high}
}

func (a *networkAPI) Service() backend.Service {
	info := a.s.NodeInfo()
	return backend.Service{Host: info.IP, Port: strconv.Itoa(info.ListenerPort)}
}

func (a *networkAPI) NodeInfo() backend.NodeInfo {
	info := a.s.NodeInfo()
	return backend.NodeInfo{
		Enode:      info.Enode,
		ID:         info.ID,
		IP:         info.IP,
		ListenAddr: info.ListenAddr,
		Name:       info.Name,
		Ports:      backend.NodePorts{Discovery: info.DiscoveryPort, Listener: info.ListenerPort},
		Protocols: backend.NodeProtocols{Eth: backend.EthNodeInfo{
			Config:     a.config,
			Difficulty: info.Difficulty,
			Genesis:    info.Genesis,
			Head:       info.Head,
			Network:    info.NetworkID,
		}},
	}
}

func (a *networkAPI) Peers() []backend.PeerInfo {
	peers := a.s.Peers()
	out := make([]backend.PeerInfo, len(peers))
	for i, p := range peers {
		out[i] = backend.PeerInfo{
			Version: hexutil.Uint64(p.Version),
			Name:    p.Name,
			Caps:    p.Caps,
			Network: backend.PeerNetwork{LocalAddress: p.LocalAddress, RemoteAddress: p.RemoteAddress},
			Port:    hexutil.Uint64(p.Port),
			ID:      "0x" + p.ID,
			Protocols: map[string]backend.PeerProtocol{"eth": {
				Difficulty: (*hexutil.Big)(p.Difficulty),
				Head:       p.Head,
				Version:    p.EthVersion,
			}},
			Enode: p.Enode,
		}
	}
	return out
}
