package config

import (
	"bufio"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// Shared test data lives outside the repository; tests skip when it is absent.
const (
	sharedBesuChain = "../../shared/conformance/besu/chain"
	sharedBench     = "../../shared/bench/import-1000"
)

// besuTestGenesisHash is the genesis hash of Besu's conformance test chain.
var besuTestGenesisHash = common.HexToHash("0xf8f01382f5636d02edac7fff679a6feb7a572d37a395daaab77938feb6fe217f")

func sharedFile(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data %s not present", p)
	}
	return p
}

func mustParse(t *testing.T, js string) *Genesis {
	t.Helper()
	g, err := ParseGenesis([]byte(js))
	if err != nil {
		t.Fatalf("ParseGenesis: %v", err)
	}
	return g
}

// forkSchedule lists a config's fork fields for comparison.
func forkSchedule(c *params.ChainConfig) map[string]string {
	out := map[string]string{"chainId": c.ChainID.String()}
	for _, f := range blockForkKeys {
		if v := *f.field(c); v != nil {
			out[f.key] = v.String()
		}
	}
	for _, f := range timeForkKeys {
		if v := *f.field(c); v != nil {
			out[f.key] = new(big.Int).SetUint64(*v).String()
		}
	}
	return out
}

func TestBesuConformanceGenesis(t *testing.T) {
	besu, err := LoadGenesisFile(sharedFile(t, sharedBesuChain, "testGenesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	geth, err := LoadGenesisFile(sharedFile(t, sharedBesuChain, "geth-genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Genesis{"testGenesis.json": besu, "geth-genesis.json": geth} {
		if h := g.Core.ToBlock().Hash(); h != besuTestGenesisHash {
			t.Errorf("%s: genesis hash %s, want %s", name, h, besuTestGenesisHash)
		}
	}
	// Besu's file only sets londonBlock 33: the earlier forks are filled in
	// and the schedule equals the hand-written go-ethereum one.
	if got, want := forkSchedule(besu.ChainConfig()), forkSchedule(geth.ChainConfig()); !reflect.DeepEqual(got, want) {
		t.Errorf("fork schedules differ:\nbesu %v\ngeth %v", got, want)
	}
	if besu.ChainConfig().HomesteadBlock.Uint64() != 33 || besu.ChainConfig().DAOForkBlock != nil {
		t.Errorf("homestead %v dao %v", besu.ChainConfig().HomesteadBlock, besu.ChainConfig().DAOForkBlock)
	}
	if besu.Consensus != "ethash" || besu.ChainConfig().Ethash == nil {
		t.Errorf("consensus %q", besu.Consensus)
	}
	bs := besu.ChainConfig().BlobScheduleConfig
	if bs == nil || *bs.Cancun != *params.DefaultCancunBlobConfig {
		t.Errorf("blob schedule %v", bs)
	}
}

func TestBenchGenesisMatchesChain(t *testing.T) {
	g, err := LoadGenesisFile(sharedFile(t, sharedBench, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(sharedFile(t, sharedBench, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var first types.Block
	if err := rlp.NewStream(bufio.NewReader(f), 0).Decode(&first); err != nil {
		t.Fatalf("decode block 1: %v", err)
	}
	if first.NumberU64() != 1 {
		t.Fatalf("first block is %d", first.NumberU64())
	}
	if h := g.Core.ToBlock().Hash(); h != first.ParentHash() {
		t.Errorf("genesis hash %s, block 1 parent %s", h, first.ParentHash())
	}
	if g.ChainID().Uint64() != 7331 || g.ChainConfig().OsakaTime != nil || g.ChainConfig().PragueTime == nil {
		t.Errorf("config %v", g.ChainConfig())
	}
}

func TestDevGenesis(t *testing.T) {
	g := DevGenesis()
	c := g.ChainConfig()
	if err := c.CheckConfigForkOrder(); err != nil {
		t.Fatal(err)
	}
	zero := new(big.Int)
	for _, f := range blockForkKeys {
		if f.key == "daoForkBlock" {
			continue
		}
		if v := *f.field(c); v == nil || v.Sign() != 0 {
			t.Errorf("%s = %v, want 0", f.key, v)
		}
	}
	if !c.IsOsaka(zero, 0) || !c.IsPrague(zero, 0) || !c.IsCancun(zero, 0) || !c.IsShanghai(zero, 0) {
		t.Error("Shanghai..Osaka not active at genesis")
	}
	if c.AmsterdamTime != nil || c.BogotaTime != nil || c.UBTTime != nil || c.BPO1Time != nil {
		t.Error("forks after Osaka must not be set")
	}
	rules := c.Rules(zero, true, 0)
	if !rules.IsOsaka || !rules.IsPrague || !rules.IsBerlin || !rules.IsEIP158 || rules.IsAmsterdam {
		t.Errorf("rules %+v", rules)
	}
	if c.ChainID.Uint64() != DevChainID || g.FixedDifficulty.Uint64() != 100 || g.Consensus != "ethash" || c.Ethash == nil {
		t.Errorf("chain %v fixed difficulty %v consensus %q", c.ChainID, g.FixedDifficulty, g.Consensus)
	}
	if c.BlobScheduleConfig == nil || c.BlobScheduleConfig.Cancun == nil || c.BlobScheduleConfig.Prague == nil {
		t.Error("blob schedule missing")
	}

	wantBalances := map[common.Address]string{
		common.HexToAddress("fe3b557e8fb62b89f4916b721be55ceb828dbd73"): "200000000000000000000",
		common.HexToAddress("627306090abaB3A6e1400e9345bC60c78a8BEf57"): "90000000000000000000000",
		common.HexToAddress("f17f52151EbEF6C7334FAD080c5704D77216b732"): "90000000000000000000000",
	}
	for addr, want := range wantBalances {
		if got := g.Core.Alloc[addr].Balance; got == nil || got.String() != want {
			t.Errorf("balance of %s = %v, want %s", addr, got, want)
		}
	}
	for _, addr := range []common.Address{params.BeaconRootsAddress, params.HistoryStorageAddress, params.WithdrawalQueueAddress, params.ConsolidationQueueAddress} {
		if a, ok := g.Core.Alloc[addr]; !ok || len(a.Code) == 0 || a.Nonce != 1 {
			t.Errorf("system contract %s missing", addr)
		}
	}
	if len(g.Core.Alloc) != 7 {
		t.Errorf("alloc has %d accounts, want 7", len(g.Core.Alloc))
	}
	if len(DevAccounts) != 3 {
		t.Errorf("%d dev accounts", len(DevAccounts))
	}
	for _, a := range DevAccounts {
		if _, ok := wantBalances[a.Address]; !ok {
			t.Errorf("dev account %s not funded", a.Address)
		}
		key, err := crypto.HexToECDSA(a.PrivateKey)
		if err != nil || crypto.PubkeyToAddress(key.PublicKey) != a.Address {
			t.Errorf("dev account %s: key does not match (%v)", a.Address, err)
		}
	}

	h := g.Core.ToBlock().Header()
	if h.Nonce.Uint64() != 0x42 || h.GasLimit != 0x1fffffffffffff || h.Difficulty.Uint64() != 0x10000 || h.Time != 0 ||
		common.Bytes2Hex(h.Extra) != strings.TrimPrefix(devExtraData, "0x") || h.BaseFee == nil || h.BaseFee.Uint64() != 1_000_000_000 {
		t.Errorf("header %+v", h)
	}
	if h.WithdrawalsHash == nil || h.ParentBeaconRoot == nil || h.ExcessBlobGas == nil || h.RequestsHash == nil {
		t.Error("post-Prague header fields missing")
	}
	// Each call returns an independent value.
	DevGenesis().ChainConfig().LondonBlock.SetInt64(5)
	if c.LondonBlock.Sign() != 0 || DevGenesis().ChainConfig().LondonBlock.Sign() != 0 {
		t.Error("DevGenesis shares state between calls")
	}
}

// The dev network's base fee starts at 1 gwei and follows EIP-1559: on
// empty blocks it falls by an eighth a block and comes to rest at 7 wei,
// never 0 (ethers.js needs a non-zero base fee to offer
// EIP-1559 fees).
func TestDevBaseFee(t *testing.T) {
	g := DevGenesis()
	cfg := g.ChainConfig()
	h := g.Core.ToBlock().Header()
	if h.BaseFee.Cmp(big.NewInt(params.InitialBaseFee)) != 0 {
		t.Fatalf("genesis base fee %v", h.BaseFee)
	}
	belowMin := 0
	for i := 1; i <= 300; i++ {
		next := &types.Header{Number: big.NewInt(int64(i)), GasLimit: h.GasLimit, BaseFee: eip1559.CalcBaseFee(cfg, h)}
		if next.BaseFee.Sign() <= 0 || next.BaseFee.Cmp(h.BaseFee) > 0 {
			t.Fatalf("block %d: base fee %v after %v", i, next.BaseFee, h.BaseFee)
		}
		if belowMin == 0 && next.BaseFee.Cmp(big.NewInt(1000)) <= 0 {
			belowMin = i
		}
		h = next
	}
	if h.BaseFee.Int64() != 7 {
		t.Errorf("base fee after 300 blocks %v, want 7", h.BaseFee)
	}
	// At one block a second, transactions priced at the 1000 wei minimum
	// wait this long after a fresh start (README, dev network).
	if belowMin < 100 || belowMin > 120 {
		t.Errorf("base fee reaches 1000 wei at block %d", belowMin)
	}
	// A block using more than half the gas limit raises it, as anywhere.
	full := &types.Header{Number: big.NewInt(301), GasLimit: h.GasLimit, GasUsed: h.GasLimit, BaseFee: h.BaseFee}
	if got := eip1559.CalcBaseFee(cfg, full); got.Cmp(h.BaseFee) <= 0 {
		t.Errorf("base fee after a full block %v", got)
	}
}

func TestNamedNetwork(t *testing.T) {
	if g, err := NamedNetwork("DEV"); err != nil || g.ChainID().Uint64() != DevChainID {
		t.Fatalf("dev: %v", err)
	}
	if _, err := NamedNetwork("mainnet"); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("mainnet: %v", err)
	}
	if _, err := NamedNetwork("nope"); err == nil || !strings.Contains(err.Error(), "unknown network") {
		t.Errorf("nope: %v", err)
	}
}

const minimalHeader = `"difficulty": "0x1", "gasLimit": "0x1000000"`

func TestBalancesAndAccounts(t *testing.T) {
	g := mustParse(t, `{
		"config": {"chainId": 5, "londonBlock": 0},
		`+minimalHeader+`,
		"alloc": {
			"0x0000000000000000000000000000000000000001": {"balance": "0x10"},
			"0000000000000000000000000000000000000002": {"balance": "16"},
			"0X00000000000000000000000000000000000000aB": {"balance": 16, "privateKey": "8f2a", "comment": "ignored"},
			"00000000000000000000000000000000000000Cd": {"Balance": "0x", "Nonce": "10", "CODE": "0x6001", "storage": {"0x01": "0x2a", "02": "ff"}},
			"0x00000000000000000000000000000000000000ef": {}
		}
	}`)
	alloc := g.Core.Alloc
	for _, a := range []string{"01", "02", "ab"} {
		if b := alloc[common.HexToAddress(a)].Balance; b.Int64() != 16 {
			t.Errorf("balance of %s = %v, want 16", a, b)
		}
	}
	cd := alloc[common.HexToAddress("cd")]
	if cd.Balance.Sign() != 0 || cd.Nonce != 0x10 || common.Bytes2Hex(cd.Code) != "6001" {
		t.Errorf("account cd = %+v", cd)
	}
	if cd.Storage[common.HexToHash("01")] != common.HexToHash("2a") || cd.Storage[common.HexToHash("02")] != common.HexToHash("ff") {
		t.Errorf("storage %v", cd.Storage)
	}
	if ef, ok := alloc[common.HexToAddress("ef")]; !ok || ef.Balance.Sign() != 0 {
		t.Errorf("empty account %+v", ef)
	}
}

func TestHeaderFields(t *testing.T) {
	g := mustParse(t, `{
		"config": {"chainId": "0x7"},
		"nonce": "42", "difficulty": "10000", "gasLimit": "1000", "timestamp": "0x10",
		"extraData": "abc", "mixHash": "0x01", "coinbase": "0x0000000000000000000000000000000000000009",
		"parentHash": "0x00", "number": "0x0", "gasUsed": 0
	}`)
	c := g.Core
	// Besu reads nonce and difficulty strings as hex even without 0x.
	if c.Nonce != 0x42 || c.Difficulty.Int64() != 0x10000 || c.GasLimit != 1000 || c.Timestamp != 16 {
		t.Errorf("nonce %x difficulty %v gasLimit %d timestamp %d", c.Nonce, c.Difficulty, c.GasLimit, c.Timestamp)
	}
	if common.Bytes2Hex(c.ExtraData) != "0abc" || c.Mixhash != common.HexToHash("01") || c.Coinbase != common.HexToAddress("09") {
		t.Errorf("extra %x mix %s coinbase %s", c.ExtraData, c.Mixhash, c.Coinbase)
	}
	if g.ChainID().Int64() != 7 || g.Consensus != "" || g.ChainConfig().HomesteadBlock != nil {
		t.Errorf("config %v", g.ChainConfig())
	}
	// JSON numbers are decimal.
	g = mustParse(t, `{"config": {"chainId": 1}, "nonce": 66, "difficulty": 131072, "gasLimit": 5000}`)
	if g.Core.Nonce != 66 || g.Core.Difficulty.Int64() != 131072 {
		t.Errorf("nonce %d difficulty %v", g.Core.Nonce, g.Core.Difficulty)
	}
}

func TestForkFillIn(t *testing.T) {
	cases := []struct {
		name   string
		config string
		time   string
		check  func(t *testing.T, c *params.ChainConfig)
	}{
		{"london only", `"londonBlock": 33`, "0", func(t *testing.T, c *params.ChainConfig) {
			for _, f := range blockForkKeys {
				v := *f.field(c)
				switch f.key {
				case "daoForkBlock", "arrowGlacierBlock", "grayGlacierBlock", "mergeNetsplitBlock":
					if v != nil {
						t.Errorf("%s = %v, want unset", f.key, v)
					}
				default:
					if v == nil || v.Uint64() != 33 {
						t.Errorf("%s = %v, want 33", f.key, v)
					}
				}
			}
		}},
		{"gaps filled from the next set fork", `"homesteadBlock": 1, "byzantiumBlock": 5, "berlinBlock": 9`, "0", func(t *testing.T, c *params.ChainConfig) {
			want := map[string]uint64{"homesteadBlock": 1, "eip150Block": 5, "eip155Block": 5, "eip158Block": 5, "byzantiumBlock": 5,
				"constantinopleBlock": 9, "petersburgBlock": 9, "istanbulBlock": 9, "muirGlacierBlock": 9, "berlinBlock": 9}
			for k, w := range want {
				if v := *fieldByKey(c, k); v == nil || v.Uint64() != w {
					t.Errorf("%s = %v, want %d", k, v, w)
				}
			}
			if c.LondonBlock != nil {
				t.Error("london set")
			}
		}},
		{"cancun implies shanghai", `"londonBlock": 0, "cancunTime": 100`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.ShanghaiTime == nil || *c.ShanghaiTime != 100 || c.PragueTime != nil {
				t.Errorf("shanghai %v prague %v", c.ShanghaiTime, c.PragueTime)
			}
			if c.BlobScheduleConfig.Cancun == nil || c.BlobScheduleConfig.Prague != nil {
				t.Errorf("blob schedule %+v", c.BlobScheduleConfig)
			}
		}},
		{"osaka at genesis without london", `"osakaTime": 0`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.LondonBlock == nil || c.LondonBlock.Sign() != 0 || c.HomesteadBlock == nil || c.HomesteadBlock.Sign() != 0 {
				t.Errorf("london %v homestead %v", c.LondonBlock, c.HomesteadBlock)
			}
			for _, p := range []*uint64{c.ShanghaiTime, c.CancunTime, c.PragueTime, c.OsakaTime} {
				if p == nil || *p != 0 {
					t.Error("timestamp fork not at 0")
				}
			}
			if c.BlobScheduleConfig.Prague == nil || c.BlobScheduleConfig.Cancun == nil {
				t.Error("blob defaults missing")
			}
		}},
		{"bpo1 implies osaka", `"londonBlock": 0, "shanghaiTime": 0, "bpo1Time": 50`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.OsakaTime == nil || *c.OsakaTime != 50 || *c.CancunTime != 50 || *c.ShanghaiTime != 0 {
				t.Errorf("osaka %v cancun %v", c.OsakaTime, c.CancunTime)
			}
			if c.BlobScheduleConfig.BPO1 == nil || *c.BlobScheduleConfig.BPO1 != *params.DefaultBPO1BlobConfig {
				t.Error("bpo1 blob default missing")
			}
		}},
		{"constantinopleFixBlock is petersburg", `"constantinopleFixBlock": 7, "istanbulBlock": 8`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.PetersburgBlock.Uint64() != 7 || c.ConstantinopleBlock.Uint64() != 7 || c.IstanbulBlock.Uint64() != 8 {
				t.Errorf("petersburg %v constantinople %v", c.PetersburgBlock, c.ConstantinopleBlock)
			}
		}},
		{"dao fork block 0 is no fork", `"daoForkBlock": 0, "homesteadBlock": 0`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.DAOForkBlock != nil {
				t.Errorf("dao %v", c.DAOForkBlock)
			}
		}},
		{"dao fork block means support", `"daoForkBlock": 10, "homesteadBlock": 0`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.DAOForkBlock.Uint64() != 10 || !c.DAOForkSupport || c.EIP150Block != nil {
				t.Errorf("dao %v support %v eip150 %v", c.DAOForkBlock, c.DAOForkSupport, c.EIP150Block)
			}
		}},
		{"keys are case-insensitive, values may be strings", `"LONDONBLOCK": "0x21", "ShanghaiTime": "1000"`, "0", func(t *testing.T, c *params.ChainConfig) {
			if c.LondonBlock.Uint64() != 33 || *c.ShanghaiTime != 1000 || c.BerlinBlock.Uint64() != 33 {
				t.Errorf("london %v shanghai %v", c.LondonBlock, *c.ShanghaiTime)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := mustParse(t, `{"config": {"chainId": 1, `+tc.config+`}, "timestamp": `+tc.time+`, `+minimalHeader+`}`)
			tc.check(t, g.ChainConfig())
			if err := g.ChainConfig().CheckConfigForkOrder(); err != nil {
				t.Error(err)
			}
		})
	}
}

func fieldByKey(c *params.ChainConfig, key string) **big.Int {
	for _, f := range blockForkKeys {
		if f.key == key {
			return f.field(c)
		}
	}
	panic(key)
}

func TestEnginesAndExtras(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 2018, "constantinopleFixBlock": 0, "contractSizeLimit": 2147483647, "evmStackSize": "2048", "zeroBaseFee": true,
		"ibft2": {"blockperiodseconds": 2, "EpochLength": 100, "requesttimeoutseconds": 4, "emptyblockperiodseconds": 5, "blockreward": "0x10", "miningbeneficiary": "0x0000000000000000000000000000000000000001"},
		"eip150Hash": "0x00", "isQuorum": false, "someFutureKey": {"x": 1}}, `+minimalHeader+`}`)
	if g.Consensus != "ibft2" || g.IBFT2 == nil || g.Clique != nil {
		t.Fatalf("consensus %q", g.Consensus)
	}
	i := g.IBFT2
	if i.BlockPeriodSeconds != 2 || i.EpochLength != 100 || i.RequestTimeoutSeconds != 4 || i.MessageQueueLimit != 1000 ||
		i.BlockReward.Int64() != 16 || i.MiningBeneficiary == nil || len(i.Raw) == 0 || i.EmptyBlockPeriodSeconds != 5 {
		t.Errorf("ibft2 %+v", i)
	}
	if g.ContractSizeLimit != 2147483647 || g.EVMStackSize != 2048 || !g.ZeroBaseFee {
		t.Errorf("extras %d %d %v", g.ContractSizeLimit, g.EVMStackSize, g.ZeroBaseFee)
	}
	if !feemarket.IsZeroBaseFee(g.Core.Config) || g.Core.BaseFee != nil {
		t.Errorf("zeroBaseFee: marked %v, genesis base fee %v", feemarket.IsZeroBaseFee(g.Core.Config), g.Core.BaseFee)
	}

	g = mustParse(t, `{"config": {"chainId": 1, "clique": {"blockperiodseconds": 5}}, `+minimalHeader+`}`)
	if g.Consensus != "clique" || g.Clique.BlockPeriodSeconds != 5 || g.Clique.EpochLength != 30000 || !g.Clique.CreateEmptyBlocks ||
		g.ChainConfig().Clique == nil || g.ChainConfig().Clique.Period != 5 {
		t.Errorf("clique %+v", g.Clique)
	}
	g = mustParse(t, `{"config": {"chainId": 1, "clique": {"period": 3, "epoch": 7}}, `+minimalHeader+`}`)
	if g.Clique.BlockPeriodSeconds != 3 || g.Clique.EpochLength != 7 {
		t.Errorf("geth clique spelling %+v", g.Clique)
	}
	g = mustParse(t, `{"config": {"chainId": 1, "ethash": {"fixeddifficulty": 100}, "clique": {}}, `+minimalHeader+`}`)
	if g.Consensus != "ethash" || g.FixedDifficulty.Int64() != 100 {
		t.Errorf("ethash %q %v", g.Consensus, g.FixedDifficulty)
	}
	g = mustParse(t, `{"config": {"chainId": 1, "qbft": {"blockperiodseconds": 1}}, `+minimalHeader+`}`)
	if g.Consensus != "qbft" || g.QBFT == nil {
		t.Errorf("qbft %q", g.Consensus)
	}
}

func TestBlobScheduleGiven(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 1, "londonBlock": 0, "pragueTime": 0, "osakaTime": 0,
		"blobSchedule": {"cancun": {"target": 1, "max": 2, "baseFeeUpdateFraction": 3}, "osaka": {"target": 6, "max": 9, "baseFeeUpdateFraction": 5007716}}}, `+minimalHeader+`}`)
	bs := g.ChainConfig().BlobScheduleConfig
	if *bs.Cancun != (params.BlobConfig{Target: 1, Max: 2, UpdateFraction: 3}) || *bs.Prague != *params.DefaultPragueBlobConfig {
		t.Errorf("blob schedule cancun %v prague %v", bs.Cancun, bs.Prague)
	}
}

func TestBlobHeaderFieldsOnlyAtCancun(t *testing.T) {
	g := mustParse(t, `{"config": {"chainId": 1, "cancunTime": 0}, "excessBlobGas": "0x20000", "blobGasUsed": "0x0", `+minimalHeader+`}`)
	if g.Core.ExcessBlobGas == nil || *g.Core.ExcessBlobGas != 0x20000 || g.Core.BlobGasUsed == nil {
		t.Errorf("blob gas %v %v", g.Core.ExcessBlobGas, g.Core.BlobGasUsed)
	}
	g = mustParse(t, `{"config": {"chainId": 1}, "excessBlobGas": "0x20000", `+minimalHeader+`}`)
	if g.Core.ExcessBlobGas != nil {
		t.Error("excessBlobGas used before Cancun (Besu ignores it)")
	}
}

func TestGenesisErrors(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"not JSON", `{"config": `, "invalid JSON"},
		{"trailing data", `{"config": {"chainId": 1}, ` + minimalHeader + `} {}`, "after the top-level object"},
		{"array", `[]`, "expected a JSON object"},
		{"no config", `{` + minimalHeader + `}`, "config: missing"},
		{"no chain id", `{"config": {}, ` + minimalHeader + `}`, "config.chainId: missing"},
		{"zero chain id", `{"config": {"chainId": 0}, ` + minimalHeader + `}`, "config.chainId: must be positive"},
		{"bad fork number", `{"config": {"chainId": 1, "londonBlock": "abc"}, ` + minimalHeader + `}`, `config.londonBlock: invalid number "abc"`},
		{"negative fork", `{"config": {"chainId": 1, "berlinBlock": -1}, ` + minimalHeader + `}`, "config.berlinBlock: negative"},
		{"fractional fork", `{"config": {"chainId": 1, "berlinBlock": 1.5}, ` + minimalHeader + `}`, "config.berlinBlock: invalid number"},
		{"bool fork", `{"config": {"chainId": 1, "berlinBlock": true}, ` + minimalHeader + `}`, "config.berlinBlock: expected a number"},
		{"huge time", `{"config": {"chainId": 1, "shanghaiTime": "0x10000000000000000"}, ` + minimalHeader + `}`, "config.shanghaiTime: number"},
		{"fork order", `{"config": {"chainId": 1, "berlinBlock": 10, "londonBlock": 5}, ` + minimalHeader + `}`, "unsupported fork ordering: berlinBlock enabled at block 10, but londonBlock enabled at block 5"},
		{"time fork after genesis without london", `{"config": {"chainId": 1, "shanghaiTime": 10}, ` + minimalHeader + `}`, "config.londonBlock: missing"},
		{"time fork at genesis with late london", `{"config": {"chainId": 1, "londonBlock": 5, "shanghaiTime": 0}, ` + minimalHeader + `}`, "config.londonBlock: 5"},
		{"petersburg twice", `{"config": {"chainId": 1, "petersburgBlock": 0, "constantinopleFixBlock": 0}, ` + minimalHeader + `}`, "config.constantinopleFixBlock"},
		{"ubt", `{"config": {"chainId": 1, "ubtTime": 0}, ` + minimalHeader + `}`, "config.ubtTime"},
		{"ethash not object", `{"config": {"chainId": 1, "ethash": 1}, ` + minimalHeader + `}`, "config.ethash: expected an object"},
		{"fixed difficulty zero", `{"config": {"chainId": 1, "ethash": {"fixeddifficulty": 0}}, ` + minimalHeader + `}`, "config.ethash.fixeddifficulty"},
		{"clique period zero", `{"config": {"chainId": 1, "clique": {"blockperiodseconds": 0}}, ` + minimalHeader + `}`, "config.clique.blockperiodseconds: must be positive"},
		{"ibft bad beneficiary", `{"config": {"chainId": 1, "ibft2": {"miningbeneficiary": "0x12"}}, ` + minimalHeader + `}`, "config.ibft2.miningbeneficiary"},
		{"blob entry incomplete", `{"config": {"chainId": 1, "blobSchedule": {"cancun": {"target": 3, "max": 6}}}, ` + minimalHeader + `}`, "config.blobSchedule.cancun.baseFeeUpdateFraction: missing"},
		{"osaka blob entry differs", `{"config": {"chainId": 1, "blobSchedule": {"osaka": {"target": 1, "max": 2, "baseFeeUpdateFraction": 3}}}, ` + minimalHeader + `}`, "config.blobSchedule.osaka"},
		{"bpo5 without blob entry", `{"config": {"chainId": 1, "londonBlock": 0, "bpo5Time": 0}, ` + minimalHeader + `}`, `missing entry for fork "bpo5" in blobSchedule`},
		{"bad deposit address", `{"config": {"chainId": 1, "depositContractAddress": "0x1"}, ` + minimalHeader + `}`, "config.depositContractAddress"},
		{"zero contract size limit", `{"config": {"chainId": 1, "contractSizeLimit": 0}, ` + minimalHeader + `}`, "config.contractSizeLimit: must be positive"},
		{"no gas limit", `{"config": {"chainId": 1}, "difficulty": "0x1"}`, "gasLimit: missing"},
		{"no difficulty", `{"config": {"chainId": 1}, "gasLimit": "0x1"}`, "difficulty: missing"},
		{"bad gas limit", `{"config": {"chainId": 1}, "difficulty": "0x1", "gasLimit": "lots"}`, `gasLimit: invalid number "lots"`},
		{"bad extra data", `{"config": {"chainId": 1}, "extraData": "0xzz", ` + minimalHeader + `}`, "extraData: invalid hex string"},
		{"long mix hash", `{"config": {"chainId": 1}, "mixHash": "0x` + strings.Repeat("00", 33) + `", ` + minimalHeader + `}`, "mixHash: 33 bytes"},
		{"bad coinbase", `{"config": {"chainId": 1}, "coinbase": 5, ` + minimalHeader + `}`, "coinbase: expected an address string"},
		{"nonzero number", `{"config": {"chainId": 1}, "number": "0x1", ` + minimalHeader + `}`, "number: must be 0"},
		{"alloc not object", `{"config": {"chainId": 1}, "alloc": [], ` + minimalHeader + `}`, "alloc: expected an object"},
		{"bad alloc address", `{"config": {"chainId": 1}, "alloc": {"xyz": {}}, ` + minimalHeader + `}`, `alloc: invalid address "xyz"`},
		{"duplicate alloc address", `{"config": {"chainId": 1}, "alloc": {"0x00000000000000000000000000000000000000aa": {}, "00000000000000000000000000000000000000AA": {}}, ` + minimalHeader + `}`, "are the same address"},
		{"bad balance", `{"config": {"chainId": 1}, "alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "1e18"}}, ` + minimalHeader + `}`, `alloc.0x00000000000000000000000000000000000000aa.balance: invalid number "1e18"`},
		{"bad storage", `{"config": {"chainId": 1}, "alloc": {"0x00000000000000000000000000000000000000aa": {"storage": {"0x01": 5}}}, ` + minimalHeader + `}`, "alloc.0x00000000000000000000000000000000000000aa.storage.0x01: expected a hex string"},
		{"bad code", `{"config": {"chainId": 1}, "alloc": {"0x00000000000000000000000000000000000000aa": {"code": "0xgg"}}, ` + minimalHeader + `}`, "alloc.0x00000000000000000000000000000000000000aa.code"},
		{"keys differing in case", `{"config": {"chainId": 1, "londonBlock": 1, "LondonBlock": 2}, ` + minimalHeader + `}`, "differ only in case"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGenesis([]byte(tc.json))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
		})
	}
}

func TestLoadGenesisFileErrors(t *testing.T) {
	if _, err := LoadGenesisFile(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
	p := filepath.Join(t.TempDir(), "g.json")
	if err := os.WriteFile(p, []byte(`{"config": {"chainId": 1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGenesisFile(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "gasLimit") {
		t.Errorf("error %v should name the file and the key", err)
	}
}

// TestGenesisIsQuorum: GoQuorum's isQuorum marks a GoQuorum network; it
// cannot go with chain ID 1, as in GoQuorum.
func TestGenesisIsQuorum(t *testing.T) {
	for _, tc := range []struct {
		cfg     string
		quorum  bool
		wantErr string
	}{
		{`"chainId": 10`, false, ""},
		{`"chainId": 10, "isQuorum": true`, true, ""},
		{`"chainId": 10, "isQuorum": false`, false, ""},
		{`"chainId": 1, "isQuorum": true`, false, "config.isQuorum: not with chainId 1"},
		{`"chainId": 10, "isQuorum": "yes"`, false, "config.isQuorum"},
	} {
		g, err := ParseGenesis([]byte(`{"config": {` + tc.cfg + `}, ` + minimalHeader + `}`))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %v, want %q", tc.cfg, err, tc.wantErr)
			}
			continue
		}
		if err != nil || g.Quorum != tc.quorum {
			t.Errorf("%s: quorum %v, err %v", tc.cfg, g != nil && g.Quorum, err)
		}
	}
}
