package chain

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/consensus"
)

// OpenDatabase opens (creating if needed) the node's Pebble database in dir.
func OpenDatabase(dir string, cacheMB int) (ethdb.Database, error) {
	kv, err := pebble.New(dir, cacheMB, 256, "", false)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	return rawdb.NewDatabase(kv), nil
}

// NewMemoryDatabase returns an in-memory database, for tests and tools.
func NewMemoryDatabase() ethdb.Database { return rawdb.NewMemoryDatabase() }

// Chain is the block store of one node. Reads are safe for concurrent use;
// writes (InsertBlock) are serialised internally.
type Chain struct {
	db      ethdb.Database
	triedb  *triedb.Database
	stateDB state.Database
	config  *params.ChainConfig
	engine  consensus.Engine
	exec    *Executor

	genesis     *types.Header
	genesisHash common.Hash

	insertObserver atomic.Pointer[func(InsertStats)]

	mu       sync.Mutex // serialises writers
	states   stateWriter
	head     atomic.Pointer[headInfo]
	headFeed event.Feed

	// forkChooser breaks ties of total difficulty (SetForkChooser); nil
	// keeps the head on a tie.
	forkChooser consensus.ForkChooser
	// blockHook processes private transactions as blocks are inserted
	// (WithBlockHook); nil: none.
	blockHook BlockHook

	headerCache   *lru.Cache[common.Hash, *types.Header]
	bodyCache     *weightedCache[*types.Body]
	receiptsCache *weightedCache[types.Receipts]
	readers       readerCache // shared, cached readers of recent roots (readcache.go)

	bad badBlocks // invalid blocks refused, for debug_getBadBlocks
}

type headInfo struct {
	header *types.Header
	hash   common.Hash
	td     *big.Int
}

// Open opens the chain in db, writing genesis if the database is empty. An
// existing database must hold the same genesis block. opts are the
// parameters of the chain's block executor (extra precompiles, a tracer, a
// policy for the blocks it builds) and its block hook; they hold for every block the chain
// executes, including the ones Open re-executes to repair its state.
func Open(db ethdb.Database, genesis *core.Genesis, engine consensus.Engine, opts ...ExecOption) (*Chain, error) {
	if genesis == nil || genesis.Config == nil {
		return nil, errors.New("genesis without chain config")
	}
	if err := genesis.Config.CheckConfigForkOrder(); err != nil {
		return nil, fmt.Errorf("genesis config: %w", err)
	}
	// Hash scheme: every block's state is kept (archive), so historic state
	// queries work at any height. The clean cache spares Pebble lookups for
	// the trie nodes every block touches. Preimages: the tries key accounts
	// and slots by hash; recording each key's preimage at commit lets
	// debug_storageRangeAt and debug_accountRange name the slot or address,
	// as Besu's preimage storage does.
	tdb := triedb.NewDatabase(db, &triedb.Config{Preimages: true, HashDB: &hashdb.Config{CleanCacheSize: 256 << 20}})
	c := &Chain{
		states:        stateWriter{triedb: tdb},
		db:            db,
		triedb:        tdb,
		stateDB:       state.NewDatabase(tdb, state.NewCodeDB(db)),
		config:        genesis.Config,
		engine:        engine,
		headerCache:   lru.NewCache[common.Hash, *types.Header](2048),
		bodyCache:     newWeightedCache(blockCacheEntries, blockCacheWeight, bodyWeight),
		receiptsCache: newWeightedCache(blockCacheEntries, blockCacheWeight, receiptsWeight),
	}
	c.exec = NewExecutor(c.config, engine, c, opts...)
	c.blockHook = c.exec.opts.blockHook
	c.exec.opts.blockHook = nil
	gblock := genesis.ToBlock()
	c.genesis = gblock.Header()
	c.genesisHash = engine.Hash(c.genesis)

	if err := checkSchema(db); err != nil {
		return nil, err
	}
	stored := readCanonicalHash(db, 0)
	switch {
	case stored == (common.Hash{}):
		if err := c.writeGenesis(genesis, gblock); err != nil {
			return nil, err
		}
	case stored != c.genesisHash:
		return nil, fmt.Errorf("database holds genesis %s but the genesis file gives %s (use a new --data-path)", stored.Hex(), c.genesisHash.Hex())
	}
	if err := c.loadHead(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Chain) writeGenesis(g *core.Genesis, block *types.Block) error {
	st, err := state.New(types.EmptyRootHash, c.stateDB)
	if err != nil {
		return err
	}
	for addr, acc := range g.Alloc {
		if acc.Balance != nil {
			st.AddBalance(addr, uint256.MustFromBig(acc.Balance), tracing.BalanceIncreaseGenesisBalance)
		}
		st.SetCode(addr, acc.Code, tracing.CodeChangeGenesis)
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeGenesis)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
	}
	root, err := st.Commit(params.Rules{}, 0)
	if err != nil {
		return fmt.Errorf("commit genesis state: %w", err)
	}
	if root != block.Root() {
		return fmt.Errorf("genesis state root mismatch: %s != %s", root.Hex(), block.Root().Hex())
	}
	if err := c.triedb.Commit(root, false); err != nil {
		return fmt.Errorf("flush genesis state: %w", err)
	}
	batch := c.db.NewBatch()
	hash := c.genesisHash
	header := block.Header()
	if err := writeHeader(batch, hash, header); err != nil {
		return err
	}
	if err := writeBody(batch, hash, 0, block.Body()); err != nil {
		return err
	}
	if err := writeReceipts(batch, hash, 0, nil); err != nil {
		return err
	}
	if err := writeTD(batch, hash, 0, header.Difficulty); err != nil {
		return err
	}
	if err := batch.Put(canonicalKey(0), hash[:]); err != nil {
		return err
	}
	if err := batch.Put(keyHead, hash[:]); err != nil {
		return err
	}
	return batch.Write()
}

// loadHead reads the head pointer and makes sure the head's state is
// available, re-executing blocks after a crash in a bulk import.
func (c *Chain) loadHead() error {
	hash := readHeadHash(c.db)
	if hash == (common.Hash{}) {
		return errors.New("database has no head block")
	}
	number, ok := readNumber(c.db, hash)
	if !ok {
		return fmt.Errorf("head block %s missing", hash.Hex())
	}
	header := c.GetHeader(hash, number)
	if header == nil {
		return fmt.Errorf("head block %s missing", hash.Hex())
	}
	td := readTD(c.db, hash, number)
	if td == nil {
		return fmt.Errorf("total difficulty of head %s missing", hash.Hex())
	}
	if err := c.repairState(hash, header); err != nil {
		return err
	}
	c.head.Store(&headInfo{header: header, hash: hash, td: td})
	return nil
}

// repairState re-executes the blocks between the newest ancestor of the
// head whose state is on disk and the head, writing their states.
func (c *Chain) repairState(hash common.Hash, header *types.Header) error {
	n, err := c.regenerate(hash, header, 0)
	if n > 0 {
		log.Warn("Re-executed blocks whose state was not written", "head", header.Number, "count", n)
	}
	return err
}

// Close writes pending state and releases the chain's resources; the caller
// closes the database.
func (c *Chain) Close() error {
	err := c.Sync()
	if cerr := c.triedb.Close(); err == nil {
		err = cerr
	}
	return err
}

// SetForkChooser makes f decide between heads of equal total difficulty
// (see consensus.ForkChooser). Call it after Open, before inserting blocks.
func (c *Chain) SetForkChooser(f consensus.ForkChooser) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forkChooser = f
}

// Config returns the chain's fork configuration.
func (c *Chain) Config() *params.ChainConfig { return c.config }

// Engine returns the consensus engine.
func (c *Chain) Engine() consensus.Engine { return c.engine }

// Executor returns the chain's block executor, which the block builder and
// the call simulations share with the chain's own block processing.
func (c *Chain) Executor() *Executor { return c.exec }

// Hash returns the chain's hash of header (the engine's).
func (c *Chain) Hash(header *types.Header) common.Hash { return c.engine.Hash(header) }

// Genesis returns the genesis header.
func (c *Chain) Genesis() *types.Header { return c.genesis }

// GenesisHash returns the genesis block hash.
func (c *Chain) GenesisHash() common.Hash { return c.genesisHash }

// CurrentHeader returns the head header.
func (c *Chain) CurrentHeader() *types.Header { return c.head.Load().header }

// CurrentHash returns the head block hash.
func (c *Chain) CurrentHash() common.Hash { return c.head.Load().hash }

// CurrentTD returns the head's total difficulty.
func (c *Chain) CurrentTD() *big.Int { return new(big.Int).Set(c.head.Load().td) }

// GetHeader returns the header with the given hash and number, or nil.
func (c *Chain) GetHeader(hash common.Hash, number uint64) *types.Header {
	return readThrough(c.headerCache, hash, func() *types.Header { return readHeader(c.db, hash, number) })
}

// readThrough returns the cached value of hash or, on a miss, read's,
// caching it when found.
func readThrough[T any](cache *lru.Cache[common.Hash, *T], hash common.Hash, read func() *T) *T {
	if v, ok := cache.Get(hash); ok {
		return v
	}
	v := read()
	if v != nil {
		cache.Add(hash, v)
	}
	return v
}

// GetHeaderByHash returns the header with the given hash, or nil.
func (c *Chain) GetHeaderByHash(hash common.Hash) *types.Header {
	if h, ok := c.headerCache.Get(hash); ok {
		return h
	}
	return byHash(c, hash, c.GetHeader)
}

// GetHeaderByNumber returns the canonical header at number, or nil.
func (c *Chain) GetHeaderByNumber(number uint64) *types.Header {
	return byNumber(c, number, c.GetHeader)
}

// byHash is get of the stored block with hash, or nil.
func byHash[T any](c *Chain, hash common.Hash, get func(common.Hash, uint64) *T) *T {
	number, ok := readNumber(c.db, hash)
	if !ok {
		return nil
	}
	return get(hash, number)
}

// byNumber is get of the canonical block at number, or nil.
func byNumber[T any](c *Chain, number uint64, get func(common.Hash, uint64) *T) *T {
	hash := c.GetCanonicalHash(number)
	if hash == (common.Hash{}) {
		return nil
	}
	return get(hash, number)
}

// GetCanonicalHash returns the canonical block hash at number (zero if none).
func (c *Chain) GetCanonicalHash(number uint64) common.Hash {
	head := c.head.Load()
	if number > head.header.Number.Uint64() {
		return common.Hash{}
	}
	return readCanonicalHash(c.db, number)
}

// GetBody returns the body of the block with the given hash and number.
func (c *Chain) GetBody(hash common.Hash, number uint64) *types.Body {
	if b, ok := c.bodyCache.Get(hash); ok {
		return b
	}
	b := readBody(c.db, hash, number)
	if b != nil {
		c.bodyCache.Add(hash, b)
	}
	return b
}

// GetBlock assembles the block with the given hash and number, or nil.
func (c *Chain) GetBlock(hash common.Hash, number uint64) *types.Block {
	h := c.GetHeader(hash, number)
	if h == nil {
		return nil
	}
	b := c.GetBody(hash, number)
	if b == nil {
		return nil
	}
	return types.NewBlockWithHeader(h).WithBody(*b)
}

// GetBlockByHash returns the block with the given hash, or nil.
func (c *Chain) GetBlockByHash(hash common.Hash) *types.Block {
	return byHash(c, hash, c.GetBlock)
}

// GetBlockByNumber returns the canonical block at number, or nil.
func (c *Chain) GetBlockByNumber(number uint64) *types.Block {
	return byNumber(c, number, c.GetBlock)
}

// HasBlock reports whether the block is stored.
func (c *Chain) HasBlock(hash common.Hash, number uint64) bool {
	if c.headerCache.Contains(hash) {
		return true
	}
	ok, _ := c.db.Has(numHashKey(prefixHeader, number, hash))
	return ok
}

// GetTD returns the total difficulty of the block, or nil.
func (c *Chain) GetTD(hash common.Hash, number uint64) *big.Int {
	return readTD(c.db, hash, number)
}

// GetReceipts returns the receipts of a block with all derived fields set.
func (c *Chain) GetReceipts(hash common.Hash, number uint64) types.Receipts {
	if rs, ok := c.receiptsCache.Get(hash); ok {
		return rs
	}
	header := c.GetHeader(hash, number)
	body := c.GetBody(hash, number)
	if header == nil || body == nil {
		return nil
	}
	rs := readRawReceipts(c.db, hash, number)
	if rs == nil {
		return nil
	}
	var blobGasPrice *big.Int
	if header.ExcessBlobGas != nil {
		blobGasPrice = eip4844.CalcBlobFee(c.config, header)
	}
	if err := rs.DeriveFields(c.config, hash, number, header.Time, header.BaseFee, blobGasPrice, body.Transactions); err != nil {
		return nil
	}
	c.exec.derivePrivateFields(rs, body.Transactions)
	for _, r := range rs {
		r.Bloom = types.CreateBloom(r)
	}
	c.receiptsCache.Add(hash, rs)
	return rs
}

// TxLocation says where a canonical transaction is.
type TxLocation struct {
	BlockHash   common.Hash
	BlockNumber uint64
	Index       uint64
}

// GetTransaction finds a transaction of the canonical chain by hash.
func (c *Chain) GetTransaction(txHash common.Hash) (*types.Transaction, TxLocation, bool) {
	number, ok := readTxLookup(c.db, txHash)
	if !ok {
		return nil, TxLocation{}, false
	}
	hash := c.GetCanonicalHash(number)
	if hash == (common.Hash{}) {
		return nil, TxLocation{}, false
	}
	body := c.GetBody(hash, number)
	if body == nil {
		return nil, TxLocation{}, false
	}
	for i, tx := range body.Transactions {
		if tx.Hash() == txHash {
			return tx, TxLocation{BlockHash: hash, BlockNumber: number, Index: uint64(i)}, true
		}
	}
	return nil, TxLocation{}, false
}

// HasState reports whether the state trie with the given root is available.
func (c *Chain) HasState(root common.Hash) bool {
	_, err := c.stateDB.OpenTrie(root)
	return err == nil
}

// StateAt opens the state with the given root.
func (c *Chain) StateAt(root common.Hash) (*state.StateDB, error) {
	return state.New(root, c.stateDB)
}

// State opens the head state.
func (c *Chain) State() (*state.StateDB, error) { return c.StateAt(c.CurrentHeader().Root) }

// SubscribeHead delivers an event for every change of the head.
func (c *Chain) SubscribeHead(ch chan<- HeadEvent) event.Subscription {
	return c.headFeed.Subscribe(ch)
}

// StateReader opens a read-only view of the state with the given root. It is
// much cheaper than StateAt for single lookups (balance, nonce, code, slot)
// and safe for concurrent use.
func (c *Chain) StateReader(root common.Hash) (state.Reader, error) {
	return c.readers.get(root, c.stateDB.Reader)
}

// Account returns a copy of the account at addr in the state with the given
// root (an empty account when it does not exist). The RPC front ends read
// balances and nonces this way; hot accounts are served from a cache.
func (c *Chain) Account(root common.Hash, addr common.Address) (*types.StateAccount, error) {
	rd, err := c.readers.get(root, c.stateDB.Reader)
	if err != nil {
		return nil, err
	}
	a, err := rd.Account(addr) // a copy already
	if err != nil {
		return nil, err
	}
	if a == nil {
		a = types.NewEmptyStateAccount()
	}
	return a, nil
}
