// Package api holds the node's backend — the services every front end
// calls (Backend: state reads, calls, submissions, gas prices, logs, sync
// progress) and the domain errors they answer — and the JSON-RPC methods
// on it, one file per API group. GraphQL (package graphql) calls the same
// services with Go values; JSON-RPC methods decode their parameters, call
// them and encode the answers. Each front end maps the domain errors once
// (jsonrpcerrors.go here). No method reaches storage except through the
// node's services (chain, pool, miner).
package api

import (
	"context"

	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/permissioning"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/txpool"

	"github.com/basaltchain/basalt/rpctypes"
)

// TxPool is what the services need from the transaction pool
// (*txpool.Pool).
type TxPool interface {
	// Submit submits a local transaction and answers once it is as
	// durable as the node makes it (the node's submitter: pooled, and
	// journaled when the journal is on, with a JSON-RPC batch's journal
	// writes shared); a refusal is a *txpool.Error.
	Submit(ctx context.Context, tx *types.Transaction) error
	// PendingNonce is the nonce after the sender's pooled transactions.
	PendingNonce(addr common.Address) uint64
	// Get returns a pooled transaction, nil if the pool has none by hash.
	Get(hash common.Hash) *types.Transaction
	// Transactions lists the pooled transactions with their senders.
	Transactions() []txpool.TxInfo
	// Len is the number of pooled transactions.
	Len() int
	// Stats are the pool's counters (txpool_besuStatistics, txpool_status).
	Stats() txpool.Stats
	// Content lists every sender's pending and queued transactions in
	// nonce order (txpool_content, txpool_inspect).
	Content() (pending, queued map[common.Address][]*types.Transaction)
	// ContentFrom lists addr's pending and queued transactions in nonce
	// order (txpool_contentFrom).
	ContentFrom(addr common.Address) (pending, queued []*types.Transaction)
}

// SyncStatus is the progress of a running synchronisation (eth_syncing).
type SyncStatus struct {
	StartingBlock uint64
	CurrentBlock  uint64
	HighestBlock  uint64
}

// Service is where one of the node's services listens (net_services).
type Service struct {
	Host string `json:"host"`
	Port string `json:"port"`
}

// Backend gives the methods access to the node's services.
type Backend struct {
	Chain         *chain.Chain
	Pool          TxPool
	Miner         *miner.Miner
	NetworkID     uint64
	ClientVersion string
	MinGasPrice   *big.Int
	// Hashrate reports the local hash rate (nil when the engine has none).
	Hashrate       func() uint64
	SubmitHashrate func(id common.Hash, rate uint64)
	// Syncing reports a running synchronisation; nil, or a nil result, means
	// the node is not synchronising. Front ends read it through
	// SyncProgress.
	Syncing func() *SyncStatus
	// Enode returns the node's enode URL; nil while peer-to-peer networking
	// is off (net_enode then answers Besu's "P2P has been disabled").
	Enode func() (string, error)
	// Services lists the enabled network services by name (jsonrpc, ws,
	// p2p, metrics, graphQL) for net_services.
	Services func() map[string]Service
	// Privacy is the privacy service (EEA and PRIV groups); nil when
	// privacy is off.
	Privacy *privacy.Service
	// Network is the peer-to-peer service (ADMIN peer methods, NET); nil
	// while --p2p-enabled=false.
	Network Network
	// Filters serves log queries (eth_getLogs, GraphQL logs), the filter
	// methods and eth_subscribe; nil leaves the JSON-RPC methods
	// unregistered and log queries answering ErrLogsUnavailable.
	Filters *filters.System
	// GasPriceOracle tunes eth_gasPrice and eth_maxPriorityFeePerGas
	// (--api-gas-price-*); nil means Besu's defaults.
	GasPriceOracle *GasPriceOracle
	// GasCap (--rpc-gas-cap) bounds the gas of eth_call, eth_estimateGas,
	// eth_createAccessList, debug_traceCall, priv_call, GraphQL's call and
	// estimateGas and each call of eth_simulateV1; 0 means the block's gas
	// limit (for eth_simulateV1, the simulated block's).
	GasCap uint64
	// EstimateTolerance (--estimate-gas-tolerance-ratio) ends
	// eth_estimateGas's search; 0 means Besu's 0.015.
	EstimateTolerance float64
	// RevertReasons (--revert-reason-enabled) adds revertReason to the
	// receipts of reverted transactions.
	RevertReasons bool
	// SimulateMaxBlocks (--rpc-simulate-max-blocks) bounds the blocks of
	// one eth_simulateV1 request; 0 means DefaultSimulateMaxBlocks.
	SimulateMaxBlocks uint64
	// SimulateGasCap (--rpc-simulate-gas-cap) bounds the gas all calls of
	// one eth_simulateV1 request use together; 0 means
	// DefaultSimulateGasCap.
	SimulateGasCap uint64
	// TraceLimit (--rpc-max-trace-size) bounds the bytes of one debug_trace
	// request's output; 0 means no limit.
	TraceLimit int
	// Permissions are the local allowlists (PERM, and admin_addPeer's
	// check); nil means neither is enabled.
	Permissions *permissioning.Allowlists
}

// headerFor resolves a block-or-hash parameter the way Besu's
// AbstractBlockParameterOrBlockHashMethod does: a negative number is an
// invalid block number, a block that does not exist (a number past the
// head, an unknown hash) is a nil header (the method answers null), and a
// hash that must be canonical but is not is ErrNotCanonical.
func (b *Backend) headerFor(p BlockParam) (*types.Header, common.Hash, error) {
	c := b.Chain
	switch {
	case p.Hash != nil:
		h := c.GetHeaderByHash(*p.Hash)
		if h == nil {
			return nil, common.Hash{}, nil
		}
		if p.RequireCanonical && c.GetCanonicalHash(h.Number.Uint64()) != *p.Hash {
			return nil, common.Hash{}, ErrNotCanonical
		}
		return h, *p.Hash, nil
	case p.Tag == rpctypes.TagEarliest:
		return c.Genesis(), c.GenesisHash(), nil
	case p.Tag != "":
		// latest, pending, safe and finalized are the head on these chains.
		return c.CurrentHeader(), c.CurrentHash(), nil
	case p.Number < 0:
		return nil, common.Hash{}, invalidParams(ParamBlockNumber, "")
	}
	h, hash := b.canonical(uint64(p.Number))
	return h, hash, nil
}

// headerForNumber resolves a plain block parameter (Besu's
// AbstractBlockParameterMethod); nil when there is no such block.
func (b *Backend) headerForNumber(p rpctypes.BlockNumber) (*types.Header, common.Hash) {
	c := b.Chain
	switch {
	case p.Tag == rpctypes.TagEarliest:
		return c.Genesis(), c.GenesisHash()
	case p.Tag != "":
		return c.CurrentHeader(), c.CurrentHash()
	case p.Number < 0:
		return nil, common.Hash{}
	}
	return b.canonical(uint64(p.Number))
}

func (b *Backend) canonical(n uint64) (*types.Header, common.Hash) {
	hash := b.Chain.GetCanonicalHash(n)
	if hash == (common.Hash{}) {
		return nil, hash
	}
	return b.Chain.GetHeader(hash, n), hash
}

// EnsureState makes the post-state of the block (header, hash) readable:
// the historic states of a bulk-imported chain are re-executed on first
// use. ErrWorldStateUnavailable when that fails.
func (b *Backend) EnsureState(header *types.Header, hash common.Hash) error {
	if err := b.Chain.EnsureState(hash, header); err != nil {
		return ErrWorldStateUnavailable
	}
	return nil
}

// stateOf opens a private copy of the block's post-state.
func (b *Backend) stateOf(header *types.Header, hash common.Hash) (*state.StateDB, error) {
	if err := b.EnsureState(header, hash); err != nil {
		return nil, err
	}
	st, err := b.Chain.ReadState(header.Root)
	if err != nil {
		return nil, ErrWorldStateUnavailable
	}
	return st, nil
}

// Account reads addr in the post-state of the block (header, hash); a
// missing account reads as empty.
func (b *Backend) Account(header *types.Header, hash common.Hash, addr common.Address) (*types.StateAccount, error) {
	if err := b.EnsureState(header, hash); err != nil {
		return nil, err
	}
	acct, err := b.Chain.Account(header.Root, addr)
	if err != nil {
		return nil, ErrWorldStateUnavailable
	}
	return acct, nil
}

// Code is the code of addr, whose account acct was read from the
// post-state of header (Account); empty for an account without code.
func (b *Backend) Code(header *types.Header, addr common.Address, acct *types.StateAccount) ([]byte, error) {
	codeHash := common.BytesToHash(acct.CodeHash)
	if codeHash == types.EmptyCodeHash || codeHash == (common.Hash{}) {
		return []byte{}, nil
	}
	rd, err := b.Chain.StateReader(header.Root)
	if err != nil {
		return nil, ErrWorldStateUnavailable
	}
	return rd.Code(addr, codeHash), nil
}

// Storage reads the storage slot key of addr in the post-state of the
// block (header, hash).
func (b *Backend) Storage(header *types.Header, hash common.Hash, addr common.Address, key common.Hash) (common.Hash, error) {
	if err := b.EnsureState(header, hash); err != nil {
		return common.Hash{}, err
	}
	rd, err := b.Chain.StateReader(header.Root)
	if err != nil {
		return common.Hash{}, ErrWorldStateUnavailable
	}
	v, err := rd.Storage(addr, key)
	if err != nil {
		return common.Hash{}, ErrWorldStateUnavailable
	}
	return v, nil
}
