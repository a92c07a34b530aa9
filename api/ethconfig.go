package api

import (
	"encoding/binary"
	"hash/crc32"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/params/forks"
)

// ForkConfig is one fork's entry in eth_config (EIP-7910).
type ForkConfig struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    *params.BlobConfig        `json:"blobSchedule"`
	ChainID         *hexutil.Big              `json:"chainId"`
	ForkID          hexutil.Bytes             `json:"forkId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts,omitempty"`
}

// ConfigResult is eth_config's answer: the fork in force now, the next
// scheduled one and the last scheduled one (both null when none is
// scheduled).
type ConfigResult struct {
	Current *ForkConfig `json:"current"`
	Next    *ForkConfig `json:"next"`
	Last    *ForkConfig `json:"last"`
}

// Config is eth_config (EIP-7910). The fork id is EIP-2124's for the
// fork's activation; forks before Shanghai, which are scheduled by block
// number, report activation time 0.
func (e *Eth) Config() *ConfigResult {
	c := e.b.Chain
	cfg := c.Config()
	now := max(uint64(time.Now().Unix()), c.CurrentHeader().Time)
	current := cfg.LatestFork(now)
	last := cfg.LatestFork(^uint64(0))
	var next *forks.Fork
	for f := current + 1; f <= last; f++ {
		if cfg.Timestamp(f) != nil {
			next = &f
			break
		}
	}
	res := &ConfigResult{Current: e.forkConfig(current)}
	if next != nil {
		res.Next = e.forkConfig(*next)
		res.Last = e.forkConfig(last)
	}
	return res
}

func (e *Eth) forkConfig(f forks.Fork) *ForkConfig {
	c := e.b.Chain
	cfg := c.Config()
	var t uint64
	if ts := cfg.Timestamp(f); ts != nil {
		t = *ts
	}
	activation := t
	if c.Genesis().Time >= t {
		activation = 0
	}
	rules := cfg.Rules(c.CurrentHeader().Number, true, t)
	pre := make(map[string]common.Address)
	for addr, p := range vm.ActivePrecompiledContracts(rules) {
		pre[p.Name()] = addr
	}
	id := forkID(cfg, c.GenesisHash(), c.Genesis().Time, t)
	out := &ForkConfig{
		ActivationTime:  activation,
		BlobSchedule:    cfg.BlobConfig(f),
		ChainID:         (*hexutil.Big)(cfg.ChainID),
		ForkID:          id[:],
		Precompiles:     pre,
		SystemContracts: cfg.ActiveSystemContracts(t),
	}
	if len(out.SystemContracts) == 0 {
		out.SystemContracts = nil
	}
	return out
}

// forkID is the EIP-2124 fork hash of the chain at time t with every
// block-numbered fork passed: CRC32 of the genesis hash, updated with each
// fork block number and then each fork time up to t.
func forkID(cfg *params.ChainConfig, genesis common.Hash, genesisTime, t uint64) [4]byte {
	byBlock, byTime := forkPoints(cfg, genesisTime)
	sum := crc32.ChecksumIEEE(genesis[:])
	var buf [8]byte
	for _, n := range byBlock {
		binary.BigEndian.PutUint64(buf[:], n)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:])
	}
	for _, ft := range byTime {
		if ft > t {
			break
		}
		binary.BigEndian.PutUint64(buf[:], ft)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:])
	}
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], sum)
	return out
}

// forkPoints lists the chain config's fork block numbers and times, sorted
// and without duplicates, leaving out genesis ones (EIP-2124).
func forkPoints(cfg *params.ChainConfig, genesisTime uint64) (byBlock, byTime []uint64) {
	v := reflect.ValueOf(cfg).Elem()
	tp := v.Type()
	for i := range tp.NumField() {
		name := tp.Field(i).Name
		switch f := v.Field(i).Interface().(type) {
		case *big.Int:
			if strings.HasSuffix(name, "Block") && f != nil && f.Sign() > 0 {
				byBlock = append(byBlock, f.Uint64())
			}
		case *uint64:
			if strings.HasSuffix(name, "Time") && f != nil && *f > genesisTime {
				byTime = append(byTime, *f)
			}
		}
	}
	slices.Sort(byBlock)
	slices.Sort(byTime)
	return slices.Compact(byBlock), slices.Compact(byTime)
}
