package chain

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/rlp"
)

// Export writes the canonical blocks first..last (inclusive) to w as
// concatenated RLP, the format Import and Besu's `blocks import` read.
func (c *Chain) Export(ctx context.Context, w io.Writer, first, last uint64) (uint64, error) {
	head := c.CurrentHeader().Number.Uint64()
	if last > head {
		last = head
	}
	if first > last {
		return 0, fmt.Errorf("start block %d is after end block %d", first, last)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n uint64
	for num := first; num <= last; num++ {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		block := c.GetBlockByNumber(num)
		if block == nil {
			return n, fmt.Errorf("canonical block %d missing", num)
		}
		if err := rlp.Encode(bw, block); err != nil {
			return n, fmt.Errorf("encode block %d: %w", num, err)
		}
		n++
	}
	return n, bw.Flush()
}
