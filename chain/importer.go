package chain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
)

// ImportStats summarises an import run.
type ImportStats struct {
	Imported uint64 // blocks executed and stored
	Skipped  uint64 // genesis and already-known blocks
	Gas      uint64 // gas of imported blocks
	Txs      uint64
}

// ImportOptions tune Import.
type ImportOptions struct {
	SkipSeal bool
	// Progress is called after every block (from the importing goroutine).
	Progress func(ImportStats, *types.Header)
}

// Import reads concatenated RLP blocks from r and inserts them in order.
// The genesis block and blocks already stored are skipped. It stops between
// blocks when ctx is cancelled; every inserted block is durable on its own,
// so an interrupted import leaves a consistent chain.
//
// Decoding and sender recovery run ahead of execution on the other cores.
func (c *Chain) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportStats, error) {
	var stats ImportStats
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.Sync()

	blocks, errc := decodeBlocks(ctx, r, c.config)
	for block := range blocks {
		if ctx.Err() != nil {
			break
		}
		if block.NumberU64() == 0 {
			stats.Skipped++
			continue
		}
		res, err := c.InsertBlock(ctx, block, InsertOptions{SkipSeal: opts.SkipSeal, NoSync: true})
		switch {
		case errors.Is(err, ErrKnownBlock):
			stats.Skipped++
		case err != nil:
			return stats, err
		default:
			stats.Imported++
			stats.Gas += res.GasUsed
			stats.Txs += uint64(len(block.Transactions()))
		}
		if opts.Progress != nil {
			opts.Progress(stats, block.Header())
		}
	}
	if err := <-errc; err != nil {
		return stats, err
	}
	return stats, ctx.Err()
}

// decodeBlocks streams blocks from r in order, recovering transaction
// senders in parallel so execution finds them cached.
func decodeBlocks(ctx context.Context, r io.Reader, cfg *params.ChainConfig) (<-chan *types.Block, <-chan error) {
	type job struct {
		block *types.Block
		done  chan struct{}
	}
	var (
		out     = make(chan *types.Block, 64)
		errc    = make(chan error, 1)
		jobs    = make(chan job, 256)
		work    = make(chan *types.Block, 256)
		workers = max(runtime.NumCPU()-1, 1)
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				signer := types.MakeSigner(cfg, b.Number(), b.Time())
				for _, tx := range b.Transactions() {
					types.Sender(signer, tx) // caches; invalid ones fail later in execution
				}
			}
		}()
	}
	// Decoder: reads blocks in order and hands them to the recovery workers.
	go func() {
		defer close(jobs)
		defer close(work)
		stream := rlp.NewStream(bufio.NewReaderSize(r, 1<<20), 0)
		for n := 0; ; n++ {
			block := new(types.Block)
			if err := stream.Decode(block); err != nil {
				if err != io.EOF {
					errc <- fmt.Errorf("decode block at position %d: %w", n, err)
				}
				return
			}
			j := job{block: block, done: make(chan struct{})}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
			select {
			case work <- block:
			case <-ctx.Done():
				return
			}
			close(j.done) // order is kept by jobs; recovery is best effort ahead
		}
	}()
	// Sequencer: delivers blocks in file order.
	go func() {
		defer close(out)
		defer func() {
			wg.Wait()
			select {
			case errc <- nil:
			default:
			}
		}()
		for j := range jobs {
			<-j.done
			select {
			case out <- j.block:
			case <-ctx.Done():
				for range jobs {
				}
				return
			}
		}
	}()
	return out, errc
}
