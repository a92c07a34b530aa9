package ibft2

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// Under a sub-second period (xblockperiodmilliseconds) several blocks
// share a second: a child may carry its parent's timestamp, never an
// earlier one; a period of 1.5 s needs one whole second more.
func TestSubSecondPeriodTimestamps(t *testing.T) {
	for _, c := range []struct {
		ms           uint64
		sameSecondOK bool
	}{{100, true}, {999, true}, {1500, false}} {
		f := newFixture(4)
		cfg := ibftConfig()
		cfg.BlockPeriodMilliseconds = c.ms
		f.e = newFor(cfg, Options{Key: f.keys[0], Clock: consensus.NewManualClock(f.now)})
		genesis := f.chain.byNum[0]
		at := func(ts uint64) *types.Header {
			h := f.next(genesis, f.keys[1], nil, nil)
			h.Time = ts
			return f.seal(h, 0, f.keys[:3])
		}
		if err := f.e.VerifyHeader(f.chain, at(genesis.Time+1), genesis, true); err != nil {
			t.Fatalf("%d ms, a second on: %v", c.ms, err)
		}
		err := f.e.VerifyHeader(f.chain, at(genesis.Time), genesis, true)
		if c.sameSecondOK && err != nil {
			t.Fatalf("%d ms, same second: %v", c.ms, err)
		}
		if !c.sameSecondOK && !errors.Is(err, consensus.ErrInvalidTimestamp) {
			t.Fatalf("%d ms, same second: %v, want %v", c.ms, err, consensus.ErrInvalidTimestamp)
		}
		if err := f.e.VerifyHeader(f.chain, at(genesis.Time-1), genesis, true); !errors.Is(err, consensus.ErrInvalidTimestamp) {
			t.Fatalf("%d ms, a second back: %v, want %v", c.ms, err, consensus.ErrInvalidTimestamp)
		}
	}
}
