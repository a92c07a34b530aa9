package config

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// NetworkDev is the name of Besu's development network (--network=dev).
const NetworkDev = "dev"

// DevChainID is the chain ID (and default network ID) of the dev network.
const DevChainID = 1337

// DevAccount is one of the dev network's pre-funded accounts.
type DevAccount struct {
	// Address is the account address.
	Address common.Address
	// PrivateKey is the account's secp256k1 private key, hex without 0x.
	PrivateKey string
}

// DevAccounts are the dev network's funded accounts. Their private keys are
// public (published in Besu's dev.json): use them in tests and on the dev
// network only.
var DevAccounts = []DevAccount{
	{common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"), "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"},
	{common.HexToAddress("0x627306090abaB3A6e1400e9345bC60c78a8BEf57"), "c87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3"},
	{common.HexToAddress("0xf17f52151EbEF6C7334FAD080c5704D77216b732"), "ae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f"},
}

// DevInitialBaseFee is the dev network's genesis base fee: 1 gwei, the
// EIP-1559 initial base fee, which go-ethereum's and Hardhat's dev chains
// and Besu (for a London genesis without baseFeePerGas) start from. Besu's
// own dev genesis says 0, and with the dev gas limit no block ever uses
// more than half of it, so its base fee stays 0 for good; client libraries
// then fall back to legacy pricing (ethers v6 getFeeData() offers
// maxFeePerGas only for a non-zero base fee). From 1 gwei the ordinary
// rule takes the base fee down by up to an eighth per block that uses less
// than half the gas limit, to a few wei (7 on empty blocks), where the
// rule's rounding holds it: never 0, and within two minutes of a fresh dev
// node (about 110 blocks) below the pool's default minimum gas price.
const DevInitialBaseFee = params.InitialBaseFee

// devExtraData is the extraData of Besu's dev.json genesis.
const devExtraData = "0x11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa"

// DevGenesis returns the dev network genesis: Besu's dev network (chain ID
// 1337, ethash with fixed difficulty 100, Besu's dev header fields and the
// three funded accounts) with every fork go-ethereum executes, Frontier
// through Osaka, active from block 0, and the system contracts those forks
// call (EIP-4788 beacon roots, EIP-2935 history storage, EIP-7002
// withdrawal and EIP-7251 consolidation queues) in the allocation. Each call
// returns a new value.
//
// Its base fee starts at DevInitialBaseFee, not at Besu's 0, and follows
// the ordinary EIP-1559 rule from there.
func DevGenesis() *Genesis {
	zero := func() *big.Int { return new(big.Int) }
	t0 := func() *uint64 { var t uint64; return &t }
	cancunBlobs, pragueBlobs := *params.DefaultCancunBlobConfig, *params.DefaultPragueBlobConfig
	cfg := &params.ChainConfig{
		ChainID:             big.NewInt(DevChainID),
		HomesteadBlock:      zero(),
		EIP150Block:         zero(),
		EIP155Block:         zero(),
		EIP158Block:         zero(),
		ByzantiumBlock:      zero(),
		ConstantinopleBlock: zero(),
		PetersburgBlock:     zero(),
		IstanbulBlock:       zero(),
		MuirGlacierBlock:    zero(),
		BerlinBlock:         zero(),
		LondonBlock:         zero(),
		ArrowGlacierBlock:   zero(),
		GrayGlacierBlock:    zero(),
		MergeNetsplitBlock:  zero(),
		ShanghaiTime:        t0(),
		CancunTime:          t0(),
		PragueTime:          t0(),
		OsakaTime:           t0(),
		Ethash:              new(params.EthashConfig),
		BlobScheduleConfig:  &params.BlobScheduleConfig{Cancun: &cancunBlobs, Prague: &pragueBlobs},
	}
	// Addresses are spelled out rather than read from DevAccounts, which
	// callers could modify.
	alloc := types.GenesisAlloc{
		common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"): {Balance: mustBig("0xad78ebc5ac6200000")},     // 200 ETH
		common.HexToAddress("0x627306090abaB3A6e1400e9345bC60c78a8BEf57"): {Balance: mustBig("90000000000000000000000")}, // 90,000 ETH
		common.HexToAddress("0xf17f52151EbEF6C7334FAD080c5704D77216b732"): {Balance: mustBig("90000000000000000000000")}, // 90,000 ETH
	}
	system := core.SystemContractAllocs()
	for _, addr := range []common.Address{
		params.BeaconRootsAddress,
		params.HistoryStorageAddress,
		params.WithdrawalQueueAddress,
		params.ConsolidationQueueAddress,
	} {
		acct := system[addr]
		acct.Balance = new(big.Int)        // go-ethereum shares common.Big0
		acct.Code = bytes.Clone(acct.Code) // and its params code slices
		alloc[addr] = acct
	}
	return &Genesis{
		Core: &core.Genesis{
			Config:     cfg,
			Nonce:      0x42,
			Timestamp:  0,
			ExtraData:  hexutil.MustDecode(devExtraData),
			GasLimit:   0x1fffffffffffff,
			Difficulty: big.NewInt(0x10000),
			BaseFee:    big.NewInt(DevInitialBaseFee),
			Alloc:      alloc,
		},
		Consensus:         "ethash",
		FixedDifficulty:   big.NewInt(100),
		ContractSizeLimit: 2147483647,
	}
}

func mustBig(s string) *big.Int {
	n, err := parseBig("", s, decOrHex)
	if err != nil {
		panic(err)
	}
	return n
}

// besuNetworks are the other network names Besu's --network accepts; Basalt
// names them in its error so users see why their Besu command line fails.
var besuNetworks = []string{"mainnet", "sepolia", "holesky", "hoodi", "goerli", "classic", "mordor", "ephemery", "lukso", "future_eips", "experimental_eips"}

// NamedNetwork returns the genesis of a named network (case-insensitive).
// Only "dev" is supported.
func NamedNetwork(name string) (*Genesis, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == NetworkDev {
		return DevGenesis(), nil
	}
	for _, b := range besuNetworks {
		if n == b {
			return nil, fmt.Errorf("network %q is not supported by basalt (supported: %s; use --genesis-file for any other network)", n, NetworkDev)
		}
	}
	return nil, fmt.Errorf("unknown network (supported: %s)", NetworkDev)
}
