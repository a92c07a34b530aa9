package node

import (
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gethp2p "github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpctypes"
)

// engineCaps are the capabilities of the node's consensus engine beyond
// consensus.Engine, each handed to the service that uses it: PoW to the
// miner (remote work) and the ETH group (eth_hashrate), the scheduler and
// producer to the miner, the RPC groups to the JSON-RPC registry, the
// sub-protocols to the p2p service, the key sealer to the node's start-up
// (it runs the miner) and the fork chooser to the chain store. capabilitiesOf is the one place the
// node looks at what its engine can do; nothing else asks which engine it
// runs on.
type engineCaps struct {
	pow       consensus.PoW
	scheduler consensus.Scheduler
	producer  consensus.Producer
	apis      apiProvider
	protocols consensus.ProtocolProvider
	// holders tells the p2p service which peers hold a block (BFT).
	holders consensus.BlockHolders
	// sealer, when set, seals with the node key (Clique): the node runs the
	// miner without --miner-enabled and defaults the coinbase to the key.
	sealer consensus.KeySealer
	// forkChooser breaks ties of total difficulty in the chain store.
	forkChooser consensus.ForkChooser
	// instrumented are every layer that exports metrics of its own.
	instrumented []metrics.Instrumented
}

// apiProvider is an engine that serves JSON-RPC method groups of its own
// (Clique's CLIQUE, IBFT 2.0's IBFT, QBFT's QBFT). The node registers them
// beside the groups of its services; --rpc-http-api / --rpc-ws-api enable
// them like any other group. It is declared here, where it is looked up,
// rather than beside the other capabilities in consensus, so that the
// interface package imports no JSON-RPC types.
type apiProvider interface {
	// APIs returns the engine's groups, reading the chain through chain.
	APIs(chain consensus.ChainHeadReader) []rpctypes.Group
}

// capabilitiesOf looks the capability interfaces up on the engine and, for a
// consensus.Wrapper, on the engines it wraps: the outermost provider of each
// wins, except that every layer's Scheduler is consulted (the beacon stops
// sealing at the merge whatever its inner engine would allow).
func capabilitiesOf(e consensus.Engine) engineCaps {
	var (
		caps       engineCaps
		schedulers []consensus.Scheduler
	)
	for e != nil {
		if c, ok := e.(consensus.PoW); ok && caps.pow == nil {
			caps.pow = c
		}
		if c, ok := e.(consensus.Producer); ok && caps.producer == nil {
			caps.producer = c
		}
		if c, ok := e.(apiProvider); ok && caps.apis == nil {
			caps.apis = c
		}
		if c, ok := e.(consensus.ProtocolProvider); ok && caps.protocols == nil {
			caps.protocols = c
		}
		if c, ok := e.(consensus.BlockHolders); ok && caps.holders == nil {
			caps.holders = c
		}
		if c, ok := e.(consensus.KeySealer); ok && caps.sealer == nil {
			caps.sealer = c
		}
		if c, ok := e.(consensus.ForkChooser); ok && caps.forkChooser == nil {
			caps.forkChooser = c
		}
		if c, ok := e.(consensus.Scheduler); ok {
			schedulers = append(schedulers, c)
		}
		if c, ok := e.(metrics.Instrumented); ok {
			caps.instrumented = append(caps.instrumented, c)
		}
		w, ok := e.(consensus.Wrapper)
		if !ok {
			break
		}
		e = w.Inner()
	}
	switch len(schedulers) {
	case 0:
	case 1:
		caps.scheduler = schedulers[0]
	default:
		caps.scheduler = schedulerChain(schedulers)
	}
	return caps
}

// setMetrics hands the node's registry (nil with metrics off) to every
// layer of the engine that exports metrics.
func (c engineCaps) setMetrics(r *metrics.Registry) {
	for _, i := range c.instrumented {
		i.SetMetrics(r)
	}
}

// rpcGroups returns the engine's JSON-RPC groups (none without an
// apiProvider).
func (c engineCaps) rpcGroups(chain consensus.ChainHeadReader) []rpctypes.Group {
	if c.apis == nil {
		return nil
	}
	return c.apis.APIs(chain)
}

// p2pProtocols returns the engine's devp2p sub-protocols (none without a
// ProtocolProvider).
func (c engineCaps) p2pProtocols() []gethp2p.Protocol {
	if c.protocols == nil {
		return nil
	}
	return c.protocols.Protocols()
}

// peerHasBlock returns the engine's BlockHolders lookup (nil without one).
func (c engineCaps) peerHasBlock() func(enode.ID, common.Hash) bool {
	if c.holders == nil {
		return nil
	}
	return c.holders.PeerHasBlock
}

// schedulerChain consults schedulers from the outermost engine in: the first
// refusal wins, otherwise the latest time any of them asks for.
type schedulerChain []consensus.Scheduler

// NextSeal asks every scheduler, outermost first.
func (s schedulerChain) NextSeal(chain consensus.ChainReader, parent *types.Header, now time.Time) (time.Time, error) {
	var at time.Time
	for _, sc := range s {
		t, err := sc.NextSeal(chain, parent, now)
		if err != nil {
			return time.Time{}, err
		}
		if t.After(at) {
			at = t
		}
	}
	return at, nil
}

// engineGroups are the JSON-RPC groups only a consensus engine provides, by
// the engine (as named in the log) that serves them.
var engineGroups = map[string]string{
	rpctypes.GroupClique: "clique",
	rpctypes.GroupIBFT:   "ibft2",
	rpctypes.GroupQBFT:   "qbft",
}

// unavailableReason says why the node has no method in an enabled group.
func unavailableReason(group string) string {
	if engine, ok := engineGroups[group]; ok {
		return "needs the " + engine + " consensus engine"
	}
	return "not implemented yet"
}
