package clique

import (
	"crypto/ecdsa"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"
)

// accounts hands out a fixed key per name ("A", "B", ...), derived from
// the name so that every run signs the same headers.
type accounts struct {
	keys map[string]*ecdsa.PrivateKey
}

func newAccounts() *accounts { return &accounts{keys: map[string]*ecdsa.PrivateKey{}} }

func (a *accounts) key(name string) *ecdsa.PrivateKey {
	if k := a.keys[name]; k != nil {
		return k
	}
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("clique test account " + name)))
	if err != nil {
		panic(err)
	}
	a.keys[name] = k
	return k
}

// address returns the address of name; "" is the zero address.
func (a *accounts) address(name string) common.Address {
	if name == "" {
		return common.Address{}
	}
	return crypto.PubkeyToAddress(a.key(name).PublicKey)
}

func (a *accounts) addresses(names ...string) []common.Address {
	out := make([]common.Address, len(names))
	for i, n := range names {
		out[i] = a.address(n)
	}
	return sortedCopy(out)
}

// names maps addresses back to names, for failure messages.
func (a *accounts) names(addrs []common.Address) []string {
	out := make([]string, 0, len(addrs))
	for _, addr := range addrs {
		name := addr.Hex()
		for n, k := range a.keys {
			if crypto.PubkeyToAddress(k.PublicKey) == addr {
				name = n
			}
		}
		out = append(out, name)
	}
	return out
}

// testConfig is a London chain config (base fee at genesis).
func testConfig() *params.ChainConfig {
	return &params.ChainConfig{
		ChainID: big.NewInt(2018), HomesteadBlock: common.Big0, EIP150Block: common.Big0,
		EIP155Block: common.Big0, EIP158Block: common.Big0, ByzantiumBlock: common.Big0,
		ConstantinopleBlock: common.Big0, PetersburgBlock: common.Big0, IstanbulBlock: common.Big0,
		MuirGlacierBlock: common.Big0, BerlinBlock: common.Big0, LondonBlock: common.Big0,
		Clique: &params.CliqueConfig{Period: 1, Epoch: 30000},
	}
}

// genesisTime is the timestamp of the test genesis blocks.
const genesisTime = 1_700_000_000

// genesisHeader returns a genesis header listing signers.
func genesisHeader(signers []common.Address) *types.Header {
	return &types.Header{
		Number: common.Big0, Difficulty: common.Big1, GasLimit: 30_000_000, Time: genesisTime,
		Extra: GenesisExtra(signers...), UncleHash: types.EmptyUncleHash, TxHash: types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash, Root: types.EmptyRootHash, BaseFee: big.NewInt(params.InitialBaseFee),
	}
}

// fakeChain is an in-memory consensus.ChainHeadReader: the headers a test
// adds, by hash and (canonical) number. It counts header reads so tests
// can see how much a snapshot rebuild walked.
type fakeChain struct {
	cfg *params.ChainConfig

	mu       sync.Mutex
	byHash   map[common.Hash]*types.Header
	byNumber map[uint64]*types.Header
	head     *types.Header
	reads    int
}

var _ consensus.ChainHeadReader = (*fakeChain)(nil)

func newFakeChain(genesis *types.Header) *fakeChain {
	c := &fakeChain{cfg: testConfig(), byHash: map[common.Hash]*types.Header{}, byNumber: map[uint64]*types.Header{}}
	c.add(genesis)
	return c
}

// add stores h and makes it the canonical block at its height and the head.
func (c *fakeChain) add(h *types.Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byHash[h.Hash()] = h
	c.byNumber[h.Number.Uint64()] = h
	c.head = h
}

func (c *fakeChain) Config() *params.ChainConfig { return c.cfg }

func (c *fakeChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if h := c.byHash[hash]; h != nil && h.Number.Uint64() == number {
		return h
	}
	return nil
}

func (c *fakeChain) GetHeaderByNumber(number uint64) *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byNumber[number]
}

func (c *fakeChain) GetHeaderByHash(hash common.Hash) *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byHash[hash]
}

func (c *fakeChain) CurrentHeader() *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head
}

func (c *fakeChain) headerReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// block describes a header for makeHeader: who signs it and what it votes.
type block struct {
	signer     string
	voted      string // candidate name, "" for no vote
	auth       bool
	checkpoint []string // signer list of a checkpoint block
	txs        bool     // a non-empty transaction root
}

// makeHeader builds and signs the child of parent described by b, with the
// difficulty snap gives b's signer (snap may be nil: difficulty 1).
func makeHeader(t testing.TB, acc *accounts, parent *types.Header, b block, snap *Snapshot, period uint64) *types.Header {
	t.Helper()
	number := new(big.Int).Add(parent.Number, common.Big1)
	h := &types.Header{
		ParentHash: parent.Hash(), Number: number, GasLimit: parent.GasLimit,
		Time: parent.Time + period, UncleHash: types.EmptyUncleHash, TxHash: types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash, Root: parent.Root, Coinbase: acc.address(b.voted),
		Difficulty: big.NewInt(1),
	}
	if b.txs {
		h.TxHash = common.Hash{0x01}
	}
	if parent.BaseFee != nil {
		h.BaseFee = eip1559.CalcBaseFee(testConfig(), parent)
	}
	if b.auth {
		h.Nonce = nonceAuthVote
	}
	ex := Extra{Signers: acc.addresses(b.checkpoint...)}
	if b.checkpoint == nil {
		ex.Signers = nil
	}
	h.Extra = ex.Encode()
	if snap != nil {
		h.Difficulty = snap.Difficulty(number.Uint64(), acc.address(b.signer))
	}
	sealed, err := SignHeader(h, acc.key(b.signer))
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

// manualClock returns a clock reading t.
func manualClock(t uint64) *consensus.ManualClock {
	return consensus.NewManualClock(time.Unix(int64(t), 0))
}
