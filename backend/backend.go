// Package backend holds the node's services that every front end calls —
// state reads, calls, submissions, gas prices, logs, sync progress, the
// peer-to-peer view — and the domain errors they answer. Inputs and
// results are plain Go values (addresses, *big.Int, []byte, headers);
// nothing here knows a wire format. The JSON-RPC groups (package api)
// decode their parameters into these values, call the services and encode
// the answers; GraphQL (package graphql) resolves its fields on the same
// services. Neither front end reaches storage except through them.
//
// The optional parts of a node are capabilities: a component either
// implements its small interface (Network, Syncer, PoW, Listeners) and is set, or
// is absent (nil), and the services answer what the node answers without
// it.
package backend

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
	"github.com/basaltchain/basalt/privacy/goquorum"
	"github.com/basaltchain/basalt/txpool"
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

// PoW is the consensus engine's proof of work as the services see it:
// present only when the engine mines with proof of work.
type PoW interface {
	// Hashrate is the local plus recently reported remote hash rate, in
	// hashes per second.
	Hashrate() uint64
	// SubmitHashrate records the rate a remote miner (id) reports.
	SubmitHashrate(id common.Hash, rate uint64)
}

// Syncer reports the node's synchronisation (the peer-to-peer service's).
type Syncer interface {
	// SyncProgress is the progress of a running synchronisation, nil when
	// the node is not synchronising.
	SyncProgress() *SyncStatus
}

// Listeners lists where the node's own servers listen (JSON-RPC,
// WebSocket, GraphQL, metrics), by service name, for net_services. The
// peer-to-peer listener is the Network's.
type Listeners interface {
	Services() map[string]Service
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

// Config holds the node's settings the services read.
type Config struct {
	// NetworkID is the network id (net_version).
	NetworkID uint64
	// ClientVersion is the client id (web3_clientVersion, admin_nodeInfo).
	ClientVersion string
	// MinGasPrice (--min-gas-price) floors the gas price suggestions; nil
	// means 0.
	MinGasPrice *big.Int
	// GasPriceOracle tunes the gas price and priority fee suggestions
	// (--api-gas-price-*); nil means Besu's defaults.
	GasPriceOracle *GasPriceOracle
	// GasCap (--rpc-gas-cap) bounds the gas of every simulated call
	// (eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall,
	// priv_call, GraphQL's call and estimateGas, each call of
	// eth_simulateV1); 0 means the block's gas limit (for eth_simulateV1,
	// the simulated block's).
	GasCap uint64
	// EstimateTolerance (--estimate-gas-tolerance-ratio) ends the gas
	// estimate's search; 0 means Besu's 0.015.
	EstimateTolerance float64
	// RevertReasons (--revert-reason-enabled) adds revert reasons to the
	// receipts of reverted transactions.
	RevertReasons bool
	// SimulateMaxBlocks (--rpc-simulate-max-blocks) bounds the blocks of
	// one multi-block simulation; 0 means DefaultSimulateMaxBlocks.
	SimulateMaxBlocks uint64
	// SimulateGasCap (--rpc-simulate-gas-cap) bounds the gas all calls of
	// one multi-block simulation use together; 0 means
	// DefaultSimulateGasCap.
	SimulateGasCap uint64
	// TraceLimit (--rpc-max-trace-size) bounds the bytes of one trace's
	// output; 0 means no limit.
	TraceLimit int
}

// Backend is the node's services, built once by the node and shared by
// every front end.
type Backend struct {
	Chain *chain.Chain
	// Pool is the node's transaction submitter; nil for a node without a
	// pool (submissions answer ErrPoolDisabled).
	Pool  TxPool
	Miner *miner.Miner
	// Privacy is the privacy service (EEA and PRIV groups); nil when
	// privacy is off.
	Privacy *privacy.Service
	// GoQuorum is a GoQuorum party's private state and payloads (--ptm-url
	// on a GoQuorum network); nil otherwise.
	GoQuorum *goquorum.Service
	// Network is the peer-to-peer service (peers, enode); nil while
	// --p2p-enabled=false.
	Network Network
	// Sync reports a running synchronisation; nil means the node never
	// synchronises (no peer-to-peer networking).
	Sync Syncer
	// Filters serves log queries, filters and subscriptions; nil leaves
	// log queries answering ErrLogsUnavailable.
	Filters *filters.System
	// Permissions are the local allowlists; nil means neither is enabled.
	Permissions *permissioning.Allowlists
	// PoW is the engine's proof of work; nil when the engine has none.
	PoW PoW
	// Listeners are the node's own servers; nil lists none.
	Listeners Listeners
	// Config holds the settings.
	Config Config
}

// Canonical returns the canonical header of block n and its hash; nil when
// there is no such block.
func (b *Backend) Canonical(n uint64) (*types.Header, common.Hash) {
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

// StateOf opens a private copy of the block's post-state.
func (b *Backend) StateOf(header *types.Header, hash common.Hash) (*state.StateDB, error) {
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
