package node

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/filters"
)

// newBackend builds the node's one backend: the services every front end
// calls — JSON-RPC over HTTP and WebSocket, and GraphQL — wired once to the
// chain, the pool, the miner, the engine's proof of work and the
// peer-to-peer service (sync progress, peers, enode), with the one filter
// system behind log queries, filters and subscriptions. Building it per
// front end let them drift apart (GraphQL's syncing, never wired to the
// network, always answered null).
func newBackend(n *Node) *backend.Backend {
	b := &backend.Backend{
		Chain:       n.chain,
		Pool:        n.submit,
		Miner:       n.miner,
		Filters:     filters.New(n.chain, n.pool, filters.Config{MaxLogsRange: n.cfg.RPC.MaxLogsRange, Logger: n.log}),
		Permissions: n.perms,
		// The JSON-RPC listeners are built after the backend; net_services
		// reads them when asked.
		Listeners: listeners{n},
		Config:    n.backendConfig(),
	}
	if pow := n.caps.pow; pow != nil {
		b.PoW = powRate{pow}
	}
	if net := n.networkService(); net != nil {
		b.Network, b.Sync = net, net
	}
	return b
}

// backendConfig is the settings of the services from the node's options:
// the client ID, the gas price oracle, the simulation gas caps, the
// estimate tolerance, revert reasons in receipts and the trace limit.
func (n *Node) backendConfig() backend.Config {
	cfg := n.cfg
	out := backend.Config{
		NetworkID:         cfg.NetworkID,
		ClientVersion:     n.clientID(),
		MinGasPrice:       cfg.MinGasPrice,
		GasCap:            cfg.API.GasCap,
		EstimateTolerance: cfg.API.EstimateGasToleranceRatio,
		RevertReasons:     cfg.RevertReasonEnabled,
		SimulateMaxBlocks: cfg.API.SimulateMaxBlocks,
		SimulateGasCap:    cfg.API.SimulateGasCap,
		TraceLimit:        cfg.RPC.MaxTraceSize,
	}
	if cfg.API.GasPriceMax != nil { // set by config.Load; a Config built by hand keeps Besu's defaults
		out.GasPriceOracle = &backend.GasPriceOracle{Blocks: cfg.API.GasPriceBlocks, Percentile: cfg.API.GasPricePercentile, Max: cfg.API.GasPriceMax}
	}
	return out
}

// listeners are the node's own servers for net_services.
type listeners struct{ n *Node }

func (l listeners) Services() map[string]backend.Service { return l.n.rpc.services() }

// powRate is the engine's proof of work as the services read it.
type powRate struct{ pow consensus.PoW }

func (p powRate) Hashrate() uint64                           { return uint64(p.pow.Hashrate()) }
func (p powRate) SubmitHashrate(id common.Hash, rate uint64) { p.pow.SubmitHashrate(id, rate) }
