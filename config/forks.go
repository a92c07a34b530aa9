package config

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// completeForks gives a parsed chain config the shape go-ethereum needs
// while keeping Besu's meaning:
//
//   - Besu milestones include every earlier one, so a block fork that is not
//     set but precedes a set one is set to the next later configured block
//     (DAO excepted: it is an irregular state change, not a milestone).
//     The same holds for Shanghai, Cancun, Prague and Osaka timestamps.
//   - go-ethereum only activates timestamp forks on London blocks, so when
//     timestamp forks are set without londonBlock, London (and everything
//     before it) is put at block 0 if the first timestamp fork is active at
//     genesis; otherwise the config is ambiguous and refused.
//   - Active blob forks without a blobSchedule entry get go-ethereum's
//     defaults (Besu has the same built-in defaults).
//
// It finishes with go-ethereum's own fork-order check.
func completeForks(c *params.ChainConfig, genesisTime uint64) error {
	fillBlockForks(c)
	fillTimeForks(c)
	if c.ShanghaiTime != nil {
		switch {
		case c.LondonBlock == nil && *c.ShanghaiTime <= genesisTime:
			c.LondonBlock = new(big.Int)
			fillBlockForks(c)
		case c.LondonBlock == nil:
			return fmt.Errorf("config.londonBlock: missing, but timestamp forks are set (shanghaiTime %d, after the genesis timestamp %d); set londonBlock", *c.ShanghaiTime, genesisTime)
		case *c.ShanghaiTime <= genesisTime && c.LondonBlock.Sign() != 0:
			return fmt.Errorf("config.londonBlock: %s, but shanghaiTime %d is active at genesis; timestamp forks need London at block 0", c.LondonBlock, *c.ShanghaiTime)
		}
	}
	defaultBlobSchedule(c)
	if err := c.CheckConfigForkOrder(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// fillBlockForks sets each unset block fork (DAO excepted) that precedes a
// set one to the next later set value.
func fillBlockForks(c *params.ChainConfig) {
	var next *big.Int
	for i := len(blockForkKeys) - 1; i >= 0; i-- {
		f := blockForkKeys[i]
		if f.key == "daoForkBlock" {
			continue
		}
		p := f.field(c)
		switch {
		case *p != nil:
			next = *p
		case next != nil:
			*p = new(big.Int).Set(next)
		}
	}
}

// fillTimeForks sets unset Shanghai, Cancun, Prague and Osaka timestamps
// that precede a set timestamp fork to the next later set value. BPO forks
// only change blob parameters and are never filled in; any set later fork
// (BPO or Amsterdam) implies Osaka.
func fillTimeForks(c *params.ChainConfig) {
	var next *uint64
	for _, t := range []*uint64{c.BPO1Time, c.BPO2Time, c.BPO3Time, c.BPO4Time, c.BPO5Time, c.AmsterdamTime, c.BogotaTime} {
		if t != nil && (next == nil || *t < *next) {
			next = t
		}
	}
	for _, p := range []**uint64{&c.OsakaTime, &c.PragueTime, &c.CancunTime, &c.ShanghaiTime} {
		switch {
		case *p != nil:
			next = *p
		case next != nil:
			v := *next
			*p = &v
		}
	}
}

// defaultBlobSchedule adds go-ethereum's default blob parameters for every
// configured blob fork that has none.
func defaultBlobSchedule(c *params.ChainConfig) {
	defaults := []struct {
		time *uint64
		dst  func(*params.BlobScheduleConfig) **params.BlobConfig
		def  *params.BlobConfig
	}{
		{c.CancunTime, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.Cancun }, params.DefaultCancunBlobConfig},
		{c.PragueTime, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.Prague }, params.DefaultPragueBlobConfig},
		{c.BPO1Time, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO1 }, params.DefaultBPO1BlobConfig},
		{c.BPO2Time, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO2 }, params.DefaultBPO2BlobConfig},
		{c.BPO3Time, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO3 }, params.DefaultBPO3BlobConfig},
		{c.BPO4Time, func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO4 }, params.DefaultBPO4BlobConfig},
	}
	for _, d := range defaults {
		if d.time == nil {
			continue
		}
		if c.BlobScheduleConfig == nil {
			c.BlobScheduleConfig = new(params.BlobScheduleConfig)
		}
		if p := d.dst(c.BlobScheduleConfig); *p == nil {
			cp := *d.def // never share go-ethereum's package-level value
			*p = &cp
		}
	}
}
