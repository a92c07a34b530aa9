package txpool

import (
	"crypto/ecdsa"
	"math/big"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

var testChainID = big.NewInt(1337)

// devConfig has every fork through Osaka active from genesis, like
// Basalt's dev network.
func devConfig() *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID:             new(big.Int).Set(testChainID),
		HomesteadBlock:      big.NewInt(0),
		EIP150Block:         big.NewInt(0),
		EIP155Block:         big.NewInt(0),
		EIP158Block:         big.NewInt(0),
		ByzantiumBlock:      big.NewInt(0),
		ConstantinopleBlock: big.NewInt(0),
		PetersburgBlock:     big.NewInt(0),
		IstanbulBlock:       big.NewInt(0),
		MuirGlacierBlock:    big.NewInt(0),
		BerlinBlock:         big.NewInt(0),
		LondonBlock:         big.NewInt(0),
		ArrowGlacierBlock:   big.NewInt(0),
		GrayGlacierBlock:    big.NewInt(0),
		ShanghaiTime:        &zero,
		CancunTime:          &zero,
		PragueTime:          &zero,
		OsakaTime:           &zero,
	}
}

// istanbulConfig stops before Berlin: only legacy transactions.
func istanbulConfig() *params.ChainConfig {
	c := devConfig()
	c.BerlinBlock, c.LondonBlock, c.ArrowGlacierBlock, c.GrayGlacierBlock = nil, nil, nil, nil
	c.ShanghaiTime, c.CancunTime, c.PragueTime, c.OsakaTime = nil, nil, nil, nil
	return c
}

// berlinConfig stops before London.
func berlinConfig() *params.ChainConfig {
	c := istanbulConfig()
	c.BerlinBlock = big.NewInt(0)
	return c
}

// londonConfig stops before Shanghai (no timestamp forks).
func londonConfig() *params.ChainConfig {
	c := berlinConfig()
	c.LondonBlock = big.NewInt(0)
	return c
}

const (
	testGasLimit = 30_000_000
	testBaseFee  = 100
)

func testHead(number uint64, gasLimit uint64, baseFee int64) *types.Header {
	h := &types.Header{Number: new(big.Int).SetUint64(number), GasLimit: gasLimit, Time: 1000 + number, Difficulty: big.NewInt(100)}
	if baseFee >= 0 {
		h.BaseFee = big.NewInt(baseFee)
	}
	return h
}

// testState is an in-memory State safe for concurrent use.
type testState struct {
	mu    sync.RWMutex
	accts map[common.Address]testAcct
	def   *uint256.Int // balance of accounts not set
}

type testAcct struct {
	nonce   uint64
	balance *uint256.Int
}

func newTestState() *testState {
	return &testState{accts: make(map[common.Address]testAcct), def: uint256.MustFromDecimal("1000000000000000000000")}
}

func (s *testState) set(addr common.Address, nonce uint64, balance *uint256.Int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accts[addr] = testAcct{nonce, balance}
}

func (s *testState) Nonce(addr common.Address) uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.accts[addr].nonce
}

func (s *testState) Balance(addr common.Address) *uint256.Int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if a, ok := s.accts[addr]; ok && a.balance != nil {
		return new(uint256.Int).Set(a.balance)
	}
	return new(uint256.Int).Set(s.def)
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type testEnv struct {
	pool  *Pool
	state *testState
	clock *fakeClock
}

func newTestEnv(t testing.TB, cfg Config, chainCfg *params.ChainConfig, head *types.Header) *testEnv {
	t.Helper()
	env := &testEnv{state: newTestState(), clock: &fakeClock{t: time.Unix(1_700_000_000, 0)}}
	p, err := newPool(cfg, chainCfg, head, env.state, env.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	env.pool = p
	return env
}

func defaultEnv(t testing.TB) *testEnv {
	return newTestEnv(t, DefaultConfig(), devConfig(), testHead(1, testGasLimit, testBaseFee))
}

type account256 struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newAccount(t testing.TB) account256 {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return account256{k, crypto.PubkeyToAddress(k.PublicKey)}
}

var testTo = common.HexToAddress("0x00000000000000000000000000000000000000aa")

func sign(t testing.TB, key *ecdsa.PrivateKey, data types.TxData) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(testChainID), data)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// legacy is an EIP-155 transfer of 1 wei.
func legacy(t testing.TB, a account256, nonce uint64, gasPrice int64) *types.Transaction {
	return sign(t, a.key, &types.LegacyTx{Nonce: nonce, GasPrice: big.NewInt(gasPrice), Gas: 21000, To: &testTo, Value: big.NewInt(1)})
}

// dynamic is an EIP-1559 transfer of 1 wei.
func dynamic(t testing.TB, a account256, nonce uint64, tip, feeCap int64) *types.Transaction {
	return sign(t, a.key, &types.DynamicFeeTx{ChainID: testChainID, Nonce: nonce, GasTipCap: big.NewInt(tip), GasFeeCap: big.NewInt(feeCap), Gas: 21000, To: &testTo, Value: big.NewInt(1)})
}

func wantReason(t testing.TB, err error, want Reason) {
	t.Helper()
	if got := ReasonOf(err); got != want {
		t.Fatalf("got error %v (reason %q), want reason %q", err, got, want)
	}
}

func mustAdd(t testing.TB, p *Pool, tx *types.Transaction, local bool) {
	t.Helper()
	var err error
	if local {
		err = p.AddLocal(tx)
	} else {
		err = p.AddRemotes([]*types.Transaction{tx})[0]
	}
	if err != nil {
		t.Fatalf("add nonce %d: %v", tx.Nonce(), err)
	}
}

func nonces(txs []*types.Transaction) []uint64 {
	out := make([]uint64, len(txs))
	for i, tx := range txs {
		out[i] = tx.Nonce()
	}
	return out
}

func numCPU() int { return runtime.GOMAXPROCS(0) }
