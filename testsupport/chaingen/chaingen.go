// Package chaingen builds valid proof-of-work chains fast, for the tests
// and benchmarks of sync and networking: blocks of value transfers between
// the dev network's funded accounts, timestamped one second apart from the
// genesis (so no waiting for the wall clock), sealed by the real ethash
// engine and inserted through the real chain store. CliqueGenesis makes
// Clique chains the same way, sealed by the real Clique engine with one
// signer.
//
// With a fixed difficulty of 1 sealing is a single hash per block, so
// thousands of blocks take seconds; every block still passes full
// verification (seal included) on the node that imports or syncs it.
//
// Options.Uncles adds an ommer to every block from the second on, and
// Options.UnsealedUncles leaves those ommers without proof of work, as the
// chains that client test suites generate have them: such a chain imports
// only with seal checks skipped (blocks import --skip-pow-validation-enabled).
package chaingen

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/beacon"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/consensus/ethash"
	"github.com/basaltchain/basalt/miner"
)

// Genesis returns the dev network genesis with the given fixed difficulty
// (the dev network's own is 100; 1 makes sealing instant).
func Genesis(fixedDifficulty int64) *config.Genesis {
	g := config.DevGenesis()
	g.FixedDifficulty = big.NewInt(fixedDifficulty)
	return g
}

// GenesisJSON writes g as a Besu genesis file that config.LoadGenesisFile
// (and so `basalt --genesis-file`) reads back to the same genesis.
func GenesisJSON(g *config.Genesis) ([]byte, error) {
	enc, err := json.Marshal(g.Core)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(enc, &m); err != nil {
		return nil, err
	}
	cfg, ok := m["config"].(map[string]any)
	if !ok {
		return nil, errors.New("genesis without config")
	}
	if cc := g.Clique; cc != nil {
		delete(cfg, "ethash")
		cfg["clique"] = map[string]any{
			"blockperiodseconds": cc.BlockPeriodSeconds,
			"epochlength":        cc.EpochLength,
			"createemptyblocks":  cc.CreateEmptyBlocks,
		}
	} else {
		ethashCfg := map[string]any{}
		if g.FixedDifficulty != nil {
			ethashCfg["fixeddifficulty"] = g.FixedDifficulty.Uint64()
		}
		cfg["ethash"] = ethashCfg
	}
	if g.ContractSizeLimit != 0 {
		cfg["contractSizeLimit"] = g.ContractSizeLimit
	}
	if g.ZeroBaseFee {
		cfg["zeroBaseFee"] = true
	}
	return json.MarshalIndent(m, "", "  ")
}

// CliqueGenesis returns the dev network's genesis (allocation and every
// fork through Osaka) run by Clique instead of ethash, with one signer,
// CliqueSigner's account, and the given block period.
func CliqueGenesis(period uint64) *config.Genesis {
	g := config.DevGenesis()
	cfg := *g.Core.Config
	cfg.Ethash = nil
	cfg.Clique = &params.CliqueConfig{Period: period, Epoch: clique.DefaultEpoch}
	g.Core.Config = &cfg
	g.Core.ExtraData = clique.GenesisExtra(crypto.PubkeyToAddress(CliqueSigner().PublicKey))
	g.Core.Difficulty = big.NewInt(1)
	g.Consensus, g.FixedDifficulty = "clique", nil
	g.Clique = &config.CliqueConfig{BlockPeriodSeconds: period, EpochLength: clique.DefaultEpoch, CreateEmptyBlocks: true}
	return g
}

// CliqueSigner is the key of the signer of CliqueGenesis: the first dev
// account's (the generated transfers come from the other two).
func CliqueSigner() *ecdsa.PrivateKey {
	return crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[0].PrivateKey))
}

// Engine returns the engine a node uses for g (ethash, or for a Clique
// genesis Clique sealing with CliqueSigner's key, inside beacon), with one
// sealing thread.
func Engine(g *config.Genesis) consensus.Engine {
	if g.Clique != nil {
		cc := g.Clique
		return beacon.New(clique.New(clique.Config{Period: cc.BlockPeriodSeconds, Epoch: cc.EpochLength,
			CreateEmptyBlocks: cc.CreateEmptyBlocks}, clique.Options{Key: CliqueSigner()}))
	}
	return beacon.New(ethash.New(ethash.Config{FixedDifficulty: g.FixedDifficulty, Threads: 1}))
}

// UnsealedEngine returns g's engine without proof of work: it verifies
// every header rule but the seal and seals by returning the header as is.
// Unit tests use it to stay fast under the race detector, where one
// ethash hash takes a long time; end-to-end tests use the real engine.
func UnsealedEngine(g *config.Genesis) consensus.Engine {
	return unsealed{Engine(g)}
}

type unsealed struct{ consensus.Engine }

func (e unsealed) VerifyHeader(c consensus.ChainReader, header, parent *types.Header, _ bool) error {
	return e.Engine.VerifyHeader(c, header, parent, false)
}

func (e unsealed) VerifyUncles(c consensus.ChainReader, block *types.Block, _ bool) error {
	return e.Engine.VerifyUncles(c, block, false)
}

func (e unsealed) Seal(_ context.Context, header *types.Header) (*types.Header, error) {
	return types.CopyHeader(header), nil
}

// OpenMemory opens a chain for g on an in-memory database.
func OpenMemory(g *config.Genesis) (*chain.Chain, ethdb.Database, error) {
	return OpenMemoryWith(g, Engine(g))
}

// OpenMemoryWith is OpenMemory with a given engine: tests that open many
// chains share one, so the ethash cache is generated once.
func OpenMemoryWith(g *config.Genesis, engine consensus.Engine) (*chain.Chain, ethdb.Database, error) {
	db := chain.NewMemoryDatabase()
	c, err := chain.Open(db, g.Core, engine)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return c, db, nil
}

// Options shape the generated blocks.
type Options struct {
	// TxsPerBlock is the number of transfers in each block.
	TxsPerBlock int
	// Coinbase receives the rewards; blocks built with different coinbases
	// on the same parent differ, which makes forks.
	Coinbase common.Address
	// Extra is the extraData of every block.
	Extra []byte
	// Bulk inserts the blocks as a bulk import (chain.InsertOptions.NoSync):
	// states reach the database only every so many blocks, which keeps
	// long generated chains small. Call the chain's Sync at the end.
	Bulk bool
	// Uncles makes every block whose parent this Generator built include
	// one ommer: a sibling of that parent, built on the same grandparent
	// with no transactions by UncleCoinbase(Coinbase).
	Uncles bool
	// UnsealedUncles leaves those ommers unsealed (nonce and mix digest
	// zero), so their proof of work is invalid while every other header
	// rule holds. The generator inserts its blocks with seal checks
	// skipped (chain.InsertOptions.SkipSeal), as an importer of such a
	// chain must.
	UnsealedUncles bool
}

// UncleCoinbase is the coinbase of the ommers a Generator with coinbase
// makes: coinbase with its first byte inverted, so an ommer always differs
// from its sibling in the chain and its reward is credited apart.
func UncleCoinbase(coinbase common.Address) common.Address {
	coinbase[0] ^= 0xff
	return coinbase
}

// Generator extends a chain with blocks of transfers. It keeps the next
// nonce of each sender, so a Generator extends one branch.
type Generator struct {
	chain  *chain.Chain
	opts   Options
	keys   []*ecdsa.PrivateKey
	nonces map[common.Address]uint64
	next   int // sender of the next transfer

	// sibling is the ommer for a child of the block with hash siblingOf
	// (with Options.Uncles): built on that block's parent, it is an uncle
	// two generations back for the child.
	sibling   *types.Header
	siblingOf common.Hash
}

// New returns a Generator for c whose transfers are sent by the dev
// accounts (the two with 90,000 ETH).
func New(c *chain.Chain, opts Options) *Generator {
	g := &Generator{chain: c, opts: opts, nonces: make(map[common.Address]uint64)}
	for _, a := range config.DevAccounts[1:] {
		g.keys = append(g.keys, crypto.ToECDSAUnsafe(common.FromHex(a.PrivateKey)))
	}
	return g
}

// Extend builds n blocks on the block (parentHash, its header), inserts each
// into the chain and returns them. The chain's fork choice decides whether
// they become the head.
func (g *Generator) Extend(ctx context.Context, parentHash common.Hash, n int) ([]*types.Block, error) {
	parent := g.chain.GetHeaderByHash(parentHash)
	if parent == nil {
		return nil, fmt.Errorf("parent %s unknown", parentHash.Hex())
	}
	if err := g.syncNonces(parentHash, parent); err != nil {
		return nil, err
	}
	out := make([]*types.Block, 0, n)
	for range n {
		block, err := g.build(ctx, parent, parentHash)
		if err != nil {
			return out, err
		}
		out = append(out, block)
		parent, parentHash = block.Header(), g.chain.Hash(block.Header())
	}
	return out, nil
}

// ExtendHead builds n blocks on the current head.
func (g *Generator) ExtendHead(ctx context.Context, n int) ([]*types.Block, error) {
	return g.Extend(ctx, g.chain.CurrentHash(), n)
}

// syncNonces reads the senders' nonces from the parent's state.
func (g *Generator) syncNonces(hash common.Hash, parent *types.Header) error {
	if err := g.chain.EnsureState(hash, parent); err != nil {
		return err
	}
	st, err := g.chain.StateAt(parent.Root)
	if err != nil {
		return err
	}
	for _, k := range g.keys {
		a := crypto.PubkeyToAddress(k.PublicKey)
		g.nonces[a] = st.GetNonce(a)
	}
	return nil
}

func (g *Generator) build(ctx context.Context, parent *types.Header, parentHash common.Hash) (*types.Block, error) {
	c := g.chain
	var uncles []*types.Header
	if g.opts.Uncles && g.sibling != nil && g.siblingOf == parentHash {
		uncles = []*types.Header{g.sibling}
	}
	src := &transferSource{g: g, signer: types.MakeSigner(c.Config(), new(big.Int).Add(parent.Number, common.Big1), parent.Time+1)}
	block, exec, err := miner.Build(ctx, c, parent, parentHash, parent.Time+1, src, g.opts.Coinbase, g.opts.Extra, uncles)
	if err != nil {
		return nil, err
	}
	if src.err != nil {
		return nil, src.err
	}
	if got := len(block.Transactions()); got != g.opts.TxsPerBlock {
		return nil, fmt.Errorf("block %d: %d of %d transfers fit", block.Number(), got, g.opts.TxsPerBlock)
	}
	// The next block's ommer is built now, while parent's state is surely
	// there: in a bulk insert, writing block's state to disk releases the
	// in-memory states before it, parent's included.
	var sibling *types.Header
	if g.opts.Uncles {
		if sibling, err = g.buildSibling(ctx, parent, parentHash); err != nil {
			return nil, err
		}
	}
	sealed, err := c.Engine().Seal(ctx, block.Header())
	if err != nil {
		return nil, err
	}
	block = block.WithSeal(sealed)
	opts := chain.InsertOptions{NoSync: g.opts.Bulk, Executed: exec, SkipSeal: g.opts.UnsealedUncles}
	if _, err := c.InsertBlock(ctx, block, opts); err != nil {
		return nil, err
	}
	g.sibling, g.siblingOf = sibling, c.Hash(block.Header())
	return block, nil
}

// buildSibling returns an empty block's header on parent by the uncle
// coinbase, sealed unless Options.UnsealedUncles says otherwise.
func (g *Generator) buildSibling(ctx context.Context, parent *types.Header, parentHash common.Hash) (*types.Header, error) {
	c := g.chain
	b, _, err := miner.Build(ctx, c, parent, parentHash, parent.Time+1, nil, UncleCoinbase(g.opts.Coinbase), g.opts.Extra, nil)
	if err != nil {
		return nil, fmt.Errorf("ommer on block %d: %w", parent.Number, err)
	}
	if g.opts.UnsealedUncles {
		return b.Header(), nil
	}
	return c.Engine().Seal(ctx, b.Header())
}

// transferSource feeds the block builder TxsPerBlock fresh transfers, signed
// when the builder asks so they pay the block's base fee; the senders rotate
// through the generator's keys.
type transferSource struct {
	g      *Generator
	signer types.Signer
	left   int
	next   *types.Transaction
	from   common.Address
	err    error
}

func (s *transferSource) PendingIterator(baseFee *big.Int) miner.TxIterator {
	s.left = s.g.opts.TxsPerBlock
	return &transferIter{s: s, baseFee: baseFee}
}

type transferIter struct {
	s       *transferSource
	baseFee *big.Int
}

func (it *transferIter) Peek() *types.Transaction {
	s, g := it.s, it.s.g
	if s.next != nil || s.left == 0 || s.err != nil {
		return s.next
	}
	key := g.keys[g.next%len(g.keys)]
	g.next++
	s.from = crypto.PubkeyToAddress(key.PublicKey)
	to := common.BigToAddress(big.NewInt(int64(0x1000 + g.next%500)))
	feeCap := big.NewInt(1000)
	if it.baseFee != nil {
		feeCap.Add(feeCap, it.baseFee)
	}
	s.next, s.err = types.SignNewTx(key, s.signer, &types.DynamicFeeTx{
		ChainID:   g.chain.Config().ChainID,
		Nonce:     g.nonces[s.from],
		GasTipCap: big.NewInt(1000),
		GasFeeCap: feeCap,
		Gas:       21000,
		To:        &to,
		Value:     big.NewInt(1),
	})
	return s.next
}

// Shift: the transfer was included.
func (it *transferIter) Shift() {
	it.s.g.nonces[it.s.from]++
	it.s.next = nil
	it.s.left--
}

// Pop: the transfer failed; build reports the short block.
func (it *transferIter) Pop() {
	it.s.next = nil
	it.s.left = 0
}

// WriteRLP writes blocks as concatenated RLP (the `blocks import` format).
func WriteRLP(w io.Writer, blocks []*types.Block) error {
	for _, b := range blocks {
		if err := rlp.Encode(w, b); err != nil {
			return err
		}
	}
	return nil
}

// Files are a generated chain on disk: a genesis file and the blocks.
type Files struct {
	Genesis string // Besu genesis JSON
	Blocks  string // concatenated RLP, blocks 1..N
	Head    common.Hash
	Number  uint64
	Gas     uint64 // total gas used
	Uncles  int    // ommers included
}

// WriteFiles generates n blocks of txsPerBlock transfers on a new chain of
// genesis g and writes the genesis and blocks into dir. The chain is built
// in a scratch database under dir, removed at the end.
func WriteFiles(ctx context.Context, dir string, g *config.Genesis, n, txsPerBlock int) (*Files, error) {
	return WriteFilesWith(ctx, dir, g, n, Options{TxsPerBlock: txsPerBlock})
}

// WriteFilesWith is WriteFiles with the blocks shaped by opts (always
// inserted as a bulk import).
func WriteFilesWith(ctx context.Context, dir string, g *config.Genesis, n int, opts Options) (*Files, error) {
	scratch := filepath.Join(dir, "scratch-db")
	db, err := chain.OpenDatabase(scratch, 64)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	defer db.Close()
	c, err := chain.Open(db, g.Core, Engine(g))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	f := &Files{
		Genesis: filepath.Join(dir, "genesis.json"),
		Blocks:  filepath.Join(dir, "blocks.rlp"),
	}
	gj, err := GenesisJSON(g)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.Genesis, gj, 0o644); err != nil {
		return nil, err
	}
	out, err := os.Create(f.Blocks)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	opts.Bulk = true
	gen := New(c, opts)
	for done := 0; done < n; {
		batch := min(n-done, 256)
		blocks, err := gen.ExtendHead(ctx, batch)
		if err != nil {
			return nil, err
		}
		if err := WriteRLP(w, blocks); err != nil {
			return nil, err
		}
		for _, b := range blocks {
			f.Gas += b.GasUsed()
			f.Uncles += len(b.Uncles())
		}
		done += batch
	}
	if err := c.Sync(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	f.Head, f.Number = c.CurrentHash(), c.CurrentHeader().Number.Uint64()
	if f.Number == 0 {
		return nil, errors.New("no blocks generated")
	}
	return f, out.Close()
}
