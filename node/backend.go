package node

import (
	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/filters"
)

// newBackend builds the node's one backend: the services every front end
// calls — JSON-RPC over HTTP and WebSocket, and GraphQL — wired once to the
// chain, the pool, the miner, the engine's proof of work and the
// peer-to-peer service (sync progress, peers, enode), with the one filter
// system behind log queries, filters and subscriptions. Building it per
// front end let them drift apart (GraphQL's syncing, never wired to the
// network, always answered null).
func newBackend(n *Node) *api.Backend {
	cfg := n.cfg
	b := &api.Backend{
		Chain:         n.chain,
		Pool:          n.submit,
		Miner:         n.miner,
		NetworkID:     cfg.NetworkID,
		ClientVersion: n.clientID(),
		MinGasPrice:   cfg.MinGasPrice,
		Filters:       filters.New(n.chain, n.pool, filters.Config{MaxLogsRange: cfg.RPC.MaxLogsRange, Logger: n.log}),
		Permissions:   n.perms,
	}
	if pow := n.caps.pow; pow != nil {
		b.Hashrate = func() uint64 { return uint64(pow.Hashrate()) }
		b.SubmitHashrate = pow.SubmitHashrate
	}
	// The JSON-RPC listeners are built after the backend; net_services
	// reads them when asked.
	b.Services = func() map[string]api.Service { return n.rpc.services() }
	n.wireNetwork(b)
	n.tuneBackend(b)
	return b
}

// tuneBackend sets the options of the methods on a backend of the node's
// front ends: the client ID, the gas price oracle, the simulation gas cap,
// the estimate tolerance and revert reasons in receipts.
func (n *Node) tuneBackend(b *api.Backend) {
	cfg := n.cfg
	b.ClientVersion = n.clientID()
	if cfg.API.GasPriceMax != nil { // set by config.Load; a Config built by hand keeps Besu's defaults
		b.GasPriceOracle = &api.GasPriceOracle{Blocks: cfg.API.GasPriceBlocks, Percentile: cfg.API.GasPricePercentile, Max: cfg.API.GasPriceMax}
	}
	b.GasCap = cfg.API.GasCap
	b.SimulateMaxBlocks, b.SimulateGasCap = cfg.API.SimulateMaxBlocks, cfg.API.SimulateGasCap
	b.EstimateTolerance = cfg.API.EstimateGasToleranceRatio
	b.RevertReasons = cfg.RevertReasonEnabled
	b.TraceLimit = cfg.RPC.MaxTraceSize
}
