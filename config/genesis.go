package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// Genesis is a parsed genesis file: go-ethereum's genesis specification (fork
// schedule, header fields, allocation) plus the Besu options go-ethereum has
// no place for.
type Genesis struct {
	// Core holds the chain configuration (forks already completed, see
	// package doc), the genesis header fields and the allocation.
	// Core.ToBlock() builds the genesis block.
	Core *core.Genesis

	// Consensus names the consensus engine selected by the genesis config,
	// with Besu's precedence when several keys are present: "ethash",
	// "ibft2", "qbft", "clique", or "" when none is configured.
	Consensus string

	// FixedDifficulty is config.ethash.fixeddifficulty: when set, every
	// ethash block has this difficulty (Besu's dev network uses 100). Nil
	// means the normal difficulty calculation.
	FixedDifficulty *big.Int

	// ContractSizeLimit is config.contractSizeLimit (0 = not set, use the
	// fork's limit). go-ethereum's EVM has the limit as a constant, so a
	// processor can only honour values it implements itself.
	ContractSizeLimit uint64

	// EVMStackSize is config.evmStackSize (0 = not set, 1024).
	EVMStackSize uint64

	// ZeroBaseFee is config.zeroBaseFee: London rules with a base fee that
	// stays zero (Besu's option for free-gas private networks).
	ZeroBaseFee bool

	// FixedBaseFee is config.fixedBaseFee, read only to name it in the
	// privacy start-up check: Basalt does not implement Besu's fixed base
	// fee market, its London blocks follow EIP-1559.
	FixedBaseFee bool

	// Quorum is config.isQuorum, GoQuorum's key: the chain is a GoQuorum
	// network, whose legacy transactions with V 37/38 are GoQuorum private
	// transactions (package quorumtx) and whose QBFT/IBFT blocks
	// may change the gas limit by any amount (GoQuorum checks no bound;
	// besu#10723).
	Quorum bool

	// Clique is config.clique, nil when absent.
	Clique *CliqueConfig

	// IBFT2 is config.ibft2, nil when absent.
	IBFT2 *IBFT2Config
	// IBFT2Transitions are config.transitions.ibft2 (Besu's BftFork: the
	// keys of a QBFT transition but the validator selection ones), by
	// ascending block.
	IBFT2Transitions []QBFTTransition

	// QBFT is config.qbft with config.transitions.qbft, nil when absent.
	QBFT *QBFTConfig
}

// CliqueConfig is Besu's config.clique object, with Besu's defaults for
// missing keys. go-ethereum's spellings "period" and "epoch" are accepted too.
type CliqueConfig struct {
	// BlockPeriodSeconds is the target time between blocks (default 15).
	BlockPeriodSeconds uint64
	// EpochLength is the number of blocks after which votes are reset and a
	// checkpoint is written (default 30000).
	EpochLength uint64
	// CreateEmptyBlocks says whether to seal blocks without transactions
	// (default true).
	CreateEmptyBlocks bool
	// Raw is the object as given, with lower-cased keys.
	Raw json.RawMessage
}

// IBFT2Config is Besu's config.ibft2 object, with Besu's defaults for missing
// keys.
type IBFT2Config struct {
	// BlockPeriodSeconds is the minimum time between blocks (default 1).
	BlockPeriodSeconds uint64
	// BlockPeriodMilliseconds, when not 0, is the block period in
	// milliseconds and takes precedence over BlockPeriodSeconds (Besu's
	// key "xblockperiodmilliseconds"); see BlockPeriod.
	BlockPeriodMilliseconds uint64
	// EpochLength is the number of blocks after which votes are reset (default 30000).
	EpochLength uint64
	// RequestTimeoutSeconds is the round timeout of round 0 (default 1).
	RequestTimeoutSeconds uint64
	// GossipedHistoryLimit bounds the gossiped-message cache (default 1000).
	GossipedHistoryLimit uint64
	// MessageQueueLimit bounds the incoming message queue (default 1000).
	MessageQueueLimit uint64
	// DuplicateMessageLimit bounds the duplicate-message cache (default 100).
	DuplicateMessageLimit uint64
	// FutureMessagesLimit bounds messages kept for future heights (default 1000).
	FutureMessagesLimit uint64
	// FutureMessagesMaxDistance is how many heights ahead messages are kept (default 10).
	FutureMessagesMaxDistance uint64
	// EmptyBlockPeriodSeconds is the minimum time between a block and an
	// empty child (Besu's key "xemptyblockperiodseconds", or
	// "emptyblockperiodseconds" as Basalt first spelled it;
	// 0, the default, makes empty blocks every block period as Besu 1.3).
	EmptyBlockPeriodSeconds uint64
	// BlockReward is the reward in wei paid per block (key "blockreward",
	// default 0).
	BlockReward *big.Int
	// MiningBeneficiary receives the block reward instead of the proposer
	// when set.
	MiningBeneficiary *common.Address
	// Raw is the object as given, with lower-cased keys.
	Raw json.RawMessage
}

// BlockPeriod is the block period in force: xblockperiodmilliseconds when
// set, else blockperiodseconds. Besu calls the millisecond key test-only;
// Basalt runs it in production down to 100 ms (docs/how-to/sub-second-blocks.md).
func (c *IBFT2Config) BlockPeriod() time.Duration {
	if c.BlockPeriodMilliseconds != 0 {
		return time.Duration(c.BlockPeriodMilliseconds) * time.Millisecond
	}
	return time.Duration(c.BlockPeriodSeconds) * time.Second
}

// QBFTConfig is Besu's config.qbft object with Besu's defaults (those of
// config.ibft2) and the QBFT transitions (config.transitions.qbft).
type QBFTConfig struct {
	// IBFT2Config holds the options QBFT shares with IBFT 2.0, read from
	// config.qbft.
	IBFT2Config
	// ValidatorContractAddress selects validators by contract from genesis
	// (key "validatorcontractaddress").
	ValidatorContractAddress *common.Address
	// StartBlock, with config.ibft2 present, is the first QBFT block of a
	// migration from IBFT 2.0 (key "startblock"); 0 when absent.
	StartBlock uint64
	// Transitions are config.transitions.qbft, by ascending block.
	Transitions []QBFTTransition
}

// QBFTTransition is one entry of config.transitions.qbft: options that
// change from Block on. Unset fields keep their previous value.
type QBFTTransition struct {
	Block                   uint64
	BlockPeriodSeconds      *uint64
	EmptyBlockPeriodSeconds *uint64
	// BlockPeriodMilliseconds is the transition's xblockperiodmilliseconds:
	// 0 returns to BlockPeriodSeconds; unset keeps the previous value,
	// even where the transition sets blockperiodseconds (as Besu).
	BlockPeriodMilliseconds *uint64
	// Validators replace the validator set at Block without a vote.
	Validators []common.Address
	// ValidatorSelectionMode is "blockheader", "contract" or "" (unchanged).
	ValidatorSelectionMode   string
	ValidatorContractAddress *common.Address
	BlockReward              *big.Int
	MiningBeneficiary        *common.Address
}

// Apply returns opts with the options t sets.
func (t QBFTTransition) Apply(opts IBFT2Config) IBFT2Config {
	if t.BlockPeriodSeconds != nil {
		opts.BlockPeriodSeconds = *t.BlockPeriodSeconds
	}
	if t.EmptyBlockPeriodSeconds != nil {
		opts.EmptyBlockPeriodSeconds = *t.EmptyBlockPeriodSeconds
	}
	if t.BlockPeriodMilliseconds != nil {
		opts.BlockPeriodMilliseconds = *t.BlockPeriodMilliseconds
	}
	if t.BlockReward != nil {
		opts.BlockReward = t.BlockReward
	}
	if t.MiningBeneficiary != nil {
		opts.MiningBeneficiary = t.MiningBeneficiary
	}
	return opts
}

// ChainConfig returns the go-ethereum chain configuration (the fork schedule).
func (g *Genesis) ChainConfig() *params.ChainConfig { return g.Core.Config }

// ChainID returns the chain ID of the genesis config.
func (g *Genesis) ChainID() *big.Int { return g.Core.Config.ChainID }

// LoadGenesisFile reads and parses a genesis file.
func LoadGenesisFile(path string) (*Genesis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := ParseGenesis(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ParseGenesis parses a genesis file in Besu's format, which also accepts
// go-ethereum's spellings: keys are matched case-insensitively and unknown
// keys are ignored. Missing earlier forks are filled in and blob schedules
// defaulted as the package documentation describes; the result passes
// go-ethereum's fork-order check. Errors name the offending key.
func ParseGenesis(data []byte) (*Genesis, error) {
	m, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	root, err := lowerKeys("", m)
	if err != nil {
		return nil, err
	}
	cfgObj, err := root.child("config", "config")
	if err != nil {
		return nil, err
	}
	if cfgObj == nil {
		return nil, errors.New("config: missing")
	}
	g := &Genesis{Core: &core.Genesis{Alloc: types.GenesisAlloc{}}}
	if err := g.parseConfig(cfgObj); err != nil {
		return nil, err
	}
	if err := g.parseHeader(root); err != nil {
		return nil, err
	}
	if err := g.parseAlloc(root); err != nil {
		return nil, err
	}
	if err := completeForks(g.Core.Config, g.Core.Timestamp); err != nil {
		return nil, err
	}
	if err := g.parseBlobHeaderFields(root); err != nil {
		return nil, err
	}
	if g.ZeroBaseFee {
		// Besu's ZeroBaseFeeMarket: every London block after the genesis
		// has base fee 0. The genesis keeps Besu's (baseFeePerGas, else
		// 1 gwei when London is at 0), or the genesis hash would differ.
		feemarket.SetZeroBaseFee(g.Core.Config)
	}
	return g, nil
}

// parseHeader reads the genesis header fields.
func (g *Genesis) parseHeader(root object) error {
	c := g.Core
	var err error
	if v, ok := root.get("nonce"); ok {
		if c.Nonce, err = parseUint64("nonce", v, alwaysHex); err != nil {
			return err
		}
	}
	if v, ok := root.get("timestamp"); ok {
		if c.Timestamp, err = parseUint64("timestamp", v, decOrHex); err != nil {
			return err
		}
	}
	if v, ok := root.get("extraData"); ok {
		if c.ExtraData, err = parseHexBytes("extraData", v); err != nil {
			return err
		}
	}
	v, ok := root.get("gasLimit")
	if !ok {
		return errors.New("gasLimit: missing")
	}
	if c.GasLimit, err = parseUint64("gasLimit", v, decOrHex); err != nil {
		return err
	}
	v, ok = root.get("difficulty")
	if !ok {
		return errors.New("difficulty: missing")
	}
	if c.Difficulty, err = parseBig("difficulty", v, alwaysHex); err != nil {
		return err
	}
	if v, ok := root.get("mixHash"); ok {
		if c.Mixhash, err = parseWord("mixHash", v); err != nil {
			return err
		}
	}
	if v, ok := root.get("coinbase"); ok {
		if c.Coinbase, err = parseAddress("coinbase", v); err != nil {
			return err
		}
	}
	if v, ok := root.get("parentHash"); ok {
		if c.ParentHash, err = parseWord("parentHash", v); err != nil {
			return err
		}
	}
	if v, ok := root.get("baseFeePerGas"); ok {
		if c.BaseFee, err = parseBig("baseFeePerGas", v, decOrHex); err != nil {
			return err
		}
	}
	// Besu always builds block 0 with no gas used and ignores these keys; a
	// non-zero value would give a block Besu would not build, so refuse it.
	for _, key := range []string{"number", "gasUsed"} {
		if v, ok := root.get(key); ok {
			n, err := parseBig(key, v, decOrHex)
			if err != nil {
				return err
			}
			if n.Sign() != 0 {
				return fmt.Errorf("%s: must be 0 in a genesis block, got %s", key, n)
			}
		}
	}
	if v, ok := root.get("parentBeaconBlockRoot"); ok {
		h, err := parseWord("parentBeaconBlockRoot", v)
		if err != nil {
			return err
		}
		if h != (common.Hash{}) {
			return errors.New("parentBeaconBlockRoot: only the zero hash is supported in a genesis block")
		}
	}
	return nil
}

// parseBlobHeaderFields reads excessBlobGas and blobGasUsed, which Besu only
// uses when Cancun is active at genesis (so it runs after the forks are
// complete).
func (g *Genesis) parseBlobHeaderFields(root object) error {
	c := g.Core
	if !c.Config.IsCancun(new(big.Int), c.Timestamp) {
		return nil
	}
	for _, f := range []struct {
		key string
		dst **uint64
	}{{"excessBlobGas", &c.ExcessBlobGas}, {"blobGasUsed", &c.BlobGasUsed}} {
		if v, ok := root.get(f.key); ok {
			n, err := parseUint64(f.key, v, alwaysHex)
			if err != nil {
				return err
			}
			*f.dst = &n
		}
	}
	return nil
}

// parseAlloc reads the genesis allocation. Account keys other than balance,
// code, storage and nonce (Besu's "privateKey", "comment", ...) are ignored.
func (g *Genesis) parseAlloc(root object) error {
	v, ok := root.get("alloc")
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("alloc: expected an object, got %s", jsonKind(v))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := make(map[common.Address]string, len(m))
	for _, key := range keys {
		addr, err := decodeAddress(key)
		if err != nil {
			return fmt.Errorf("alloc: %v", err)
		}
		if prev, dup := seen[addr]; dup {
			return fmt.Errorf("alloc: %q and %q are the same address", prev, key)
		}
		seen[addr] = key
		path := "alloc." + key
		am, ok := m[key].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected an object, got %s", path, jsonKind(m[key]))
		}
		acct, err := parseAccount(path, am)
		if err != nil {
			return err
		}
		g.Core.Alloc[addr] = acct
	}
	return nil
}

func parseAccount(path string, m map[string]any) (types.Account, error) {
	o, err := lowerKeys(path, m)
	if err != nil {
		return types.Account{}, err
	}
	acct := types.Account{Balance: new(big.Int)}
	if v, ok := o.get("balance"); ok {
		if acct.Balance, err = parseBig(path+".balance", v, decOrHex); err != nil {
			return acct, err
		}
	}
	if v, ok := o.get("nonce"); ok {
		if acct.Nonce, err = parseUint64(path+".nonce", v, alwaysHex); err != nil {
			return acct, err
		}
	}
	if v, ok := o.get("code"); ok {
		if acct.Code, err = parseHexBytes(path+".code", v); err != nil {
			return acct, err
		}
		if len(acct.Code) == 0 {
			acct.Code = nil
		}
	}
	if v, ok := o.get("storage"); ok {
		sm, ok := v.(map[string]any)
		if !ok {
			return acct, fmt.Errorf("%s.storage: expected an object, got %s", path, jsonKind(v))
		}
		acct.Storage = make(map[common.Hash]common.Hash, len(sm))
		for k, sv := range sm {
			key, err := parseWord(path+".storage", k)
			if err != nil {
				return acct, err
			}
			if _, dup := acct.Storage[key]; dup {
				return acct, fmt.Errorf("%s.storage: slot %s given twice", path, key.Hex())
			}
			val, err := parseWord(path+".storage."+k, sv)
			if err != nil {
				return acct, err
			}
			acct.Storage[key] = val
		}
	}
	return acct, nil
}
