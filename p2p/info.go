package p2p

import (
	"encoding/json"
	"math/big"
	"net"
	"sort"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
)

// baseProtocolVersion is the devp2p version go-ethereum's p2p speaks, which
// admin_peers reports as each peer's "version".
const baseProtocolVersion = 5

// NodeInfo describes the local node (admin_nodeInfo).
type NodeInfo struct {
	Enode         string // enode URL, see Enode
	ID            string // 128 hex digits, no 0x
	IP            string // the advertised host
	ListenAddr    string // host:port
	Name          string // client name
	ListenerPort  int
	DiscoveryPort int
	// The eth protocol's view of the chain.
	NetworkID  uint64
	Difficulty *big.Int // total difficulty of the head
	Genesis    common.Hash
	Head       common.Hash
}

// PeerInfo describes a connected peer (admin_peers).
type PeerInfo struct {
	Version       uint64 // devp2p version
	Name          string
	Caps          []string
	LocalAddress  string
	RemoteAddress string
	Port          int    // the peer's TCP port as we know it
	ID            string // 128 hex digits, no 0x
	Enode         string
	EthVersion    uint
	Difficulty    *big.Int // total difficulty of its head, as far as known
	Head          common.Hash
}

// advertisedHost is the host of the local enode URL: --p2p-host, or "[::]"
// when that is an unspecified address (0.0.0.0 or ::), which is how Besu
// shows a node that advertises no routable address.
func (s *Service) advertisedHost() string {
	ip := net.ParseIP(s.cfg.Host)
	if ip != nil && ip.IsUnspecified() {
		return "[::]"
	}
	return s.cfg.Host
}

// Enode is the local enode URL: the node ID, --p2p-host and the actual
// listening port (and ?discport= when discovery listens elsewhere).
func (s *Service) Enode() string {
	return enodeurl.Format(s.Self(), s.advertisedHost(), s.ListenPort(), s.DiscoveryPort())
}

// NodeInfo returns the local node's description.
func (s *Service) NodeInfo() NodeInfo {
	host := s.advertisedHost()
	port := s.ListenPort()
	listen := net.JoinHostPort(host, strconv.Itoa(port))
	if host == "[::]" {
		listen = host + ":" + strconv.Itoa(port)
	}
	return NodeInfo{
		Enode:         s.Enode(),
		ID:            enodeurl.ID(s.Self()),
		IP:            host,
		ListenAddr:    listen,
		Name:          s.cfg.Name,
		ListenerPort:  port,
		DiscoveryPort: s.DiscoveryPort(),
		NetworkID:     s.cfg.NetworkID,
		Difficulty:    s.chain.CurrentTD(),
		Genesis:       s.chain.GenesisHash(),
		Head:          s.chain.CurrentHash(),
	}
}

// Peers describes the connected eth peers, ordered by ID.
func (s *Service) Peers() []PeerInfo {
	peers := s.peerList()
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID() < peers[j].ID() })
	out := make([]PeerInfo, 0, len(peers))
	for _, p := range peers {
		dp := p.Peer()
		node := dp.Node()
		var caps []string
		for _, c := range dp.Caps() {
			caps = append(caps, c.String())
		}
		head, td := p.Head()
		host := ""
		if ip := node.IP(); ip != nil {
			host = ip.String()
		}
		out = append(out, PeerInfo{
			Version:       baseProtocolVersion,
			Name:          dp.Name(),
			Caps:          caps,
			LocalAddress:  dp.LocalAddr().String(),
			RemoteAddress: dp.RemoteAddr().String(),
			Port:          node.TCP(),
			ID:            enodeurl.ID(node),
			Enode:         enodeurl.Format(node, host, node.TCP(), node.TCP()),
			EthVersion:    p.Version(),
			Difficulty:    td,
			Head:          head,
		})
	}
	return out
}

// GenesisConfig renders a genesis's fork configuration the way Besu's
// admin_nodeInfo shows it (GenesisConfigOptions.asMap): chainId, every
// scheduled fork under its Besu key, and the engine's options (ethash's
// fixeddifficulty; clique's epochLength, blockPeriodSeconds and
// createemptyblocks).
//
// The dev network lists the fields of Besu's dev network the API
// documents name (daoForkBlock and daoForkSupport included, all at block 0):
// Basalt's dev network has every fork from genesis, and the DAO fork at
// block 0 changes nothing (its state change and extra-data rule apply from
// block 1 only when scheduled there, which they are not).
func GenesisConfig(g *config.Genesis, devNetwork bool) map[string]any {
	c := g.ChainConfig()
	m := map[string]any{}
	if c.ChainID != nil {
		m["chainId"] = c.ChainID
	}
	blocks := []struct {
		key string
		n   *big.Int
	}{
		{"homesteadBlock", c.HomesteadBlock},
		{"eip150Block", c.EIP150Block},
		{"eip155Block", c.EIP155Block},
		{"eip158Block", c.EIP158Block},
		{"byzantiumBlock", c.ByzantiumBlock},
		{"constantinopleBlock", c.ConstantinopleBlock},
		{"constantinopleFixBlock", c.PetersburgBlock},
		{"petersburgBlock", c.PetersburgBlock},
		{"istanbulBlock", c.IstanbulBlock},
		{"muirGlacierBlock", c.MuirGlacierBlock},
		{"berlinBlock", c.BerlinBlock},
		{"londonBlock", c.LondonBlock},
		{"arrowGlacierBlock", c.ArrowGlacierBlock},
		{"grayGlacierBlock", c.GrayGlacierBlock},
		{"mergeNetSplitBlock", c.MergeNetsplitBlock},
	}
	for _, b := range blocks {
		if b.n != nil {
			m[b.key] = b.n
		}
	}
	switch {
	case c.DAOForkBlock != nil:
		m["daoForkBlock"] = c.DAOForkBlock
		m["daoForkSupport"] = c.DAOForkSupport
	case devNetwork:
		m["daoForkBlock"] = 0
		m["daoForkSupport"] = true
	}
	times := []struct {
		key string
		t   *uint64
	}{
		{"shanghaiTime", c.ShanghaiTime},
		{"cancunTime", c.CancunTime},
		{"pragueTime", c.PragueTime},
		{"osakaTime", c.OsakaTime},
	}
	for _, t := range times {
		if t.t != nil {
			m[t.key] = *t.t
		}
	}
	if c.TerminalTotalDifficulty != nil {
		m["terminalTotalDifficulty"] = c.TerminalTotalDifficulty
	}
	if g.ContractSizeLimit != 0 {
		m["contractSizeLimit"] = g.ContractSizeLimit
	}
	if g.EVMStackSize != 0 {
		m["evmStackSize"] = g.EVMStackSize
	}
	if ic := g.IBFT2; ic != nil {
		m["ibft2"] = bftOptions(ic)
	}
	if qc := g.QBFT; qc != nil {
		q := bftOptions(&qc.IBFT2Config)
		if qc.StartBlock > 0 {
			q["startBlock"] = qc.StartBlock
		}
		if qc.ValidatorContractAddress != nil {
			q["validatorContractAddress"] = qc.ValidatorContractAddress.Hex()
		}
		m["qbft"] = q
	}
	if cc := g.Clique; cc != nil {
		// Besu's CliqueConfigOptions.asMap, key spellings included.
		m["clique"] = map[string]any{
			"epochLength":        cc.EpochLength,
			"blockPeriodSeconds": cc.BlockPeriodSeconds,
			"createemptyblocks":  cc.CreateEmptyBlocks,
		}
	}
	if c.Ethash != nil || g.Consensus == "ethash" {
		ethash := map[string]any{}
		if g.FixedDifficulty != nil {
			ethash["fixeddifficulty"] = g.FixedDifficulty
		}
		m["ethash"] = ethash
	}
	return m
}

// bftOptions is Besu's BftConfigOptions.asMap (config.ibft2, config.qbft):
// the options the genesis sets, in camel case.
func bftOptions(ic *config.IBFT2Config) map[string]any {
	var raw map[string]any
	_ = json.Unmarshal(ic.Raw, &raw)
	out := map[string]any{}
	for _, o := range []struct {
		key, name string
		v         uint64
	}{
		{"epochlength", "epochLength", ic.EpochLength},
		{"blockperiodseconds", "blockPeriodSeconds", ic.BlockPeriodSeconds},
		{"xblockperiodmilliseconds", "xBlockPeriodMilliSeconds", ic.BlockPeriodMilliseconds}, // Besu's spelling
		{"requesttimeoutseconds", "requestTimeoutSeconds", ic.RequestTimeoutSeconds},
		{"gossipedhistorylimit", "gossipedHistoryLimit", ic.GossipedHistoryLimit},
		{"messagequeuelimit", "messageQueueLimit", ic.MessageQueueLimit},
		{"duplicatemessagelimit", "duplicateMessageLimit", ic.DuplicateMessageLimit},
		{"futuremessageslimit", "futureMessagesLimit", ic.FutureMessagesLimit},
		{"futuremessagesmaxdistance", "futureMessagesMaxDistance", ic.FutureMessagesMaxDistance},
		{"emptyblockperiodseconds", "emptyBlockPeriodSeconds", ic.EmptyBlockPeriodSeconds},
	} {
		if _, ok := raw[o.key]; ok {
			out[o.name] = o.v
		}
	}
	return out
}
