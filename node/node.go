// Package node assembles a running Basalt node from a config.Config: the
// database, chain, consensus engine, transaction pool, miner and the
// JSON-RPC front end, and owns their lifecycle.
package node

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/beacon"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/consensus/ethash"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/internal/version"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/p2p"
	"github.com/basaltchain/basalt/permissioning"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/goquorum"
	"github.com/basaltchain/basalt/txpool"
)

// clientID is how the node names itself (web3_clientVersion,
// admin_nodeInfo, the devp2p handshake): config.Config.ClientID, which Load
// sets from --identity and the build's version.
func (n *Node) clientID() string {
	if n.cfg.ClientID != "" {
		return n.cfg.ClientID
	}
	return version.ClientID(config.ClientName, n.cfg.Identity) // a Config built without Load
}

// Node is a running node.
type Node struct {
	cfg     *config.Config
	log     *slog.Logger
	key     *ecdsa.PrivateKey
	db      ethdb.Database
	engine  consensus.Engine
	caps    engineCaps // what the engine can do beyond consensus.Engine
	chain   *chain.Chain
	pool    *txpool.Pool
	txStore *txStore // the pool's journal and save file
	// submit is how every source submits a local transaction (journaled
	// when the journal is on).
	submit  *submitter
	miner   *miner.Miner
	backend *backend.Backend // what every front end calls
	rpc     *rpcServers
	graphql *graphQLServer
	p2p     *p2p.Service              // nil when --p2p-enabled=false
	perms   *permissioning.Allowlists // nil unless --permissions-*-config-file-enabled

	metrics       *metrics.Registry // nil with metrics off
	metricsServer *metrics.Server   // nil unless --metrics-enabled
	pusher        *metrics.Pusher   // nil unless --metrics-push-enabled

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// DatabaseDir is where the node keeps its database inside the data path.
func DatabaseDir(dataPath string) string { return filepath.Join(dataPath, "database") }

// EngineEnv is what an engine may need from the node besides the genesis:
// the node key (Clique seals with it), the database (Clique keeps signer
// snapshots in it) and the logger. The zero value gives an engine that
// only verifies and keeps nothing on disk.
type EngineEnv struct {
	Key *ecdsa.PrivateKey
	DB  ethdb.KeyValueStore
	Log *slog.Logger
	// Clock is the consensus clock (the wall clock when nil; skewed by
	// --Xclock-offset-milliseconds).
	Clock consensus.Clock
}

// NewEngine returns the consensus engine the genesis asks for, able to
// verify but not to seal with a key and keeping nothing on disk (see
// NewEngineWith).
func NewEngine(g *config.Genesis) (consensus.Engine, error) {
	return NewEngineWith(g, EngineEnv{})
}

// NewEngineWith returns the consensus engine the genesis asks for, with
// Besu's precedence when it names several (ethash, ibft2, qbft, clique).
// Ethash and Clique are wrapped in the beacon engine so imported post-merge
// blocks verify too.
func NewEngineWith(g *config.Genesis, env EngineEnv) (consensus.Engine, error) {
	switch g.Consensus {
	case "ibft2":
		if g.QBFT != nil && g.QBFT.StartBlock > 0 {
			// A migration: IBFT 2.0 up to the block before, QBFT from it.
			return qbft.New(g, ibft2.Options{Key: env.Key, Clock: env.Clock})
		}
		return ibft2.New(g, ibft2.Options{Key: env.Key, Clock: env.Clock})
	case "qbft":
		return qbft.New(g, ibft2.Options{Key: env.Key, Clock: env.Clock})
	case "clique":
		return newCliqueEngine(g, env)
	}
	return beacon.New(ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty})), nil
}

// newCliqueEngine makes the Clique engine of g, refusing a genesis whose
// extraData lists no signer (no block could ever be sealed).
func newCliqueEngine(g *config.Genesis, env EngineEnv) (consensus.Engine, error) {
	ex, err := clique.ParseExtra(g.Core.ExtraData)
	if err != nil {
		return nil, fmt.Errorf("clique genesis extraData: %w", err)
	}
	if len(ex.Signers) == 0 {
		return nil, errors.New("clique genesis extraData lists no signer")
	}
	cc := g.Clique
	e := clique.New(clique.Config{
		Period:            cc.BlockPeriodSeconds,
		Epoch:             cc.EpochLength,
		CreateEmptyBlocks: cc.CreateEmptyBlocks,
	}, clique.Options{Key: env.Key, DB: env.DB, Log: env.Log, Clock: env.Clock})
	return beacon.New(e), nil
}

// OpenChain opens the database and chain of a data path; the caller closes
// both (subcommands such as `blocks import` use it without a node). Its
// engine verifies only. With priv enabled the chain executes private
// transactions (openChain). opts are the parameters of the chain's block
// executor.
func OpenChain(dataPath string, g *config.Genesis, priv config.PrivacyConfig, opts ...chain.ExecOption) (ethdb.Database, *chain.Chain, error) {
	db, c, _, err := openChain(dataPath, g, NewEngineWith, EngineEnv{}, priv, opts...)
	return db, c, err
}

// openChain opens the database, makes the engine on it with env and opens
// the chain, with the engine's fork chooser if it has one and opts for its
// block executor. With priv enabled the chain also gets the privacy
// precompile and, as its block hook, the processor of private
// transactions over the database's private state, which it returns; the
// privacy manager must answer /upcheck: without it the first private
// transaction would stop the chain.
func openChain(dataPath string, g *config.Genesis, newEngine engineFactory, env EngineEnv, priv config.PrivacyConfig,
	opts ...chain.ExecOption) (ethdb.Database, *chain.Chain, *chainHooks, error) {
	dir := DatabaseDir(dataPath)
	db, err := chain.OpenDatabase(dir, 256)
	if err != nil {
		if inUse(err) {
			return nil, nil, nil, fmt.Errorf("data path %s is in use: another basalt holds its lock %s; stop that one, or give this node its own --data-path",
				dataPath, filepath.Join(dir, "LOCK"))
		}
		return nil, nil, nil, err
	}
	hooks := &chainHooks{}
	if priv.Enabled {
		if hooks.privacy, err = newPrivacyProcessor(priv, db, env.Log); err != nil {
			db.Close()
			return nil, nil, nil, err
		}
		opts = append([]chain.ExecOption{chain.WithPrecompile(priv.PrecompiledAddress, privacy.Precompile{}), chain.WithBlockHook(hooks.privacy)}, opts...)
	}
	if priv.PTMURL != "" {
		if !g.Quorum {
			db.Close()
			return nil, nil, nil, errors.New("--ptm-url needs a GoQuorum network: a genesis with \"isQuorum\": true")
		}
		if hooks.goQuorum, err = newGoQuorumProcessor(priv.PTMURL, db, env.Log); err != nil {
			db.Close()
			return nil, nil, nil, err
		}
		opts = append(opts, chain.WithBlockHook(hooks.goQuorum))
	}
	if g.Quorum {
		// A GoQuorum network (genesis isQuorum): its private transactions
		// are valid here, with GoQuorum's public effects.
		opts = append(opts, chain.WithGoQuorumPrivate())
	}
	env.DB = db
	engine, err := newEngine(g, env)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	c, err := chain.Open(db, g.Core, engine, opts...)
	if err != nil {
		engine.Close()
		db.Close()
		return nil, nil, nil, err
	}
	if fc := capabilitiesOf(engine).forkChooser; fc != nil {
		c.SetForkChooser(fc)
	}
	return db, c, hooks, nil
}

// inUse reports whether opening the database failed because another
// process (or another node in this one) holds its lock: Pebble's flock
// fails with EAGAIN ("resource temporarily unavailable"), which says
// nothing about why, or, within one process, "lock held by current
// process".
func inUse(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) ||
		strings.Contains(err.Error(), syscall.EAGAIN.Error()) || strings.Contains(err.Error(), "lock held by current process")
}

// engineFactory makes the node's consensus engine (NewEngineWith; tests
// give engines of their own).
type engineFactory func(*config.Genesis, EngineEnv) (consensus.Engine, error)

// New opens the node's storage and builds its services; Start runs them.
func New(cfg *config.Config, log *slog.Logger, opts ...Option) (*Node, error) {
	return newNode(cfg, log, NewEngineWith, opts...)
}

// newNode is New with the engine made by newEngine (tests give engines of
// their own, with capabilities the real ones do not have yet).
func newNode(cfg *config.Config, log *slog.Logger, newEngine engineFactory, opts ...Option) (*Node, error) {
	if log == nil {
		log = slog.Default()
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	g, err := cfg.RequireGenesis()
	if err != nil {
		return nil, err
	}
	key, err := LoadOrCreateKey(cfg.NodePrivateKeyFile)
	if err != nil {
		return nil, err
	}
	perms, err := loadPermissions(cfg)
	if err != nil {
		return nil, err
	}
	if perms.AccountsEnabled() {
		o.exec = append(o.exec, accountPolicy(perms))
	}
	if cfg.Privacy.Enabled {
		if err := cfg.FreeGasError(); err != nil {
			return nil, err
		}
	}
	// The pool is made after the chain (it starts from the chain's head),
	// so the chain's lookup of recovered senders reaches it through pooled.
	var pooled atomic.Pointer[txpool.Pool]
	o.exec = append(o.exec, chain.WithKnownTxs(func(h common.Hash) *types.Transaction {
		if p := pooled.Load(); p != nil {
			return p.Get(h)
		}
		return nil
	}))
	db, c, hooks, err := openChain(cfg.DataPath, g, newEngine, EngineEnv{Key: key, Log: log, Clock: consensus.OffsetClock(cfg.ClockOffset)}, cfg.Privacy, o.exec...)
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: log, key: key, db: db, chain: c, engine: c.Engine(), caps: capabilitiesOf(c.Engine()),
		metrics: newRegistry(cfg.Metrics), perms: perms}
	n.caps.setMetrics(n.metrics)
	perms.SetMetrics(n.metrics)
	n.registerChainMetrics()
	st, err := c.State()
	if err != nil {
		n.closeStorage()
		return nil, fmt.Errorf("open head state: %w", err)
	}
	poolCfg := poolConfig(cfg)
	poolCfg.Metrics = n.metrics
	n.pool, err = txpool.New(poolCfg, c.Config(), c.CurrentHeader(), newStateView(st))
	if err != nil {
		n.closeStorage()
		return nil, err
	}
	pooled.Store(n.pool)
	if perms.AccountsEnabled() {
		n.pool.SetSenderFilter(perms.AccountPermitted)
	}
	// After the allowlist: a replayed transaction is checked like a new one.
	if n.txStore, err = openTxStore(cfg, n.pool, log); err != nil {
		n.pool.Close()
		n.closeStorage()
		return nil, err
	}
	n.submit = newSubmitter(n.pool, n.txStore)
	n.miner = miner.New(c, poolSource{n.pool}, miner.Config{
		Coinbase:  n.coinbase(),
		ExtraData: cfg.Miner.ExtraData,
		Clock:     consensus.OffsetClock(cfg.ClockOffset),
		GasTarget: cfg.Miner.TargetGasLimit,
		PoW:       n.caps.pow,
		Scheduler: n.caps.scheduler,
		Producer:  n.caps.producer,
	}, log)
	if n.p2p, err = newP2P(n); err != nil {
		n.txStore.abort()
		n.pool.Close()
		n.closeStorage()
		return nil, err
	}
	if n.p2p != nil && perms.NodesEnabled() {
		perms.OnNodesChanged(n.p2p.DropUnpermitted)
	}
	n.backend = newBackend(n)
	if cfg.Privacy.Enabled {
		if n.backend.Privacy, err = n.newPrivacy(hooks.privacy); err != nil {
			n.txStore.abort()
			n.pool.Close()
			n.closeStorage()
			return nil, err
		}
	}
	if hooks.goQuorum != nil {
		n.backend.GoQuorum = goquorum.NewService(hooks.goQuorum, c, log)
		if n.backend.Filters != nil {
			n.backend.Filters.SetPrivateLogs(n.backend.GoQuorum)
		}
	}
	n.rpc, err = newRPCServers(n)
	if err == nil {
		n.graphql, err = newGraphQLServer(n)
	}
	if err != nil {
		n.txStore.abort()
		n.pool.Close()
		n.closeStorage()
		return nil, err
	}
	return n, nil
}

// Start runs the node's services: the head follower, the RPC servers and,
// with --miner-enabled or an engine that seals with the node key (Clique),
// the miner.
func (n *Node) Start() error {
	n.ctx, n.cancel = context.WithCancel(context.Background())
	// Metrics first, so a start-up that stalls later can be watched.
	if err := n.startMetrics(); err != nil {
		n.Close()
		return err
	}
	heads := make(chan chain.HeadEvent, 64)
	sub := n.chain.SubscribeHead(heads)
	txs := make(chan txpool.NewTxsEvent, 64)
	txSub := n.pool.SubscribeNewTxs(txs)
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer sub.Unsubscribe()
		defer txSub.Unsubscribe()
		n.followHead(heads, txs)
	}()
	// Peer-to-peer before the front ends, so they report a running network.
	if n.p2p != nil {
		if err := n.p2p.Start(); err != nil {
			n.Close()
			return err
		}
	}
	// The filter system follows the chain and the pool for the polling
	// filters and subscriptions, which only JSON-RPC serves; log queries
	// (GraphQL's too) need no events.
	if n.rpc.serving() {
		n.backend.Filters.Start()
	}
	if s := n.backend.Privacy; s != nil {
		n.wg.Add(1)
		go func() { defer n.wg.Done(); s.Run(n.ctx) }()
	}
	// GraphQL first: a client that sees JSON-RPC answer finds GraphQL up.
	if err := n.graphql.start(); err != nil {
		n.Close()
		return err
	}
	if err := n.rpc.start(); err != nil {
		n.Close()
		return err
	}
	if n.cfg.Miner.Enabled || n.sealsWithKey() {
		if err := n.miner.Start(); err != nil {
			n.Close()
			return fmt.Errorf("start miner: %w", err)
		}
	}
	head := n.chain.CurrentHeader()
	n.log.Info("Node started", "version", n.clientID(), "chainId", n.chain.Config().ChainID, "head", head.Number,
		"hash", n.chain.CurrentHash().Hex(), "genesis", n.chain.GenesisHash().Hex())
	return nil
}

// poolConfig is the transaction pool's configuration from the --tx-pool-*
// options, --min-gas-price and --rpc-tx-feecap. A Config built without Load
// (tests) leaves some of them zero: those get the pool's defaults.
func poolConfig(cfg *config.Config) txpool.Config {
	pc := txpool.DefaultConfig()
	pc.GoQuorumPrivate = cfg.Genesis != nil && cfg.Genesis.Quorum
	pc.MaxSize = cfg.TxPool.MaxSize
	pc.MinGasPrice = cfg.MinGasPrice
	if cfg.TxPool.MinGasPrice != nil {
		pc.MinGasPrice = cfg.TxPool.MinGasPrice
	}
	pc.Retention = time.Duration(cfg.TxPool.RetentionHours) * time.Hour
	if cfg.TxPool.Implementation != "" { // set by Load, with the price bump
		pc.PriceBump = cfg.TxPool.PriceBump
	}
	if cfg.TxPool.MaxFutureNonceGap > 0 {
		pc.MaxFutureNonceGap = cfg.TxPool.MaxFutureNonceGap
	}
	if cfg.TxPool.TxFeeCap != nil {
		pc.TxFeeCap = cfg.TxPool.TxFeeCap
	}
	pc.NoLocalPriority = cfg.TxPool.NoLocalPriority
	pc.StrictReplayProtection = cfg.TxPool.StrictReplayProtection
	return pc
}

// sealsWithKey reports whether the engine seals with the node key (Clique):
// then the node produces blocks without --miner-enabled, as Besu does, and
// the engine decides on each head whether the key may seal.
func (n *Node) sealsWithKey() bool {
	if n.caps.sealer == nil {
		return false
	}
	_, ok := n.caps.sealer.SealerAddress()
	return ok
}

// coinbase is --miner-coinbase or, for an engine that seals with the node
// key, the key's address (Besu's Clique coinbase), which receives the fees
// of the blocks the node seals.
func (n *Node) coinbase() *common.Address {
	if cb := n.cfg.Miner.Coinbase; cb != nil {
		return cb
	}
	if n.caps.sealer != nil {
		if a, ok := n.caps.sealer.SealerAddress(); ok {
			return &a
		}
	}
	return nil
}

// followHead keeps the pool in step with the chain head, and tells the
// miner when the pool takes transactions.
func (n *Node) followHead(heads <-chan chain.HeadEvent, txs <-chan txpool.NewTxsEvent) {
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-txs:
			n.miner.TransactionsArrived()
		case ev := <-heads:
			st, err := n.chain.StateAt(ev.Header.Root)
			if err != nil {
				n.log.Error("Head state unavailable", "number", ev.Header.Number, "err", err)
				continue
			}
			n.pool.Reset(ev.Header, newStateView(st), reorgedTxs(ev))
			n.txStore.afterHead()
		}
	}
}

// reorgedTxs are the transactions of blocks that left the canonical chain
// and are not in the blocks that replaced them.
func reorgedTxs(ev chain.HeadEvent) []*types.Transaction {
	if len(ev.Removed) == 0 {
		return nil
	}
	included := make(map[common.Hash]struct{})
	for _, b := range ev.Added {
		for _, tx := range b.Transactions() {
			included[tx.Hash()] = struct{}{}
		}
	}
	var out []*types.Transaction
	for i := len(ev.Removed) - 1; i >= 0; i-- {
		for _, tx := range ev.Removed[i].Transactions() {
			if _, ok := included[tx.Hash()]; !ok {
				out = append(out, tx)
			}
		}
	}
	return out
}

// Close stops every service and closes the storage. It is safe to call more
// than once.
func (n *Node) Close() error {
	if n.cancel != nil {
		n.cancel()
	}
	if n.p2p != nil {
		n.p2p.Stop()
	}
	if n.backend != nil && n.backend.Privacy != nil {
		n.backend.Privacy.Processor().Stop() // a block waiting for the manager gives up
	}
	if n.backend != nil && n.backend.GoQuorum != nil {
		n.backend.GoQuorum.Processor().Stop()
	}
	n.miner.Stop()
	n.rpc.stop()
	n.graphql.stop()
	n.stopMetrics()
	if n.backend != nil {
		n.backend.Filters.Stop()
	}
	n.wg.Wait()
	if n.txStore != nil {
		n.txStore.close()
	}
	n.pool.Close()
	return n.closeStorage()
}

func (n *Node) closeStorage() error {
	if n.db == nil {
		return nil
	}
	n.chain.Close()
	n.engine.Close()
	err := n.db.Close()
	n.db = nil
	return err
}

// Chain returns the node's chain.
func (n *Node) Chain() *chain.Chain { return n.chain }

// Pool returns the node's transaction pool.
func (n *Node) Pool() *txpool.Pool { return n.pool }

// Miner returns the node's miner.
func (n *Node) Miner() *miner.Miner { return n.miner }

// stateView adapts a StateDB to the pool's State. StateDB caches what it
// reads and is not safe for concurrent use, so reads are serialised.
type stateView struct {
	mu *sync.Mutex
	st *state.StateDB
}

func newStateView(st *state.StateDB) stateView { return stateView{mu: new(sync.Mutex), st: st} }

func (s stateView) Nonce(a common.Address) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.GetNonce(a)
}

func (s stateView) Balance(a common.Address) *uint256.Int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return new(uint256.Int).Set(s.st.GetBalance(a))
}

// poolSource adapts the pool's iterator to the miner's TxSource.
type poolSource struct{ p *txpool.Pool }

func (s poolSource) PendingIterator(baseFee *big.Int) miner.TxIterator {
	return poolIterator{s.p.Pending(baseFee)}
}

// Get returns the pooled transaction with hash h (see miner.TxLookup).
func (s poolSource) Get(h common.Hash) *types.Transaction { return s.p.Get(h) }

type poolIterator struct{ it *txpool.Iterator }

func (i poolIterator) Peek() *types.Transaction { tx, _ := i.it.Peek(); return tx }
func (i poolIterator) Shift()                   { i.it.Shift() }
func (i poolIterator) Pop()                     { i.it.Pop() }
