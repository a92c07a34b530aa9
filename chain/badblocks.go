package chain

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// MaxBadBlocks is how many invalid blocks the chain remembers
// (debug_getBadBlocks), most recent first; older ones are forgotten. The
// record is in memory only, as in Besu and go-ethereum.
const MaxBadBlocks = 100

// BadBlock is a block InsertBlock refused as invalid: its header, uncles
// or body failed verification, or executing it failed or gave a different
// result than it claims.
type BadBlock struct {
	Block *types.Block
	Hash  common.Hash // the engine's hash
	Err   error
}

// badBlocks is the chain's bounded record of invalid blocks.
type badBlocks struct {
	mu     sync.Mutex
	blocks []BadBlock // oldest first
}

func (b *badBlocks) add(bb BadBlock) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, seen := range b.blocks {
		if seen.Hash == bb.Hash {
			return
		}
	}
	if len(b.blocks) == MaxBadBlocks {
		b.blocks = append(b.blocks[:0], b.blocks[1:]...)
	}
	b.blocks = append(b.blocks, bb)
}

// BadBlocks returns the invalid blocks InsertBlock has refused since the
// chain was opened (at most MaxBadBlocks), most recent first.
func (c *Chain) BadBlocks() []BadBlock {
	c.bad.mu.Lock()
	defer c.bad.mu.Unlock()
	out := make([]BadBlock, len(c.bad.blocks))
	for i, bb := range c.bad.blocks {
		out[len(out)-1-i] = bb
	}
	return out
}

// invalid records block as bad and returns err, the reason.
func (c *Chain) invalid(block *types.Block, hash common.Hash, err error) error {
	c.bad.add(BadBlock{Block: block, Hash: hash, Err: err})
	return err
}
